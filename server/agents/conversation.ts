/**
 * Rebuilding an agent instance's conversation from the log: task state is a projection of the
 * log, so a restarted server carries on each run from where its events say it is
 * (docs/architecture.md, "From request to socket"). Pure: events in, model messages out.
 *
 * Every event the runner appends for an agent's action carries `meta.agent` (AgentStepMeta):
 * the instance, the model step it belongs to, and for a tool call its id, name and input; the
 * event that completes a call carries the `output` the model sees. So the assistant's tool
 * calls and their results are read back from the log, and events addressed to the agent
 * (its task.request, messages to it, its subtasks' outcomes) become user messages.
 */
import type { ModelMessage, SystemModelMessage } from "ai";
import type { StoredEvent } from "@/lib/protocol";
import type { SystemMeta } from "./models/system-meta";
import { conversationHistory, followsOf, renderHistory } from "@/lib/fold/follow-up";

/** `meta.agent` on an event the runner appended for an agent instance. */
export interface AgentStepMeta {
  instance_id: string;
  /** 1-based model step of the instance. */
  step: number;
  /** Text the model produced in this step (kept on the step's first event). */
  text?: string;
  call_id?: string;
  tool?: string;
  input?: unknown;
  /** What the model is told the call returned. */
  output?: unknown;
  /** The newest seq of the log when the model was asked for this step: what it could see. */
  seen_seq?: number;
  /** On a turn end: what Clutch told the model next (it ended without a result it may not leave out). */
  nudge?: string;
}

export function stepMetaOf(ev: StoredEvent): AgentStepMeta | undefined {
  const m = ev.meta?.agent as AgentStepMeta | undefined;
  return m && typeof m.instance_id === "string" && typeof m.step === "number" ? m : undefined;
}

export interface PendingCall {
  step: number;
  call_id: string;
  tool: string;
  input: unknown;
}

export interface Conversation {
  /** The system message (manifest prompt + rules), with providerOptions.clutch = SystemMeta. */
  instructions: SystemModelMessage;
  /** User, assistant and tool messages in order. */
  messages: ModelMessage[];
  /** Model steps recorded so far. */
  steps: number;
  /** Tool calls recorded without an output (the process stopped between call and result). */
  pending: PendingCall[];
  /** True when the last thing in the conversation is the agent's own turn end (nothing new). */
  idle: boolean;
  /** True once the agent submitted its result. */
  submitted: boolean;
}

export interface AgentTaskRef {
  agent_id: string;
  instance_id: string;
  task_id: string;
}

const OUTCOMES = new Set(["task.result", "task.error", "task.timeout", "task.cancel"]);

/** The parent of every task requested in `events`. */
export function parentsOf(events: readonly StoredEvent[]): Map<string, string | null> {
  const parents = new Map<string, string | null>();
  for (const ev of events) if (ev.type === "task.request" && !parents.has(ev.task_id)) parents.set(ev.task_id, ev.parent_task_id ?? null);
  return parents;
}

/** True when `ev` is addressed to the agent's task (see module doc). */
export function isInbound(ev: StoredEvent, ref: AgentTaskRef, parents: Map<string, string | null>): boolean {
  if (stepMetaOf(ev)?.instance_id === ref.instance_id) return false;
  // A routed request is in the log twice (to the router, then to the agent): the agent reads the second.
  if (ev.type === "task.request") return ev.task_id === ref.task_id && ev.to.some((t) => t.agent_id === ref.agent_id);
  if (ev.type === "task.cancel" && ev.task_id === ref.task_id) return true;
  const inTask = ev.task_id === ref.task_id || parents.get(ev.task_id) === ref.task_id;
  if (ev.type === "chat.message") {
    // The person's message that opened a follow-up reaches the agent as its task.request.
    if (ev.task_id === ref.task_id && typeof ev.meta?.follows === "string") return false;
    return inTask && ev.from.agent_id !== ref.agent_id && ev.to.some((t) => t.agent_id === ref.agent_id);
  }
  if (OUTCOMES.has(ev.type)) return ev.task_id !== ref.task_id && parents.get(ev.task_id) === ref.task_id;
  return false;
}

const json = (v: unknown) => "```json\n" + JSON.stringify(v, null, 2) + "\n```";

/** The readable text of an inbound event (what a real model reads). */
export function renderInbound(ev: StoredEvent): string {
  const p = ev.payload;
  const who = ev.from.display_name ? `${ev.from.display_name} (${ev.from.agent_id})` : ev.from.agent_id;
  switch (ev.type) {
    case "task.request": {
      if ((ev.attempt ?? 1) > 1) {
        const by = typeof ev.meta?.retried_by === "string" ? ` (${ev.meta.retried_by} asked for it)` : "";
        return `Task ${ev.task_id} again, attempt ${ev.attempt}${by}: it had ended without a result. Carry on from where it stopped and finish it with submit_result. Questions you asked that had no answer were closed when it stopped: ask again if you still need the answer.`;
      }
      const follows = followsOf(ev);
      const asker = (p.input as { from?: { agent_id?: string; display_name?: string } } | undefined)?.from;
      const person = asker?.agent_id ? (asker.display_name ? `${asker.display_name} (${asker.agent_id})` : asker.agent_id) : who;
      const parts = [follows ? `Follow-up task ${ev.task_id}: ${person} replied to ${follows} in this thread and asks you to carry on.` : `New task ${ev.task_id} from ${who}${p.title ? `: ${p.title}` : ""}`];
      if (p.instructions) parts.push(String(p.instructions));
      if (p.context_summary) parts.push(`Context: ${p.context_summary}`);
      if (p.input !== undefined) parts.push(`Input:\n${json(p.input)}`);
      if (ev.attachments?.length) parts.push(`Attachments:\n${json(ev.attachments)}`);
      return parts.join("\n\n");
    }
    case "chat.message": {
      const head = [`Message ${ev.id} from ${who}`];
      if (p.reply_to) head.push(`in reply to ${p.reply_to}`);
      if (p.inquiry) head.push("(oversight inquiry)");
      const tail = p.expects_reply ? `\n\n(They expect an answer: use the reply tool with reply_to "${ev.id}".)` : "";
      return `${head.join(" ")}:\n\n${String(p.text ?? "")}${tail}`;
    }
    case "task.result":
      return `Subtask ${ev.task_id} finished (result from ${who}${ev.meta?.approved_by ? `, approved by ${ev.meta.approved_by}` : ""}):\n${json(p)}`;
    case "task.error":
      return `Subtask ${ev.task_id} failed: ${p.code}: ${p.message}`;
    case "task.timeout":
      return `Task ${ev.task_id} timed out.`;
    case "task.cancel":
      return `Task ${ev.task_id} was cancelled${p.reason ? `: ${p.reason}` : ""}.`;
    default:
      return `${ev.type} from ${who}:\n${json(p)}`;
  }
}

interface OpenStep {
  step: number;
  text?: string;
  nudge?: string;
  calls: { call_id: string; tool: string; input: unknown }[];
  outputs: Map<string, unknown>;
}

/**
 * The conversation of `ref` from the run's events (seq order). `system` is the system prompt;
 * `meta` is attached to it as providerOptions.clutch.
 */
export function buildConversation(events: readonly StoredEvent[], ref: AgentTaskRef, system: string, meta: SystemMeta): Conversation {
  const parents = parentsOf(events);
  const instructions: SystemModelMessage = { role: "system", content: system, providerOptions: { clutch: { ...meta } } };
  const messages: ModelMessage[] = [];
  const pending: PendingCall[] = [];
  let steps = 0;
  let open: OpenStep | null = null;
  let held: StoredEvent[] = [];
  let submitted = false;
  let lastWasTurnEnd = false;

  // Where each own step starts and what its model had seen: an inbound event stored after the
  // model was asked (seq > seen_seq) but before the step's events is shown after that step,
  // so the model is asked again with it instead of the turn counting as idle.
  const stepStarts: { seq: number; seen: number | undefined; step: number }[] = [];
  for (const ev of events) {
    const m = stepMetaOf(ev);
    if (m?.instance_id === ref.instance_id && !stepStarts.some((s) => s.step === m.step)) stepStarts.push({ seq: ev.seq, seen: m.seen_seq, step: m.step });
  }
  const deferred = new Map<number, StoredEvent[]>();
  const deferTo = (ev: StoredEvent): number | undefined => {
    const next = stepStarts.find((s) => s.seq > ev.seq);
    return next && next.seen !== undefined && next.seen < ev.seq ? next.step : undefined;
  };

  const pushInbound = (ev: StoredEvent) => {
    messages.push({
      role: "user",
      content: [{ type: "text", text: renderInbound(ev), providerOptions: { clutch: { event: ev as never } } }],
    });
    lastWasTurnEnd = false;
  };
  const close = () => {
    if (!open) return;
    const s = open;
    open = null;
    const content: Extract<ModelMessage, { role: "assistant" }>["content"] = [];
    if (s.text) content.push({ type: "text", text: s.text });
    for (const c of s.calls) content.push({ type: "tool-call", toolCallId: c.call_id, toolName: c.tool, input: c.input });
    if (content.length) messages.push({ role: "assistant", content });
    const done = s.calls.filter((c) => s.outputs.has(c.call_id));
    if (done.length) {
      messages.push({
        role: "tool",
        content: done.map((c) => {
          const out = s.outputs.get(c.call_id);
          return {
            type: "tool-result" as const,
            toolCallId: c.call_id,
            toolName: c.tool,
            output: typeof out === "string" ? { type: "text" as const, value: out } : { type: "json" as const, value: (out ?? null) as never },
          };
        }),
      });
    }
    for (const c of s.calls) if (!s.outputs.has(c.call_id)) pending.push({ step: s.step, ...c });
    lastWasTurnEnd = s.calls.length === 0;
    if (s.nudge) {
      messages.push({ role: "user", content: [{ type: "text", text: s.nudge }] });
      lastWasTurnEnd = false;
    }
    for (const ev of held) pushInbound(ev);
    held = [];
    for (const ev of deferred.get(s.step) ?? []) pushInbound(ev);
    deferred.delete(s.step);
  };

  // A follow-up (meta.follows) starts with the conversation so far (lib/fold/follow-up.ts).
  const request = events.find((e) => e.type === "task.request" && e.task_id === ref.task_id && followsOf(e));
  if (request) {
    const history = conversationHistory(events, ref.task_id);
    if (history.length) messages.push({ role: "user", content: [{ type: "text", text: renderHistory(history), providerOptions: { clutch: { history: history as never } } }] });
  }

  for (const ev of events) {
    const m = stepMetaOf(ev);
    if (m?.instance_id === ref.instance_id) {
      if (!open || open.step !== m.step) {
        close();
        open = { step: m.step, calls: [], outputs: new Map() };
        steps = Math.max(steps, m.step);
      }
      if (m.text) open.text = m.text;
      if (m.nudge) open.nudge = m.nudge;
      if (m.call_id && m.tool && !open.calls.some((c) => c.call_id === m.call_id)) {
        open.calls.push({ call_id: m.call_id, tool: m.tool, input: m.input ?? {} });
      }
      if (m.call_id && m.output !== undefined) open.outputs.set(m.call_id, m.output);
      if (m.tool === "submit_result" && m.output !== undefined) submitted = true;
      continue;
    }
    if (!isInbound(ev, ref, parents)) continue;
    const later = deferTo(ev);
    if (later !== undefined && later !== open?.step) {
      deferred.set(later, [...(deferred.get(later) ?? []), ev]);
      continue;
    }
    if (open && open.calls.some((c) => !open!.outputs.has(c.call_id))) held.push(ev);
    else {
      close();
      pushInbound(ev);
    }
  }
  close();
  return { instructions, messages, steps, pending, idle: lastWasTurnEnd, submitted };
}
