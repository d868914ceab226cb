-- Questions an agent asked in its task that have no answer yet (lib/fold/task-state.ts).
ALTER TABLE "tasks" ADD COLUMN "open_questions" JSONB NOT NULL DEFAULT '[]';
