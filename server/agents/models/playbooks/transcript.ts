/**
 * What the built-in model reads from a prompt (server/agents/contract.ts "Prompt"): the agent's
 * SystemMeta, the inbound events (user messages carrying providerOptions.clutch.event), its own
 * earlier tool calls (assistant messages) and their outcomes (tool messages), in prompt order.
 *
 * Playbooks are small state machines over this view: "has X been called, did it succeed, has
 * the answer to my question arrived, is there a question I have not answered yet".
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { SystemMeta } from "../system-meta";
import { bareId, isRecord, outcomeOf, sameAgent, str, type ToolOutcome } from "./values";
import { followsOf, type HistoryEntry } from "@/lib/fold/follow-up";

/** An inbound user message: the event it carries (when the runner attached one) and its text. */
export interface InboundEntry {
  kind: "inbound";
  index: number;
  event?: StoredEvent;
  text: string;
}

/** One of the agent's own earlier tool calls, with its outcome once the prompt holds it. */
export interface CallEntry {
  kind: "call";
  index: number;
  id: string;
  name: string;
  input: Record<string, unknown>;
  outcome?: ToolOutcome;
}

/** Text the agent said earlier (a turn end, or words next to tool calls). */
export interface TextEntry {
  kind: "text";
  index: number;
  text: string;
}

export type Entry = InboundEntry | CallEntry | TextEntry;

/** Where one step of a playbook stands. */
export type Attempt =
  | { status: "todo" }
  | { status: "pending"; call: CallEntry }
  | { status: "retry"; call: CallEntry; error: string }
  | { status: "failed"; call: CallEntry; error: string }
  | { status: "ok"; call: CallEntry; value: unknown };

/** How many times a playbook sends a call that failed with a retryable error. */
export const MAX_ATTEMPTS = 2;

const OUTCOME_TYPES = new Set(["task.result", "task.error", "task.timeout", "task.cancel"]);

function parseInput(input: unknown): Record<string, unknown> {
  if (typeof input === "string") {
    try {
      const v = JSON.parse(input);
      return isRecord(v) ? v : {};
    } catch {
      return {};
    }
  }
  return isRecord(input) ? input : {};
}

function clutchOf(providerOptions: unknown): Record<string, unknown> | undefined {
  return isRecord(providerOptions) && isRecord(providerOptions.clutch) ? providerOptions.clutch : undefined;
}

/** True when `v` looks like a stored event (the runner attaches StoredEvents; nothing else is read). */
function isStoredEvent(v: unknown): v is StoredEvent {
  return isRecord(v) && typeof v.type === "string" && isRecord(v.payload) && isRecord(v.from);
}

function eventOf(v: unknown): StoredEvent | undefined {
  return isStoredEvent(v) ? v : undefined;
}

/** True when `from` is a person rather than an agent or the orchestrator. */
export function isHuman(from: { agent_id?: string; role?: string } | undefined): boolean {
  if (!from?.agent_id) return false;
  if (from.role === "human") return true;
  const id = from.agent_id;
  return id === "user" || id.startsWith("user:") || id.startsWith("human:");
}

export class Transcript {
  readonly meta: SystemMeta;
  readonly system: string;
  readonly entries: Entry[] = [];
  readonly calls: CallEntry[] = [];
  readonly inbound: InboundEntry[] = [];
  /** The conversation so far, when the task is a follow-up (lib/fold/follow-up.ts); empty otherwise. */
  readonly history: HistoryEntry[] = [];
  /** Names of the tools offered in this call (empty when the caller declared none). */
  readonly offeredTools: string[];

  constructor(prompt: LanguageModelV3Prompt, tools: LanguageModelV3CallOptions["tools"] = []) {
    const systemParts: string[] = [];
    let meta: Record<string, unknown> = {};
    const byId = new Map<string, CallEntry>();
    for (const msg of prompt) {
      if (msg.role === "system") {
        systemParts.push(msg.content);
        meta = { ...meta, ...(clutchOf(msg.providerOptions) ?? {}) };
      } else if (msg.role === "user") {
        const texts: string[] = [];
        let event = eventOf(clutchOf(msg.providerOptions)?.event);
        for (const part of msg.content) {
          if (part.type === "text") {
            texts.push(part.text);
            event ??= eventOf(clutchOf(part.providerOptions)?.event);
            const history = clutchOf(part.providerOptions)?.history;
            if (Array.isArray(history)) {
              this.history.push(...(history as HistoryEntry[]));
              continue;
            }
          }
        }
        if (this.history.length && !event && texts.length === 0) continue;
        const e: InboundEntry = { kind: "inbound", index: this.entries.length, event, text: texts.join("\n") };
        this.entries.push(e);
        this.inbound.push(e);
      } else if (msg.role === "assistant") {
        for (const part of msg.content) {
          if (part.type === "text" && part.text.trim()) {
            this.entries.push({ kind: "text", index: this.entries.length, text: part.text });
          } else if (part.type === "tool-call") {
            const c: CallEntry = { kind: "call", index: this.entries.length, id: part.toolCallId, name: part.toolName, input: parseInput(part.input) };
            this.entries.push(c);
            this.calls.push(c);
            byId.set(c.id, c);
          } else if (part.type === "tool-result") {
            const c = byId.get(part.toolCallId);
            if (c) c.outcome = outcomeOf(part.output);
          }
        }
      } else if (msg.role === "tool") {
        for (const part of msg.content) {
          if (part.type !== "tool-result") continue;
          const c = byId.get(part.toolCallId);
          if (c) c.outcome = outcomeOf(part.output);
        }
      }
    }
    this.system = systemParts.join("\n\n");
    const allowed = Array.isArray(meta.allowed_agents) ? meta.allowed_agents.filter((a): a is string => typeof a === "string") : [];
    this.meta = {
      agent_id: str(meta.agent_id) ?? "",
      instance_id: str(meta.instance_id) ?? "",
      task_id: str(meta.task_id) ?? "",
      run_id: str(meta.run_id) ?? "",
      task_kind: meta.task_kind === "review" ? "review" : "work",
      allowed_agents: allowed,
      overseer: str(meta.overseer) ?? null,
      agent_names: isRecord(meta.agent_names) ? Object.fromEntries(Object.entries(meta.agent_names).filter((e): e is [string, string] => typeof e[1] === "string")) : {},
    };
    this.offeredTools = (tools ?? []).map((t) => t.name);
  }

  /**
   * The name a person reads for an agent (docs/channels.md "One name per agent"): its card's
   * display name (SystemMeta.agent_names), else its bare id: `agent:qa-1` → "QA Agent".
   */
  nameOf(id: string): string {
    return this.meta.agent_names?.[id]?.trim() || bareId(id);
  }

  /** True when `id` names this agent. */
  isMe(id: string | undefined): boolean {
    return sameAgent(id, this.meta.agent_id);
  }

  /** The agent's calls of tool `name` (optionally those whose input matches). */
  callsOf(name: string, match?: (input: Record<string, unknown>) => boolean): CallEntry[] {
    return this.calls.filter((c) => c.name === name && (!match || match(c.input)));
  }

  lastCall(name: string, match?: (input: Record<string, unknown>) => boolean): CallEntry | undefined {
    const all = this.callsOf(name, match);
    return all[all.length - 1];
  }

  /**
   * Where the step "call `name` with an input that `match`es" stands: never called, waiting for
   * its result, succeeded (the last success wins), or failed (retry while attempts remain and
   * the error is retryable).
   */
  attempt(name: string, match?: (input: Record<string, unknown>) => boolean, after = -1): Attempt {
    const calls = this.callsOf(name, match).filter((c) => c.index > after);
    if (calls.length === 0) return { status: "todo" };
    for (let i = calls.length - 1; i >= 0; i--) {
      const o = calls[i].outcome;
      if (o?.ok) return { status: "ok", call: calls[i], value: o.value };
    }
    const last = calls[calls.length - 1];
    if (!last.outcome) return { status: "pending", call: last };
    const error = last.outcome.error ?? "failed";
    const retryable = last.outcome.retryable ?? /time(d)? ?out|crash|unavailable|ECONN|closed|exited/i.test(error);
    return retryable && calls.length < MAX_ATTEMPTS ? { status: "retry", call: last, error } : { status: "failed", call: last, error };
  }

  /** Inbound entries after prompt position `index`. */
  inboundAfter(index: number): InboundEntry[] {
    return this.inbound.filter((e) => e.index > index);
  }

  /** The task.request of this agent's task (else the first one in the prompt). */
  request(): StoredEventOf<"task.request"> | undefined {
    const reqs = this.inbound.map((e) => e.event).filter((e): e is StoredEventOf<"task.request"> => !!e && isEvent(e, "task.request"));
    return reqs.find((e) => e.task_id === this.meta.task_id) ?? reqs[0];
  }

  /** The request as text: title, instructions, context summary (else the first inbound text). */
  requestText(): string {
    const p = this.request()?.payload;
    if (p) {
      const parts = [str(p.title), str(p.instructions), str(p.context_summary)].filter((s): s is string => !!s?.trim());
      if (parts.length) return parts.join("\n");
    }
    return this.inbound[0]?.text ?? "";
  }

  /** The event this task follows up on (its request's `meta.follows`), or null for a fresh request. */
  follows(): string | null {
    const ev = this.request();
    return ev ? followsOf(ev) : null;
  }

  /** What the requester asked, in their words: the instructions, else the title or summary. */
  askedText(): string {
    const p = this.request()?.payload;
    return [str(p?.instructions), str(p?.title), str(p?.context_summary)].find((s): s is string => !!s?.trim()) ?? this.inbound[0]?.text ?? "";
  }

  /** Chat messages addressed to this agent that ask for an answer and have none from it yet. */
  pendingQuestions(): InboundEntry[] {
    return this.inbound.filter((e) => {
      const ev = e.event;
      if (!ev || !isEvent(ev, "chat.message") || this.isMe(ev.from.agent_id)) return false;
      const p = ev.payload;
      if (!(p.expects_reply === true || p.inquiry === true || p.oversight_inquiry === true)) return false;
      return !this.calls.some(
        (c) => c.name === "reply" && (c.input.reply_to === ev.id || (!c.input.reply_to && c.index > e.index && sameAgent(str(c.input.to), ev.from.agent_id))),
      );
    });
  }

  /** The id of the message an `ask` call sent, when its acknowledgement names one. */
  static sentMessageId(call: CallEntry): string | undefined {
    const v = call.outcome?.value;
    if (isRecord(v)) {
      for (const k of ["message_id", "msg_id", "id", "event_id"]) if (typeof v[k] === "string") return v[k] as string;
    }
    const m = /msg_[0-9A-Za-z_-]+/.exec(typeof v === "string" ? v : JSON.stringify(v ?? ""));
    return m?.[0];
  }

  /**
   * The answer to an `ask` call: the chat message replying to the message it sent, else the
   * first chat message after it from the party asked (a person when `to` is `user`).
   */
  answerTo(ask: CallEntry): InboundEntry | undefined {
    const sent = Transcript.sentMessageId(ask);
    const chats = this.inbound.filter((e) => e.event?.type === "chat.message" && !this.isMe(e.event.from.agent_id));
    if (sent) {
      const direct = chats.find((e) => e.event!.payload.reply_to === sent);
      if (direct) return direct;
    }
    const to = str(ask.input.to) ?? "";
    return chats.find((e) => {
      if (e.index < ask.index) return false;
      const from = e.event!.from;
      return to === "user" ? isHuman(from) : sameAgent(from.agent_id, to);
    });
  }

  /** Outcomes (task.result, task.error, task.timeout, task.cancel) of other tasks: subtasks, reviews. */
  outcomes(): InboundEntry[] {
    return this.inbound.filter((e) => !!e.event && OUTCOME_TYPES.has(e.event.type) && e.event.task_id !== this.meta.task_id);
  }

  /** A task.cancel or task.timeout of this agent's own task, if one arrived and no retry (a new request) came after it. */
  ownTaskStopped(): InboundEntry | undefined {
    const own = this.inbound.filter((e) => e.event?.task_id === this.meta.task_id);
    const stop = own.findLast((e) => e.event?.type === "task.cancel" || e.event?.type === "task.timeout");
    return stop && !own.some((e) => e.index > stop.index && e.event?.type === "task.request") ? stop : undefined;
  }

  /**
   * Where the newest attempt of this agent's own task began: the index of its request when it is
   * a retry (attempt > 1), else -1. Questions asked before it closed with the earlier attempt.
   */
  retryIndex(): number {
    const request = this.inbound.findLast((e) => e.event?.type === "task.request" && e.event.task_id === this.meta.task_id);
    return request && (request.event!.attempt ?? 1) > 1 ? request.index : -1;
  }

  /** The index of the agent's last submit_result (-1 when none). */
  lastSubmitIndex(): number {
    return this.lastCall("submit_result")?.index ?? -1;
  }
}
