/**
 * GET /api/agents: { agents: AgentSummary[] }, every registered agent with its AgentCard,
 * presence from heartbeats, load and recent record (server/router/directory.ts), and
 * `disabled: true` for those an admin disabled. `recent_tasks` holds only tasks of channels the
 * caller may read; the load and record figures are workspace-wide (docs/identity.md "The agent
 * directory").
 * POST /api/agents: an AgentCard (Clutch Protocol §1.4) registers an external agent (201,
 * agent.register) or updates it (200, agent.update; the same card again changes nothing).
 * Body { agent } with its AgentSummary. 400 invalid_card with the fields at fault; 409
 * workspace_agent when the workspace's own manifests define that agent. An agent key registers
 * only its own agent_id (403 not_yourself otherwise); an admin may register any. Once a card
 * declares signing keys (`security.keys`), only an admin may change them (403 keys_locked). A new
 * agent's handle and a new or changed `display.name` must be nobody else's, person or agent (409
 * name_taken saying whose it is: docs/identity.md "Names are unique").
 * The agent's `recent_tasks` are those of channels the caller may read, as for GET.
 */
import { registerAgent } from "@/server/router/registration";
import { listAgents } from "@/server/router/directory";
import { getClutch } from "@/server/instance";
import { ClutchError } from "@/server/errors";
import { isAdmin, keysLocked } from "@/server/auth/principal";
import { json, readJson } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async ({ principal }) => {
  const rt = getClutch();
  const [disabled, readable] = await Promise.all([rt.identity.disabledAgents().then((ids) => new Set(ids)), rt.identity.channels.readable(principal)]);
  const agents = await listAgents(rt.store.queries, rt.registry, readable);
  return json({ agents: agents.map((a) => (disabled.has(a.agent_id) ? { ...a, disabled: true } : a)) });
});

export const POST = route({ auth: "signed-in" }, async ({ req, principal }) => {
  const rt = getClutch();
  const body = await readJson(req);
  const named = body && typeof body === "object" ? (body as { agent_id?: unknown }).agent_id : undefined;
  if (!isAdmin(principal) && named !== principal.agent_id) {
    throw new ClutchError("not_yourself", `this key speaks for ${principal.agent_id}; it may register only that agent's card, not ${String(named)}`, 403);
  }
  if (keysLocked(principal, rt.registry.get(String(named))?.card.security?.keys, (body as { security?: { keys?: unknown } } | null)?.security?.keys)) {
    throw new ClutchError("keys_locked", `${String(named)} signs its messages: only an admin may change or remove its signing keys`, 403);
  }
  const { card, result } = await registerAgent(rt.store, rt.registry, body, { names: rt.identity.names });
  const readable = await rt.identity.channels.readable(principal);
  const agent = (await listAgents(rt.store.queries, rt.registry, readable)).find((a) => a.agent_id === card.agent_id) ?? null;
  return json({ agent, result }, result === "registered" ? 201 : 200);
});
