-- The router and the agent directory (issue 6) read tasks by assignee: load and recent record.
CREATE INDEX "tasks_assignee_state_idx" ON "tasks"("assignee", "state");
CREATE INDEX "tasks_assignee_updated_at_idx" ON "tasks"("assignee", "updated_at");
