-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "events" (
    "seq" BIGINT NOT NULL,
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "parent_task_id" TEXT,
    "type" TEXT NOT NULL,
    "from_agent_id" TEXT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "idempotency_key" TEXT,
    "payload" JSONB NOT NULL,
    "rest" JSONB NOT NULL,
    "stored_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "threads" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "topic" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seq" BIGINT NOT NULL DEFAULT 0,
    "last_event_at" TIMESTAMPTZ(3),
    "message_count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "threads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "task_total" INTEGER NOT NULL DEFAULT 0,
    "task_done" INTEGER NOT NULL DEFAULT 0,
    "event_count" INTEGER NOT NULL DEFAULT 0,
    "last_seq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "parent_task_id" TEXT,
    "state" TEXT NOT NULL,
    "assignee" TEXT,
    "requester" TEXT,
    "title" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "error" JSONB,
    "last_seq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_idempotency_key_key" ON "events"("idempotency_key");

-- CreateIndex
CREATE INDEX "events_thread_id_seq_idx" ON "events"("thread_id", "seq");

-- CreateIndex
CREATE INDEX "events_run_id_seq_idx" ON "events"("run_id", "seq");

-- CreateIndex
CREATE INDEX "events_task_id_idx" ON "events"("task_id");

-- CreateIndex
CREATE INDEX "events_from_agent_id_idx" ON "events"("from_agent_id");

-- CreateIndex
CREATE UNIQUE INDEX "events_run_id_id_key" ON "events"("run_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "threads_name_key" ON "threads"("name");

-- CreateIndex
CREATE INDEX "runs_thread_id_idx" ON "runs"("thread_id");

-- CreateIndex
CREATE INDEX "tasks_run_id_idx" ON "tasks"("run_id");

-- CreateIndex
CREATE INDEX "tasks_parent_task_id_idx" ON "tasks"("parent_task_id");


-- The log is append-only (Clutch Protocol §8.1): refuse UPDATE and DELETE on events.
-- Prisma's pg adapter splits migration scripts on every semicolon, so the function body writes
-- its one semicolon as the escape \073.
CREATE FUNCTION "clutch_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS
  E'BEGIN RAISE EXCEPTION ''events is append-only: % is not allowed'', TG_OP\073 END';

CREATE TRIGGER "events_append_only" BEFORE UPDATE OR DELETE ON "events"
  FOR EACH ROW EXECUTE FUNCTION "clutch_events_append_only"();
