/**
 * Runs started from outside the app (docs/adapters.md): an A2A client's message (A2A server) or
 * an MCP client's `agents/run` (ACP). Both open a run in a channel, where people watch it live
 * like any other with the caller as its requester, and follow it until its root task ends or a
 * question waits for the caller.
 *
 *   startRemoteRun  the root task.request from the caller: to a named agent (with its
 *                   routing.decision, mode fixed), routed by the capabilities it @mentions, or to
 *                   the channel's entry agent. Idempotent per caller and `key`.
 *   followRun       the run's events after a seq, backlog then live, handed to callbacks in seq
 *                   order and once each, until one of them says the follow is over.
 *   remoteAnswer    the caller's answer to a question an agent of the run asked the people.
 */
import { isEvent, makeMessage, newId, type ClutchMessage, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { parseMentions } from "@/lib/mentions";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import type { AgentRegistry } from "../router/registry";
import type { Workspace } from "../workspace/workspace";
import type { Principal } from "../auth/principal";
import { fixedRouting, ORCHESTRATOR } from "../router/router";
import type { TraceMeta } from "../telemetry/meta";

/** Who the caller is in Clutch's events: a person (role human) or an agent. */
export function requester(p: Principal): { agent_id: string; role: "human" | "worker"; display_name?: string } {
  return p.kind === "person" ? { agent_id: p.agent_id, role: "human", display_name: p.name } : { agent_id: p.agent_id, role: "worker" };
}

/**
 * The caller `p`'s answer `text` to `question` (an agent's chat.message that expects a reply,
 * docs/channels.md): a chat.message from the caller to the question's sender, replying to it, in
 * the question's channel, run and task, as a person's reply in the channel would be. Every door that
 * runs Clutch for a remote caller (A2A, ACP, AG-UI) answers with it; `idempotency_key` makes a
 * repeat of the same call store nothing new.
 */
export function remoteAnswer(p: Principal, question: StoredEvent, text: string, idempotency_key?: string): ClutchMessage {
  return makeMessage({
    type: "chat.message",
    thread_id: question.thread_id,
    run_id: question.run_id,
    task_id: question.task_id,
    parent_task_id: question.parent_task_id ?? null,
    from: requester(p),
    to: [question.from],
    payload: { text, reply_to: question.id },
    ...(idempotency_key ? { idempotency_key } : {}),
  });
}

/** A run started from outside: its ids, and the seq just before its first event (to follow it from). */
export interface RemoteRun {
  run_id: string;
  task_id: string;
  thread_id: string;
  after: number;
}

/**
 * Open a run in `channel` for `p`'s request `text` (see the module doc). `target`: the agent it
 * goes to (null: an @mentioned agent, the @mentioned capabilities routed, or the entry agent).
 * `via` names the door in the request (`a2a`, `acp`, `ag-ui`); `key` makes a repeat of the same call
 * store nothing new. `input` is kept in the request's payload; `trace` (the caller's
 * `traceparent`, server/telemetry) goes in its `meta.trace`.
 */
export async function startRemoteRun(
  clutch: { store: EventStore; registry: AgentRegistry; workspace: Workspace },
  req: { principal: Principal; channel: { thread_id: string; name: string; entry_agent: string | null }; target: string | null; text: string; via: string; key: string; input?: Record<string, unknown>; trace?: TraceMeta },
): Promise<RemoteRun> {
  const { store, registry, workspace } = clutch;
  const { principal, channel, target, text, via } = req;
  const run_id = newId("run");
  const task_id = newId("task");
  const at = { thread_id: channel.thread_id, run_id, task_id, parent_task_id: null };
  const from = requester(principal);
  const who = from.display_name ?? from.agent_id;
  const firstLine = text.split("\n")[0]!.replace(/^(\s*@\S+)+\s*/, "").trim() || text.split("\n")[0]!;
  const payload = {
    title: firstLine.length > 120 ? `${firstLine.slice(0, 119)}…` : firstLine,
    instructions: text,
    context_summary: `Request from ${who} over ${via.toUpperCase()} in #${channel.name}: ${text}`,
    input: { ...req.input, from, via },
  };
  const mentions = parseMentions(text, (id) => workspace.agents.has(id) || registry.has(id));
  const selected = target ?? mentions.agents[0] ?? (mentions.capabilities.length ? null : channel.entry_agent);
  const key = `${via}:${principal.agent_id}:${req.key}`;
  // The caller started the run (lib/fold/run-requester.ts): kept on the root request, so forks keep it.
  // The caller's W3C trace context (server/telemetry), so the run's trace goes under the caller's.
  const meta = { requested_by: principal.agent_id, ...(req.trace ? { trace: req.trace } : {}) };
  const events = selected
    ? [
        fixedRouting(at, selected, { reason: `${who} asked ${selected} over ${via.toUpperCase()}` }, `${key}:routing`),
        makeMessage({ type: "task.request", ...at, from: ORCHESTRATOR, to: [{ agent_id: selected }], payload, meta, idempotency_key: key }),
      ]
    : [makeMessage({ type: "task.request", ...at, from, to: [ORCHESTRATOR], requires: mentions.capabilities, payload, meta, idempotency_key: key })];
  const { events: stored } = await store.append(events);
  const request = stored.at(-1)!;
  return { run_id: request.run_id, task_id: request.task_id, thread_id: request.thread_id, after: request.seq - (selected ? 2 : 1) };
}

/** What following a run hands on. Each returns true when the follow is over. */
export interface RunFollower {
  /** A task.progress with a message, of any task of the run. */
  progress?(ev: StoredEventOf<"task.progress">): void;
  /** Any event of the run, before the more specific callbacks (for streams that show every step). */
  event?(ev: StoredEvent): void;
  /** A question to people in the run (a chat.message expecting a reply, to `user`). */
  question?(ev: StoredEventOf<"chat.message">): boolean;
  /** The root task's result, error, timeout or cancel: the follow is over. */
  ended(ev: StoredEventOf<"task.result" | "task.error" | "task.timeout" | "task.cancel">): void;
  /** Reading the run failed: the follow is over. */
  failed(err: unknown): void;
}

/**
 * Follow run `run.run_id` after seq `after` (see the module doc). Resolves when the root task
 * ends, a `question` callback returns true, the run cannot be read, or `signal` aborts.
 */
export function followRun(clutch: { store: EventStore; tail: EventTail }, run: { run_id: string; task_id: string }, after: number, on: RunFollower, signal?: AbortSignal): Promise<void> {
  const { store, tail } = clutch;
  return new Promise<void>((resolve) => {
    let last = after;
    let done = false;
    const queue: StoredEvent[] = [];
    let draining = false;
    const finish = () => {
      if (done) return;
      done = true;
      unsubscribe();
      signal?.removeEventListener("abort", finish);
      resolve();
    };
    const handle = (ev: StoredEvent): void => {
      if (done || ev.seq <= last || ev.run_id !== run.run_id) return;
      last = ev.seq;
      on.event?.(ev);
      const root = ev.task_id === run.task_id;
      if (isEvent(ev, "task.progress") && ev.payload.message) on.progress?.(ev);
      else if (isEvent(ev, "chat.message") && ev.payload.expects_reply && ev.to.some((t) => t.agent_id === "user")) {
        if (on.question?.(ev)) finish();
      } else if (root && isEvent(ev, "task.result", "task.error", "task.timeout", "task.cancel")) {
        on.ended(ev);
        finish();
      }
    };
    const drain = () => {
      for (const ev of queue.splice(0)) handle(ev);
    };
    // Live events queue up while the backlog is read, so nothing falls between the two.
    const unsubscribe = tail.subscribe((ev) => {
      if (ev.run_id !== run.run_id) return;
      queue.push(ev);
      if (!draining) drain();
    });
    if (signal?.aborted) return finish();
    signal?.addEventListener("abort", finish);
    draining = true;
    store
      .readAll({ run_id: run.run_id }, after)
      .then((backlog) => {
        for (const ev of backlog) handle(ev);
        draining = false;
        drain();
      })
      .catch((err) => {
        if (done) return;
        on.failed(err);
        finish();
      });
  });
}
