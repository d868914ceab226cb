/**
 * Agents joining and staying alive (Clutch Protocol §1.4, §2.4). External agents register and
 * update through `POST /api/agents`; every registration and heartbeat of theirs is an event in
 * the `_agents` system thread, folded by the registry (server/router/registry.ts).
 *
 *   registerAgent    an AgentCard → agent.register (new), agent.update (changed) or nothing
 *                    (the same card again)
 *   recordHeartbeat  agent.heartbeat for a registered external agent
 *   announceAgents   the same for the workspace's own agents, in the workspace's first channel
 *   startHeartbeats  agent.heartbeat for each workspace agent every interval, while it runs
 *
 * Errors are ClutchErrors a person can act on: invalid_card (400), unknown_agent (404),
 * workspace_agent (409: the workspace's own manifests define it), name_taken (409: the card's
 * name or the agent's handle is a person's or another agent's, server/auth/names.ts).
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { AgentCardSchema, makeMessage, type AgentCard } from "@/lib/protocol";
import type { Names } from "../auth/names";
import { heartbeatSignatureProblem } from "../auth/signatures";
import { ClutchError } from "../errors";
import type { EventStore } from "../events/store";
import { conversationIds } from "../events/threads";
import { log } from "../log";
import type { AgentRegistry } from "./registry";

export const REGISTRY_THREAD = "_agents";

const RegistrationSchema = AgentCardSchema.extend({
  agent_id: z.string().regex(/^agent:[A-Za-z0-9][A-Za-z0-9_.-]*$/, "agent_id must look like agent:<name> (letters, digits, _ . -)"),
});

const HeartbeatBodySchema = z.strictObject({
  status: z.enum(["online", "busy", "draining"]).optional(),
  active_tasks: z.number().int().nonnegative().optional(),
  // A signed heartbeat (docs/identity.md "Signed messages"): the agent it is for, when, and the signature.
  agent_id: z.string().min(1).optional(),
  ts: z.string().min(1).max(40).optional(),
  security: z.looseObject({ auth: z.looseObject({ scheme: z.string().optional(), alg: z.string().optional(), kid: z.string(), sig: z.string() }) }).optional(),
});

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "card"}: ${i.message}`).join("; ");
}

async function registryThread(store: EventStore) {
  const thread_id = await store.systemThread(REGISTRY_THREAD, "Agent registrations and heartbeats");
  return { thread_id, ...conversationIds(thread_id) };
}

/**
 * Register or update an external agent (`input`: its AgentCard). Returns its card and what
 * happened. With `opts.names` (the API's door, POST /api/agents), a new agent's handle and a new
 * or changed `display.name` must be nobody else's (server/auth/names.ts; keeping its own name is
 * fine). Throws ClutchError invalid_card (400), workspace_agent (409), name_taken (409); nothing is
 * stored then.
 */
export async function registerAgent(store: EventStore, registry: AgentRegistry, input: unknown, opts: { names?: Names } = {}): Promise<{ card: AgentCard; result: "registered" | "updated" | "unchanged" }> {
  const r = RegistrationSchema.safeParse(input);
  if (!r.success) throw new ClutchError("invalid_card", `Not a valid AgentCard: ${issues(r.error)}`, 400, r.error.issues);
  const card = r.data as AgentCard;
  const known = registry.get(card.agent_id);
  if (known?.source === "workspace") {
    throw new ClutchError("workspace_agent", `${card.agent_id} is defined by the workspace's CAP manifests; change its manifest instead`, 409);
  }
  if (known && isDeepStrictEqual(known.card, card)) return { card, result: "unchanged" };
  // Its names are held for it until the registry has its card.
  const release = opts.names ? await opts.names.claimCard(card, known?.card) : () => {};
  try {
    const stored = await store.append(
      makeMessage({
        type: known ? "agent.update" : "agent.register",
        ...(await registryThread(store)),
        from: { agent_id: card.agent_id, role: "worker", display_name: card.display.name },
        to: [],
        payload: { card },
      }),
    );
    for (const ev of stored.events) registry.apply(ev); // the answer reflects it even before the tail delivers it
  } finally {
    release();
  }
  return { card, result: known ? "updated" : "registered" };
}

/** Record a heartbeat of a registered external agent. */
/**
 * Record an external agent's heartbeat (`input`: the REST body, HeartbeatBodySchema). With
 * `opts.signed` (the agent's own key sent it), an agent whose card declares signing keys must
 * sign the body (server/auth/signatures.ts `heartbeatSignatureProblem`); the stored heartbeat
 * then carries `signed: { kid, ts }`. Throws ClutchError unknown_agent (404), workspace_agent
 * (409), invalid_heartbeat (400), signature_required / unknown_kid / signature_invalid (403).
 */
export async function recordHeartbeat(store: EventStore, registry: AgentRegistry, agent_id: string, input: unknown, opts: { signed?: boolean; now?: Date } = {}): Promise<void> {
  const known = registry.get(agent_id);
  if (!known) throw new ClutchError("unknown_agent", `${agent_id} is not registered: POST its AgentCard to /api/agents first`, 404);
  if (known.source === "workspace") throw new ClutchError("workspace_agent", `${agent_id} runs in this server, which sends its heartbeats`, 409);
  const r = HeartbeatBodySchema.safeParse(input ?? {});
  if (!r.success) throw new ClutchError("invalid_heartbeat", `Not a valid heartbeat: ${issues(r.error)}`, 400, r.error.issues);
  const { agent_id: _named, ts, security, ...beat } = r.data;
  let signed: { kid: string; ts: string } | undefined;
  if (opts.signed && known.card.security?.keys?.length) {
    // `signed` is what Clutch adds to a signed heartbeat it stores (below); the schema leaves it open.
    const lastSigned = (await store.queries.lastHeartbeat(agent_id))?.payload.signed;
    const lastSignedTs = lastSigned && typeof lastSigned === "object" && "ts" in lastSigned && typeof lastSigned.ts === "string" ? lastSigned.ts : null;
    const bad = heartbeatSignatureProblem(r.data, known.card, { agent_id, lastSignedTs, ...(opts.now ? { now: opts.now } : {}) });
    if (bad) throw new ClutchError(bad.code, `${bad.message}; nothing was stored`, 403);
    signed = { kid: security!.auth.kid, ts: ts! };
  }
  const stored = await store.append(
    makeMessage({
      type: "agent.heartbeat",
      ...(await registryThread(store)),
      from: { agent_id, role: "worker", display_name: known.card.display.name },
      to: [],
      payload: { agent_id, ...beat, ...(signed ? { signed } : {}) },
    }),
  );
  for (const ev of stored.events) registry.apply(ev);
}

/**
 * Announce each workspace agent in `thread_id` (the workspace's first channel) as itself:
 * agent.register when it never announced a card, agent.update when its card differs from the
 * one it announced last, nothing when the card is the same.
 */
export async function announceAgents(store: EventStore, agents: Iterable<{ agent_id: string; card: AgentCard }>, thread_id: string): Promise<void> {
  for (const agent of agents) {
    const lastCard = await store.queries.lastAgentCard(agent.agent_id);
    if (lastCard && isDeepStrictEqual(lastCard, agent.card)) continue;
    await store.append(
      makeMessage({
        type: lastCard ? "agent.update" : "agent.register",
        thread_id,
        ...conversationIds(thread_id),
        from: { agent_id: agent.agent_id, role: "worker", display_name: agent.card.display.name },
        to: [],
        payload: { card: agent.card },
      }),
    );
  }
}

/** One agent.heartbeat for each of `agents` (busy when `active` > 0), stored in one append. */
export async function sendHeartbeats(store: EventStore, agents: { agent_id: string; name: string; active: number }[]): Promise<void> {
  if (!agents.length) return;
  const at = await registryThread(store);
  await store.append(
    agents.map((a) =>
      makeMessage({
        type: "agent.heartbeat",
        ...at,
        from: { agent_id: a.agent_id, role: "worker", display_name: a.name },
        to: [],
        payload: { agent_id: a.agent_id, status: a.active > 0 ? "busy" : "online", active_tasks: a.active },
      }),
    ),
  );
}

/**
 * Send a heartbeat for each of `agents` now (resolves once it is stored) and every
 * `interval_sec` seconds. `load(id)` gives the tasks it is working on. Returns the stop function.
 * With no agents nothing is sent.
 */
export async function startHeartbeats(
  store: EventStore,
  agents: { agent_id: string; name: string }[],
  interval_sec: number,
  load: (agent_id: string) => number,
): Promise<() => void> {
  if (!agents.length) return () => {};
  let stopped = false;
  const beat = async () => {
    if (!stopped) await sendHeartbeats(store, agents.map((a) => ({ ...a, active: load(a.agent_id) })));
  };
  const run = () => void beat().catch((err) => log.warn({ err }, "heartbeat failed"));
  await beat();
  const timer = setInterval(run, interval_sec * 1000);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
