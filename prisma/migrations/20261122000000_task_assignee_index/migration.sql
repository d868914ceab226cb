-- The router (Clutch Protocol §4.2) and the agent directory read tasks by assignee: load and recent record.
CREATE INDEX "tasks_assignee_state_idx" ON "tasks"("assignee", "state");
CREATE INDEX "tasks_assignee_updated_at_idx" ON "tasks"("assignee", "updated_at");
