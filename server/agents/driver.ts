/**
 * Runtime drivers (Clutch Protocol §7, docs/adapters.md): what does the work of a workspace agent
 * whose manifest names a `runtime` other than `model`. The runner (runner.ts) schedules every
 * agent alike: it checks the task is the agent's and open, records task.accept, and then hands
 * the wake to the driver of the agent's runtime, which turns the outside agent's stream into
 * Clutch events (progress, questions, subtasks, the result or error), addressed as the runner's
 * own are. A driver keeps nothing only in memory that it cannot find again in the log: after a
 * restart a wake carries the task on from its events.
 */
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { Runtime } from "@/lib/protocol/cap";
import type { EventStore } from "../events/store";
import type { Gate, GateResult } from "../policy/approvals";
import type { Workspace } from "../workspace/workspace";
import type { TaskContext } from "./task-context";
import type { StreamHub } from "../streams/hub";

/** One wake of a task handed to a driver. */
export interface DriverWake {
  /** The task: ids, the agent, its envelope builder. */
  ctx: TaskContext;
  /** The current attempt's task.request, and its attempt number (1 for the first). */
  request: StoredEventOf<"task.request">;
  attempt: number;
  /** The run's events so far, in seq order (re-read on each call). */
  events(): Promise<readonly StoredEvent[]>;
  /** Aborted when the task is cancelled or times out, or Clutch stops: stop at once. */
  signal: AbortSignal;
  store: EventStore;
  /** Calls tried in all, and the wait before the second, ms (workspace lifecycle settings). */
  retry: { attempts: number; delay_ms: number };
  /** Who the task's questions go to (askerOf). */
  asker: { agent_id: string; role?: "human" };
  /** The policy gate (server/policy/approvals.ts), for approvals the outside agent asks for; absent: everything goes. */
  gate?: (g: Gate) => Promise<GateResult>;
  /**
   * Where the outside agent's text streams as it is written (server/streams/hub.ts): open a
   * stream for a message, write to it, and end it once its event is stored (its `meta.stream_id`
   * names the stream); absent: nothing streams.
   */
  streams?: StreamHub;
}

/** The driver of one runtime kind. */
export interface RuntimeDriver {
  /** Carry the task on from what the log says until it ends or waits (an answer, a subtask). */
  wake(w: DriverWake): Promise<void>;
}

export type DriverKind = Exclude<Runtime["kind"], "model">;
export type Drivers = Partial<Record<DriverKind, RuntimeDriver>>;

/** `text` with each `${NAME}` replaced by the environment variable (empty when unset). */
export function expandEnv(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? "");
}

/** Header values with their `${NAME}`s expanded (expandEnv). */
export function expandHeaders(headers: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, expandEnv(v, env)]));
}

/** Whether an agent of `workspace` answers questions itself: one on the model loop (askerOf). */
export function answersQuestions(workspace: Workspace): (agent_id: string) => boolean {
  return (agent_id) => workspace.agents.get(agent_id)?.manifest.runtime.kind === "model";
}

/**
 * Who a question of the task goes to: the agent that delegated it when `answers(agent)` says it
 * can answer questions (an agent on the model loop), else the people in the channel (a task a
 * person's request started, or one a graph delegated).
 */
export function askerOf(request: StoredEventOf<"task.request">, answers: (agent_id: string) => boolean): { agent_id: string; role?: "human" } {
  const from = request.from.agent_id;
  return answers(from) ? { agent_id: from } : { agent_id: "user", role: "human" };
}

/** The answer to the question `question_id` (the chat.message replying to it), or null. */
export function answerTo(events: readonly StoredEvent[], question_id: string): StoredEventOf<"chat.message"> | null {
  for (const e of events) {
    if (isEvent(e, "chat.message") && e.payload.reply_to === question_id) return e;
  }
  return null;
}

/** The summary of a plain-text answer: its first paragraph without a heading mark, at most 300 characters. */
export function summarize(text: string): string {
  const first = text.split(/\n\s*\n/)[0]!.replace(/^#+\s*/, "").trim();
  return first.length > 300 ? `${first.slice(0, 299)}…` : first;
}

/** The text a task request becomes for an outside agent: its instructions without the @mentions that addressed it, and its context. */
export function requestText(request: StoredEventOf<"task.request">): string {
  const p = request.payload;
  const instructions = (p.instructions ?? p.title ?? "").replace(/^(\s*@\S+)+\s*/, "");
  const parts = [instructions, p.context_summary && !p.context_summary.includes(instructions) ? `Context: ${p.context_summary}` : ""];
  return parts.filter(Boolean).join("\n\n");
}
