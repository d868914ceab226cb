/**
 * The agents as people see them in the sidebar (issue 3 step 5): each workspace agent with its
 * status, folded from the tasks projection. Busy while it works on a task (pending or
 * running), online otherwise; agents announced in the log but not running here are offline.
 */
import type { AgentSummary } from "@/lib/api/types";
import type { AgentCard } from "@/lib/protocol";
import type { Db } from "../db/client";
import { fromRow } from "../events/codec";
import type { Workspace } from "./workspace";

/** Every agent known to the workspace or the log, by name. */
export async function listAgents(db: Db, workspace: Workspace | null): Promise<AgentSummary[]> {
  const counts = await db.task.groupBy({ by: ["assignee", "state"], where: { state: { in: ["pending", "running", "waiting_input"] } }, _count: true });
  const count = (agent_id: string, states: string[]) =>
    counts.filter((c) => c.assignee === agent_id && states.includes(c.state)).reduce((n, c) => n + c._count, 0);
  const out: AgentSummary[] = [];
  const add = (card: AgentCard, running: boolean) => {
    const active = count(card.agent_id, ["pending", "running"]);
    out.push({
      agent_id: card.agent_id,
      name: card.display.name,
      description: card.display.desc ?? null,
      status: !running ? "offline" : active > 0 ? "busy" : "online",
      active_tasks: active,
      waiting_tasks: count(card.agent_id, ["waiting_input"]),
      max_concurrency: card.limits?.max_concurrency ?? 1,
      card,
    });
  };
  for (const a of workspace?.agents.values() ?? []) add(a.card, true);
  const announced = await db.event.findMany({
    where: { type: { in: ["agent.register", "agent.update"] } },
    orderBy: { seq: "desc" },
    distinct: ["from_agent_id"],
    take: 500,
  });
  for (const row of announced) {
    if (workspace?.agents.has(row.from_agent_id)) continue;
    const card = (fromRow(row).payload as { card?: AgentCard }).card;
    if (card) add(card, false);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
