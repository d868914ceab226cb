-- Full-text search (docs/channels.md, Search) over what people read: messages, requests (run
-- titles), results, errors, tool results and approval requests, every string and number of their
-- payload. A generated column, so the insert of the append path keeps it current. Payloads over
-- 400,000 bytes are indexed from their first 400,000 characters of JSON text, which keeps the
-- tsvector under its 1 MB limit.
ALTER TABLE "events" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  CASE
    WHEN "type" NOT IN ('chat.message', 'task.request', 'task.result', 'task.error', 'tool.result', 'approval.requested') THEN NULL
    WHEN octet_length("payload"::text) <= 400000 THEN jsonb_to_tsvector('simple'::regconfig, "payload", '["string", "numeric"]')
    ELSE to_tsvector('simple'::regconfig, left("payload"::text, 400000))
  END
) STORED;

CREATE INDEX "events_search_idx" ON "events" USING GIN ("search");
