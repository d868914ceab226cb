-- The runs list walks runs newest first (started_at, id) and each run's number in its channel
-- counts the channel's runs before it (thread_id, created_at, id): an index for each, the
-- second replacing the one on thread_id alone (docs/benchmarks.md "The runs list")

-- DropIndex
DROP INDEX "runs_thread_id_idx";

-- CreateIndex
CREATE INDEX "runs_thread_id_created_at_id_idx" ON "runs"("thread_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "runs_started_at_id_idx" ON "runs"("started_at" DESC, "id" DESC);
