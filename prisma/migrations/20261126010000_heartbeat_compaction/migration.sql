-- Heartbeats do not grow the log forever (docs/architecture.md, "Heartbeat compaction"): the log
-- stays append-only, except that a transaction which sets clutch.compacting may delete events of
-- type agent.heartbeat (server/events/compaction.ts keeps the newest of each agent and every
-- change of presence). UPDATE stays refused. The function body writes its semicolons as \073.
CREATE OR REPLACE FUNCTION "clutch_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS
  E'BEGIN IF TG_OP = ''DELETE'' AND OLD."type" = ''agent.heartbeat'' AND current_setting(''clutch.compacting'', true) = ''on'' THEN RETURN OLD\073 END IF\073 RAISE EXCEPTION ''events is append-only: % is not allowed'', TG_OP\073 END';
