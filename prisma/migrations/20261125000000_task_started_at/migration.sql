-- Every task ends (docs/lifecycle.md): when the current attempt of a task was accepted, so the
-- deadline sweep can time out a task that runs too long, and a partial index over the tasks that
-- have not ended, which is all that sweep reads.
ALTER TABLE "tasks" ADD COLUMN "started_at" TIMESTAMPTZ(3);

UPDATE "tasks" SET "started_at" = "created_at" WHERE "ended_at" IS NULL AND "state" <> 'pending';

CREATE INDEX "tasks_open_idx" ON "tasks" ("created_at") WHERE "ended_at" IS NULL;
