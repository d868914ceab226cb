-- Message actions (docs/protocol.md "Message actions (Clutch extension)"): chat.reaction,
-- chat.edit, chat.delete and chat.pin name the chat.message they act on in `payload.message_id`,
-- in the run of that message.

-- The actions on a message, found by the message they name (server/events/queries.ts
-- `messageWithActions`, `pinnedInThread`, and search to leave out deleted messages and edited texts).
CREATE INDEX "events_message_actions_idx" ON "events" (("payload"->>'message_id'), "run_id", "seq")
  WHERE "type" IN ('chat.reaction', 'chat.edit', 'chat.delete', 'chat.pin');

-- The pins of a channel (`GET /api/threads/:id/pins`).
CREATE INDEX "events_pins_idx" ON "events" ("thread_id", "seq") WHERE "type" = 'chat.pin';

-- Search finds an edited message by its current text (docs/channels.md "Search"): the text of
-- a chat.edit is indexed like the text of a message (weight A). The search query shows each
-- message once, by its newest text, and leaves deleted messages out. As in event_search_said, PostgreSQL cannot change
-- the expression of a generated column, so the column is dropped and added again.
DROP INDEX IF EXISTS "events_search_idx";
ALTER TABLE "events" DROP COLUMN "search";
ALTER TABLE "events" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  CASE
    WHEN "type" NOT IN ('chat.message', 'chat.edit', 'task.request', 'task.result', 'task.error', 'tool.result', 'approval.requested') THEN NULL
    ELSE
      setweight(to_tsvector('simple'::regconfig, left(CASE "type"
        WHEN 'chat.message' THEN coalesce("payload"->>'text', '')
        WHEN 'chat.edit' THEN coalesce("payload"->>'text', '')
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
