-- Who answers a new top-level message in a channel, when an admin chose (docs/channels.md "Who answers").
ALTER TABLE "threads" ADD COLUMN "answers" TEXT;
ALTER TABLE "threads" ADD CONSTRAINT "threads_answers_check" CHECK ("answers" IS NULL OR "answers" IN ('mentions', 'every_message'));
