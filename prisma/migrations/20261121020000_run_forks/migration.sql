-- Forks (issue 4): the run a run was forked from and at which seq, and when the run appeared here. (No semicolons in comments: the migration engine splits on them.)
ALTER TABLE "runs" ADD COLUMN "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "runs" ADD COLUMN "forked_from_run_id" TEXT;
ALTER TABLE "runs" ADD COLUMN "forked_at_seq" BIGINT;

CREATE INDEX "runs_forked_from_run_id_idx" ON "runs"("forked_from_run_id");
