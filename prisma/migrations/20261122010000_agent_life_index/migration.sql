-- The agent registry (Clutch Protocol §1.4, §2.4) reads each agent's newest card and newest heartbeat at start.
CREATE INDEX "events_type_from_agent_id_seq_idx" ON "events"("type", "from_agent_id", "seq");
