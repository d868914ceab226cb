-- How far each person has read each channel (docs/channels.md "Welcome, drafts and reading"):
-- set to the channel's end when they join, moved forward as they read.
-- CreateTable
CREATE TABLE "read_marks" (
    "member" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "read_seq" BIGINT NOT NULL DEFAULT 0,
    "read_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "read_marks_pkey" PRIMARY KEY ("member","thread_id")
);

-- The For you inbox finds the messages that mention a person (`payload.mentions` holds
-- `user:<id>`) with `payload->'mentions' @> '["user:<id>"]'` (server/events/inbox.ts).
CREATE INDEX "events_mentions_idx" ON "events" USING GIN (("payload"->'mentions') jsonb_path_ops) WHERE "type" = 'chat.message';

-- The For you inbox's questions: the tasks that have a question waiting (server/events/queries.ts
-- `openQuestionsFor`).
CREATE INDEX "tasks_open_questions_idx" ON "tasks" ("thread_id") WHERE "open_questions" <> '[]'::jsonb;
