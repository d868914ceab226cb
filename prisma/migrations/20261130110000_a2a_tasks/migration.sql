-- A2A task records (docs/adapters.md "A2A"): the SDK's Task in its JSON form, served by any node, kept over restarts.
-- CreateTable
CREATE TABLE "a2a_tasks" (
    "id" TEXT NOT NULL,
    "deployment" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "tenant" TEXT NOT NULL DEFAULT '',
    "owner" TEXT NOT NULL,
    "context_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "task" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "a2a_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "a2a_tasks_deployment_endpoint_tenant_owner_context_id_idx" ON "a2a_tasks"("deployment", "endpoint", "tenant", "owner", "context_id");

-- CreateIndex
CREATE INDEX "a2a_tasks_deployment_endpoint_state_idx" ON "a2a_tasks"("deployment", "endpoint", "state");

