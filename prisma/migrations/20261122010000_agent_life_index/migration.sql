-- The agent registry (issue 6) reads each agent's newest card and newest heartbeat at start.
CREATE INDEX "events_type_from_agent_id_seq_idx" ON "events"("type", "from_agent_id", "seq");
