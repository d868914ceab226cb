-- Approvals (issue 5): the tasks waiting for them, and the approvals projection.
ALTER TABLE "tasks" ADD COLUMN "open_approvals" JSONB NOT NULL DEFAULT '[]';

CREATE TABLE "approvals" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "subject" JSONB NOT NULL,
    "arguments" JSONB,
    "preview" TEXT,
    "recommendation" JSONB,
    "approvers" JSONB NOT NULL,
    "rule" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,
    "comment" TEXT,
    "decided_arguments" JSONB,
    "request_seq" BIGINT NOT NULL,
    "gate_key" TEXT NOT NULL,

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "approvals_gate_key_key" ON "approvals"("gate_key");
CREATE INDEX "approvals_state_requested_at_idx" ON "approvals"("state", "requested_at");
CREATE INDEX "approvals_thread_id_idx" ON "approvals"("thread_id");
