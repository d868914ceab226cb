/**
 * What a principal may append (docs/identity.md, "Every write is attributed"; Clutch Protocol §6,
 * least privilege). Checked after validation and before anything is stored, for every message of
 * a batch; the first refusal refuses the whole batch and names the rule:
 *
 * 1. from_mismatch (403): `from.agent_id` must be the principal itself (`user:<id>` for a
 *    person, the key's agent for an agent key), and so must `meta.requested_by` when given (who
 *    started a run: lib/fold/run-requester.ts). Nobody posts as someone else.
 * 2. reserved_type (403): routing.*, policy.decision, approval.*, audit.change, chat.system,
 *    task.cancel and task.timeout are written by Clutch only.
 * 2a. reserved_meta (403): `meta.imported` and `meta.forked_from` mark copies Clutch made (an
 *    import, a fork); nobody else writes them.
 * 3. not_yourself (403): agent.register / heartbeat / update name the principal's own agent_id.
 * 4. not_your_task (403): task.accept / progress / result / error and model.usage only for a task assigned to the
 *    principal (or a new task it starts for itself); a repeated task.request only by the task's
 *    requester.
 * 5. unknown_thread (422): the channel must exist and be readable by the principal (a channel
 *    one may not see answers like one that does not exist).
 * 5a. unknown_run / unknown_task (422): the run a message names must be in the message's channel
 *    (a stored run's, or, for a new run, the channel of its first message in the batch), and so
 *    must its task and parent task (a parent task of the same run). A run or task of another
 *    channel answers like one that does not exist, so a private channel's ids do not let anyone
 *    write into it.
 * 5b. unknown_message (422), invalid_event (400), not_author (403), message_deleted (409), copy
 *    (409): a message action (chat.reaction, chat.edit, chat.delete, chat.pin) names a chat.message
 *    of its thread, in that message's run and task, to nobody, and only its author edits it, its
 *    author or an admin deletes it (server/events/message-actions.ts; docs/protocol.md "Message
 *    actions (Clutch extension)").
 * 6. signature_required / unknown_kid / signature_invalid (403): an agent whose AgentCard declares
 *    signing keys signs every envelope (server/auth/signatures.ts).
 * 7. display_name_mismatch (400): `from.display_name`, when given, is the server's name for the
 *    principal: a person's profile name, an agent's card `display.name` (the card registered, or
 *    the one the message itself registers), or the agent's own id without `agent:`. Nobody shows
 *    up under someone else's name.
 * 8. keys_locked (403): an agent.register / agent.update that changes or removes the signing keys
 *    of a card that declares some is an admin's alone (a signed message proves only the current
 *    key, which is what a key change must not rest on).
 * 9. name_taken (409): the names an agent.register / agent.update card brings (its handle when
 *    the agent is new, its `display.name` when it is new or changes) are nobody else's, person or
 *    agent (server/auth/names.ts, docs/identity.md "Names are unique"). Checked last, once every
 *    other rule passed.
 *
 * The system principal (Clutch and its workspace agents) may append anything.
 *
 * Rules 4, 5 and 5a read the channel, the runs and the tasks a batch names; with `deps.cache`
 * (server/auth/append-cache.ts) they are read from memory kept current by the event tail. A
 * refusal is never decided on the cache: when one of these rules refuses on cached reads, every
 * rule is checked again on the database's, and that answer (refusal or not) is the one given.
 */
import { isEvent, type AgentCard, type ClutchMessage } from "@/lib/protocol";
import type { Queries } from "../events/queries";
import { actionRefusal } from "../events/message-actions";
import { ClutchError, isClutchError } from "../errors";
import type { ChannelAccess } from "./access";
import type { AppendCache } from "./append-cache";
import type { Names } from "./names";
import { isAdmin, keysLocked, type Principal } from "./principal";
import { signatureProblem } from "./signatures";

const RESERVED = new Set(["routing.decision", "routing.failure", "policy.decision", "approval.requested", "approval.granted", "approval.rejected", "approval.expired", "audit.change", "chat.system", "task.cancel", "task.timeout"]);
/** Marks only Clutch writes: an imported copy (lib/protocol/imported.ts) and a fork's copy. */
const RESERVED_META = ["imported", "forked_from"] as const;
const LIFECYCLE = new Set(["task.accept", "task.progress", "task.result", "task.error", "model.usage"]);

/** The refusals whose rules read what the cache holds: on a cached read, the database decides them again. */
const FROM_READS = new Set(["unknown_thread", "unknown_run", "unknown_task", "not_your_task"]);

/** What rules 4, 5 and 5a read: ChannelAccess and Queries, or the cache in front of them. */
type Reads = Pick<ChannelAccess, "canRead"> & Pick<Queries, "appendScopes">;

const refuse = (code: string, message: string, index: number, status = 403) =>
  new ClutchError(code, message, status, [{ index, path: [], message }]);

/**
 * Throws ClutchError (see the module doc) when `p` may not append `messages`. `deps.names`: the
 * names rule (rule 9); unset, cards' names are not checked. `deps.cache`: rules 4, 5 and 5a read
 * through it (see the module doc); unset, they read the database.
 */
export async function authorizeAppend(
  p: Principal,
  messages: ClutchMessage[],
  deps: { channels: ChannelAccess; queries: Queries; cardOf: (agent_id: string) => AgentCard | undefined; names?: Names; cache?: AppendCache },
): Promise<void> {
  if (p.kind === "system") return;
  const database: Reads = { canRead: (q, t) => deps.channels.canRead(q, t), appendScopes: (r, t) => deps.queries.appendScopes(r, t) };
  if (!deps.cache) return check(p, messages, deps, database);
  try {
    await check(p, messages, deps, deps.cache);
  } catch (err) {
    if (!isClutchError(err) || !FROM_READS.has(err.code)) throw err;
    await check(p, messages, deps, database);
  }
}

async function check(
  p: Principal,
  messages: ClutchMessage[],
  deps: { queries: Queries; cardOf: (agent_id: string) => AgentCard | undefined; names?: Names },
  reads: Reads,
): Promise<void> {
  const who = p.kind === "person" ? `you (${p.agent_id})` : `this key (${p.agent_id})`;
  for (const [i, m] of messages.entries()) {
    if (m.from.agent_id !== p.agent_id) {
      throw refuse("from_mismatch", `message ${i}: from.agent_id is ${m.from.agent_id}, but ${who} may only send as ${p.agent_id}; nothing was stored`, i);
    }
    if (RESERVED.has(m.type)) throw refuse("reserved_type", `message ${i}: ${m.type} is written by Clutch itself, not by ${who}; nothing was stored`, i);
    const mark = RESERVED_META.find((k) => m.meta?.[k] !== undefined);
    if (mark) throw refuse("reserved_meta", `message ${i}: meta.${mark} is written by Clutch itself (imports and forks), not by ${who}; leave it out; nothing was stored`, i);
    const requestedBy = m.meta?.requested_by;
    if (requestedBy !== undefined && requestedBy !== p.agent_id) {
      throw refuse("from_mismatch", `message ${i}: meta.requested_by is ${String(requestedBy)}, but ${who} may only name ${p.agent_id} as the one who asked; nothing was stored`, i);
    }
    if (p.kind === "agent") {
      const bad = signatureProblem(m, deps.cardOf(p.agent_id));
      if (bad) throw refuse(bad.code, `message ${i}: ${bad.message}; nothing was stored`, i);
    }
    const newCard = isEvent(m, "agent.register", "agent.update") ? m.payload.card : undefined;
    // An agent speaks only for itself: the agent its heartbeat names, or its card's.
    if (isEvent(m, "agent.register", "agent.heartbeat", "agent.update")) {
      const named = m.payload.agent_id ?? newCard?.agent_id;
      if (named !== undefined && named !== p.agent_id) throw refuse("not_yourself", `message ${i}: ${m.type} names ${String(named)}; ${who} may only speak for ${p.agent_id}`, i);
    }
    if (newCard && keysLocked(p, deps.cardOf(p.agent_id)?.security?.keys, newCard.security?.keys)) {
      throw refuse("keys_locked", `message ${i}: ${p.agent_id} signs its messages; only an admin may change or remove its signing keys (POST /api/agents as an admin); nothing was stored`, i);
    }
    const shown = m.from.display_name;
    if (shown !== undefined) {
      const names = p.kind === "person" ? [p.name] : [deps.cardOf(p.agent_id)?.display.name, newCard?.display?.name, p.agent_id.replace(/^agent:/, "")];
      if (!names.includes(shown)) {
        const expected = names.filter((n): n is string => !!n);
        throw refuse("display_name_mismatch", `message ${i}: from.display_name is ${JSON.stringify(shown)}, but ${p.agent_id} is shown as ${expected.map((n) => JSON.stringify(n)).join(" or ")}; leave display_name out or send that name; nothing was stored`, i, 400);
      }
    }
  }
  const threads = [...new Set(messages.map((m) => m.thread_id))];
  for (const thread_id of threads) {
    if (!(await reads.canRead(p, thread_id))) {
      const i = messages.findIndex((m) => m.thread_id === thread_id);
      throw refuse("unknown_thread", `message ${i}: thread ${thread_id} does not exist`, i, 422);
    }
  }
  // Every scope a message names must be its channel's: the run, the task and the parent task.
  const taskIds = messages.flatMap((m) => (m.parent_task_id ? [m.task_id, m.parent_task_id] : [m.task_id]));
  const { runs: runThread, tasks } = await reads.appendScopes(messages.map((m) => m.run_id), taskIds);
  for (const [i, m] of messages.entries()) {
    const owner = runThread.get(m.run_id);
    if (owner === undefined) runThread.set(m.run_id, m.thread_id); // a new run belongs to the channel of its first message
    else if (owner !== m.thread_id) {
      throw refuse("unknown_run", `message ${i}: run ${m.run_id} does not exist in thread ${m.thread_id}; a run belongs to the channel it started in; nothing was stored`, i, 422);
    }
    for (const id of m.parent_task_id ? [m.task_id, m.parent_task_id] : [m.task_id]) {
      const t = tasks.get(id);
      if (t && (t.thread_id !== m.thread_id || (id === m.parent_task_id && t.run_id !== m.run_id))) {
        throw refuse("unknown_task", `message ${i}: task ${id} does not exist in ${id === m.parent_task_id ? `run ${m.run_id} of ` : ""}thread ${m.thread_id}; nothing was stored`, i, 422);
      }
    }
  }
  const action = await actionRefusal({ agent_id: p.agent_id, admin: isAdmin(p) }, messages, deps.queries);
  if (action) throw refuse(action.error.code, `message ${action.index}: ${action.error.message}; nothing was stored`, action.index, action.error.status);
  for (const [i, m] of messages.entries()) {
    if (!LIFECYCLE.has(m.type) && m.type !== "task.request") continue;
    const task = tasks.get(m.task_id);
    if (!task) continue; // a new task: it is the principal's own
    if (LIFECYCLE.has(m.type) && task.assignee !== p.agent_id) {
      throw refuse("not_your_task", `message ${i}: task ${m.task_id} is assigned to ${task.assignee ?? "nobody yet"}, not to ${p.agent_id}; only its assignee sends ${m.type}`, i);
    }
    if (m.type === "task.request" && task.requester !== p.agent_id) {
      throw refuse("not_your_task", `message ${i}: task ${m.task_id} was requested by ${task.requester ?? "someone else"}; only its requester sends it again`, i);
    }
  }
  if (!deps.names) return;
  for (const [i, m] of messages.entries()) {
    if (!isEvent(m, "agent.register", "agent.update")) continue;
    const card = m.payload.card;
    if (!card?.display?.name) continue;
    const agent_id = card.agent_id ?? p.agent_id;
    try {
      await deps.names.claimCard({ agent_id, display: card.display }, deps.cardOf(agent_id), [p.agent_id]);
    } catch (err) {
      if (isClutchError(err) && err.code === "name_taken") throw refuse("name_taken", `message ${i}: ${err.message}; nothing was stored`, i, 409);
      throw err;
    }
  }
}
