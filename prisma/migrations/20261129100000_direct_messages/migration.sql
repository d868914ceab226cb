-- Direct messages (docs/channels.md "Direct messages"): a private thread between two principals,
-- with an agent as the entry agent of a DM with that agent.
ALTER TABLE "threads" ADD COLUMN "dm_between" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "threads" ADD COLUMN "entry_agent" TEXT;
CREATE INDEX "threads_dm_between_idx" ON "threads" USING GIN ("dm_between");
-- One direct message per pair: a second open of the same DM finds the first.
CREATE UNIQUE INDEX "threads_dm_pair_key" ON "threads" ("dm_between") WHERE cardinality("dm_between") > 0;
