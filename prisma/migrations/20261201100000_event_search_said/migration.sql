-- Search ranks what a person or agent said above what only quotes it (docs/channels.md, Search):
-- the text an event says itself (the text of a message, the title and instructions of a
-- request, the summary and report of a result, the message of an error, the summary of an
-- approval) is indexed with weight A, every string and number of the payload (data, quoted
-- results, previews) with weight D. A review request that carries a report in its input still
-- matches the figures of the report, but only as weight D, so the report itself ranks first.
-- PostgreSQL 15 cannot change the expression of a generated column, so the column is dropped
-- and added again (computed for every stored event).
DROP INDEX IF EXISTS "events_search_idx";
ALTER TABLE "events" DROP COLUMN "search";
ALTER TABLE "events" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  CASE
    WHEN "type" NOT IN ('chat.message', 'task.request', 'task.result', 'task.error', 'tool.result', 'approval.requested') THEN NULL
    ELSE
      setweight(to_tsvector('simple'::regconfig, left(CASE "type"
        WHEN 'chat.message' THEN coalesce("payload"->>'text', '')
        WHEN 'task.request' THEN coalesce("payload"->>'title', '') || ' ' || coalesce("payload"->>'instructions', '')
        WHEN 'task.result' THEN coalesce("payload"->>'summary', '') || ' ' || coalesce("payload"->>'report_markdown', '') || ' ' || coalesce("payload"->>'text', '') || ' ' || coalesce("payload"->>'answer', '')
        WHEN 'task.error' THEN coalesce("payload"->>'code', '') || ' ' || coalesce("payload"->>'message', '')
        WHEN 'approval.requested' THEN coalesce("payload"->>'summary', '')
        ELSE ''
      END, 200000)), 'A')
      || setweight(CASE
        WHEN octet_length("payload"::text) <= 400000 THEN jsonb_to_tsvector('simple'::regconfig, "payload", '["string", "numeric"]')
        ELSE to_tsvector('simple'::regconfig, left("payload"::text, 400000))
      END, 'D')
  END
) STORED;

CREATE INDEX "events_search_idx" ON "events" USING GIN ("search");
