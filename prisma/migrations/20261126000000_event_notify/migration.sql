-- Every node of a deployment tails the log itself (docs/deploy.md): a statement that appends
-- events notifies channel clutch_events with the highest seq it wrote, delivered at commit, so
-- listeners read the new events at once instead of on a polling timer. The function body writes
-- its semicolons as the escape \073 (the migration runner splits scripts on semicolons).
CREATE FUNCTION "clutch_events_notify"() RETURNS trigger LANGUAGE plpgsql AS
  E'BEGIN PERFORM pg_notify(''clutch_events'', (SELECT max("seq")::text FROM new_events))\073 RETURN NULL\073 END';

CREATE TRIGGER "events_notify" AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION "clutch_events_notify"();
