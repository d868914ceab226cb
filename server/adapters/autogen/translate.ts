/**
 * AutoGen message translation (Clutch Protocol §7.3 `autogen`; docs/adapters.md "AutoGen"): the
 * AgentChat messages of a running team, in the JSON form `model_dump(mode="json")` gives them
 * (autogen_agentchat/messages.py), become Clutch envelopes in the run's channel. Pure: the run's
 * state in, envelopes and the new state out (`translate`); the state is read back from the
 * run's stored events (`runStateOf`), so a retried batch translates to the same idempotency keys.
 *
 * Each AutoGen `source` is an agent of the run, `agent:autogen-<source>` shown as
 * "AutoGen · <source>" (`display_name`, lib/autogen-name.ts); the team is `agent:autogen`, shown
 * as "AutoGen · <label>", the assignee of the run's root task. So an AutoGen message never reads
 * as the words of a Clutch agent or person of the same name (`source: "pm-1"` beside the
 * workspace's pm-1; docs/identity.md "Names are unique"). `user` is the person (or agent key)
 * that started the run. Every speaking agent has a
 * task of its own in the run (its turns), a subtask of the root opened at its first message and
 * accepted at once; a handoff gives the target a new task under the sender's.
 *
 * | AgentChat message                     | Clutch                                                         |
 * | ------------------------------------- | -------------------------------------------------------------- |
 * | TextMessage, StopMessage,             | chat.message from the speaking agent in its task (the run's    |
 * | ToolCallSummaryMessage,               | task from `user`: from the requester; skipped when it repeats  |
 * | MultiModalMessage (images: [image])   | the run's task; a UserProxyAgent repeating a person's answer:  |
 * |                                       | skipped, the answer is in the channel already)                 |
 * | ToolCallRequestEvent                  | one tool.call per FunctionCall (`id` → call_id, JSON arguments)|
 * | ToolCallExecutionEvent                | tool.result, or tool.error `TOOL_ERROR` when `is_error`        |
 * | HandoffMessage                        | task.request from the sender to the target (parent_task_id:   |
 * |                                       | the sender's task), accepted; to `user`: a chat.message to the |
 * |                                       | people                                                         |
 * | UserInputRequestedEvent               | a question (chat.message to `user`, expects_reply) from the    |
 * |                                       | UserProxyAgent in its task; `payload.autogen.request_id`       |
 * | ThoughtEvent                          | task.progress (`status: "thought"`)                            |
 * | ModelClientStreamingChunkEvent        | skipped: the whole message follows                             |
 * | any other type (SelectorEvent,        | passthrough: task.progress `status: "autogen.<type>"` with the |
 * | SelectSpeakerEvent, MemoryQueryEvent, | message kept under `payload.autogen.message`                   |
 * | CodeGeneration/ExecutionEvent, …)     |                                                                |
 * | `models_usage` of a message above    | model.usage in the speaker's task (model: the one named at the |
 * |                                       | start, else `autogen`; latency unknown: 0)                     |
 * | TaskResult `{ messages, stop_reason }`| task.result of every open task, the root's last, with         |
 * |                                       | `stop_reason`; its messages were streamed before, not re-read  |
 *
 * Every envelope keeps `payload.autogen` (type, id, source, models_usage, created_at) and has
 * the idempotency key `autogen:<run_id>:<message id>:<part>`; a message without `id` is keyed
 * by a hash of its JSON. Bad items (not an object, no `type`/`source`, a field of the wrong
 * shape) are AutogenInputError with the item's index and JSONPath (`$[2].content`).
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { autogenLabel, autogenName } from "@/lib/autogen-name";
import { isEvent, makeMessage, newId, type ClutchMessage, type Participant, type StoredEvent } from "@/lib/protocol";

/** The run as the translation needs it (derived from its events by runStateOf). */
export interface AutogenRunState {
  run_id: string;
  thread_id: string;
  /** The root task: the team's. */
  root_task_id: string;
  /** Who started the run (AutoGen's `user`). */
  requester: Participant;
  /** The team's label (`agent:autogen` is shown as "AutoGen · <label>"). */
  team: string;
  /** The run's task text (the root request's instructions), or null. */
  task: string | null;
  /** The model the team's clients use, named at the start (`model.usage` names it, so the workspace's prices apply); null: `autogen`. */
  model: string | null;
  /** The current task of each source (AutoGen name → task_id). */
  tasks: Record<string, string>;
  /** The parent of every task of an agent (the root's, or the task of the agent that handed off). */
  parents: Record<string, string>;
  /** Every agent's task in the order they were opened (a handoff back opens a new one): [task_id, source]. */
  opened: [string, string][];
  /** Questions by request_id: the chat.message id and the source that asked. */
  questions: Record<string, { id: string; source: string }>;
  /** Answers people gave to each source's questions (to skip the UserProxyAgent's echo of them). */
  answers: Record<string, string[]>;
  /** The last chat text of the run, for the context of a question. */
  last: { source: string; text: string } | null;
  /** The TaskResult arrived: the run is over. */
  ended: boolean;
}

/** A problem with one item of a batch: its index and JSONPath. */
export class AutogenInputError extends Error {
  constructor(readonly issues: { index: number; path: string; message: string }[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("; "));
    this.name = "AutogenInputError";
  }
}

/** What happened to one item of a batch. */
export interface ItemOutcome {
  index: number;
  /** The AgentChat type, or `TaskResult`. */
  type: string;
  /** `translated`: mapped as the table says; `passthrough`: an unknown type kept as task.progress; `skipped`: nothing stored (why in `note`). */
  outcome: "translated" | "passthrough" | "skipped";
  /** How many envelopes it made. */
  events: number;
  note?: string;
}

export const TEAM_AGENT = "agent:autogen";
/** The agent id of AutoGen source `source`. */
export const agentIdOf = (source: string) => `agent:autogen-${source.replace(/[^A-Za-z0-9_.-]/g, "_")}`;

const FunctionCall = z.looseObject({ id: z.string(), name: z.string().min(1), arguments: z.string() });
const ExecutionResult = z.looseObject({ content: z.string(), name: z.string().optional(), call_id: z.string(), is_error: z.boolean().nullish() });
const Base = z.looseObject({
  type: z.string({ error: "type is the AgentChat message class, e.g. TextMessage" }).min(1).max(200),
  source: z.string({ error: "source is the agent that sent it" }).min(1).max(200),
  id: z.string().min(1).max(200).optional(),
  models_usage: z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  created_at: z.string().nullish(),
});
const TextContent = Base.extend({ content: z.string() });
const SHAPES: Record<string, z.ZodType> = {
  TextMessage: TextContent,
  StopMessage: TextContent,
  ToolCallSummaryMessage: TextContent,
  ThoughtEvent: TextContent,
  ModelClientStreamingChunkEvent: TextContent,
  HandoffMessage: TextContent.extend({ target: z.string().min(1).max(200) }),
  ToolCallRequestEvent: Base.extend({ content: z.array(FunctionCall) }),
  ToolCallExecutionEvent: Base.extend({ content: z.array(ExecutionResult) }),
  UserInputRequestedEvent: Base.extend({ request_id: z.string().min(1).max(200) }),
  MultiModalMessage: Base.extend({ content: z.array(z.unknown()) }),
};
const TaskResultSchema = z.looseObject({ messages: z.array(z.unknown()), stop_reason: z.string().nullish() });
/** A checked AgentChat message. */
interface Msg {
  type: string;
  source: string;
  id?: string;
  models_usage?: { prompt_tokens: number; completion_tokens: number } | null;
  metadata?: Record<string, unknown> | null;
  created_at?: string | null;
  content?: unknown;
  target?: string;
  request_id?: string;
}
/** A checked TaskResult. */
interface TaskResult {
  messages: unknown[];
  stop_reason?: string | null;
}

/** True for a TaskResult (no `type`; `messages` and `stop_reason`). */
const isTaskResult = (v: unknown) => Boolean(v && typeof v === "object" && !("type" in v) && Array.isArray((v as { messages?: unknown }).messages));

/**
 * Check a batch (see the module doc). Returns the items; throws AutogenInputError naming every
 * bad item by index and JSONPath.
 */
export function checkBatch(items: unknown[]): (Msg | TaskResult)[] {
  const issues: { index: number; path: string; message: string }[] = [];
  const out = items.map((item, index) => {
    if (isTaskResult(item)) {
      const r = TaskResultSchema.safeParse(item);
      if (!r.success) for (const i of r.error.issues) issues.push({ index, path: `$[${index}]${i.path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("")}`, message: i.message });
      return r.data!;
    }
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      issues.push({ index, path: `$[${index}]`, message: "an AgentChat message is a JSON object (message.model_dump(mode=\"json\")), or a TaskResult { messages, stop_reason }" });
      return null as never;
    }
    const type = (item as { type?: unknown }).type;
    const r = (typeof type === "string" && SHAPES[type] ? SHAPES[type]! : Base).safeParse(item);
    if (!r.success) for (const i of r.error.issues) issues.push({ index, path: `$[${index}]${i.path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("")}`, message: i.message });
    return r.data as Msg;
  });
  if (issues.length) throw new AutogenInputError(issues);
  return out;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The text of a MultiModalMessage's content: strings as they are, images as `[image]`. */
function multiModalText(content: unknown[]): string {
  return content.map((c) => (typeof c === "string" ? c : "[image]")).join("\n");
}

/** A short line for a passthrough item. */
function passthroughLine(m: Msg): string {
  const c = m.content;
  if (typeof c === "string") return cut(`${m.type}: ${c}`, 2000);
  if (m.type === "SelectSpeakerEvent" && Array.isArray(c)) return `selected ${c.join(", ")} to speak next`;
  if (Array.isArray(c)) return `${m.type}: ${c.length} item${c.length === 1 ? "" : "s"}`;
  return m.type;
}

/** Options of `translate`: how task ids are made (tests pass a counter). */
export interface TranslateOptions {
  taskId?: () => string;
}

/**
 * Translate checked `items` (checkBatch) of the run in `state` into envelopes (see the module
 * doc). Returns the envelopes in order, each item's outcome, and the state after them; `state`
 * itself is not changed.
 */
export function translate(items: ReturnType<typeof checkBatch>, state: AutogenRunState, options: TranslateOptions = {}): { envelopes: ClutchMessage[]; outcomes: ItemOutcome[]; state: AutogenRunState } {
  const taskId = options.taskId ?? (() => newId("task"));
  const s: AutogenRunState = structuredClone(state);
  const envelopes: ClutchMessage[] = [];
  const outcomes: ItemOutcome[] = [];
  const team: Participant = { agent_id: TEAM_AGENT, role: "worker", display_name: autogenName(s.team) };
  const agentOf = (source: string): Participant => ({ agent_id: agentIdOf(source), role: "worker", display_name: autogenName(source) });
  const who = (source: string): Participant => (source === "user" ? s.requester : agentOf(source));
  const at = (task_id: string, parent_task_id: string | null) => ({ thread_id: s.thread_id, run_id: s.run_id, task_id, parent_task_id });

  items.forEach((item, index) => {
    const before = envelopes.length;
    const ownId = isTaskResult(item) ? undefined : (item as Msg).id;
    const keyBase = `autogen:${s.run_id}:${ownId ? ownId : createHash("sha256").update(JSON.stringify(item)).digest("hex").slice(0, 32)}`;
    const key = (part: string) => cut(`${keyBase}:${part}`, 200);
    const push = (m: ClutchMessage) => envelopes.push(m);
    /** The task of `source`, opened (requested by `by` under `parent`, accepted) when it has none. */
    const taskOf = (source: string, opened?: { by: Participant; parent: string; payload: Record<string, unknown>; part: string }): string => {
      if (source === "user") return s.root_task_id;
      if (s.tasks[source] && !opened) return s.tasks[source]!;
      const task_id = taskId();
      const by = opened?.by ?? team;
      const parent = opened?.parent ?? s.root_task_id;
      push(
        makeMessage({
          type: "task.request",
          ...at(task_id, parent),
          from: by,
          to: [agentOf(source)],
          payload: opened?.payload ?? { title: `${source}'s turns in ${s.team}`, context_summary: `AutoGen agent ${source} speaks in the team ${s.team}`, input: { autogen: { source } } },
          meta: { autogen: { source } },
          idempotency_key: key(opened?.part ?? `open:${source}`),
        }),
      );
      push(makeMessage({ type: "task.accept", ...at(task_id, parent), from: who(source), to: [by], payload: { agent_id: agentIdOf(source) }, idempotency_key: key(`${opened?.part ?? `open:${source}`}:accept`) }));
      s.tasks[source] = task_id;
      s.parents[task_id] = parent;
      s.opened.push([task_id, source]);
      return task_id;
    };

    if (isTaskResult(item)) {
      // TaskResult: every open task ends, the root last.
      const result = item as TaskResult;
      const stop_reason = result.stop_reason ?? null;
      if (s.ended) {
        outcomes.push({ index, type: "TaskResult", outcome: "skipped", events: 0, note: "the run has its result already" });
        return;
      }
      // Newest first: a task handed off ends before the task it was handed off from.
      for (const [task_id, source] of [...s.opened].reverse()) {
        push(makeMessage({ type: "task.result", ...at(task_id, s.parents[task_id] ?? s.root_task_id), from: who(source), to: [team], payload: { summary: `${source}'s turns ended: ${stop_reason ?? "the team stopped"}`, stop_reason }, idempotency_key: `autogen:${s.run_id}:result:${source}:${task_id}` }));
      }
      push(
        makeMessage({
          type: "task.result",
          ...at(s.root_task_id, null),
          from: team,
          to: [s.requester],
          payload: { summary: stop_reason ? `${s.team} stopped: ${stop_reason}` : `${s.team} finished`, stop_reason, messages: result.messages.length, autogen: { type: "TaskResult", stop_reason } },
          idempotency_key: `autogen:${s.run_id}:result`,
        }),
      );
      s.ended = true;
      outcomes.push({ index, type: "TaskResult", outcome: "translated", events: envelopes.length - before });
      return;
    }

    const m = item as Msg;
    const autogen = { type: m.type, ...(m.id ? { id: m.id } : {}), source: m.source, ...(m.models_usage ? { models_usage: m.models_usage } : {}), ...(m.created_at ? { created_at: m.created_at } : {}), ...(m.metadata && Object.keys(m.metadata).length ? { metadata: m.metadata } : {}) };
    const parentOf = (task_id: string) => (task_id === s.root_task_id ? null : (s.parents[task_id] ?? s.root_task_id));
    const chat = (text: string, extra: Record<string, unknown> = {}, to: Participant[] = []) => {
      const task_id = taskOf(m.source);
      push(makeMessage({ type: "chat.message", ...at(task_id, parentOf(task_id)), from: who(m.source), to, payload: { text: cut(text, 100_000) || "(empty)", ...extra, autogen }, idempotency_key: key("chat") }));
      s.last = { source: m.source, text };
    };
    const done = (outcome: ItemOutcome["outcome"] = "translated", note?: string) => {
      // A message a model call produced carries its usage: one model.usage in the speaker's task.
      if (m.models_usage && outcome !== "skipped" && m.source !== "user") {
        const task_id = taskOf(m.source);
        push(
          makeMessage({
            type: "model.usage",
            ...at(task_id, parentOf(task_id)),
            from: who(m.source),
            to: [],
            payload: { model: s.model ?? "autogen", provider: "autogen", input_tokens: Math.max(0, Math.round(m.models_usage.prompt_tokens)), output_tokens: Math.max(0, Math.round(m.models_usage.completion_tokens)), latency_ms: 0, autogen },
            idempotency_key: key("usage"),
          }),
        );
      }
      outcomes.push({ index, type: m.type, outcome, events: envelopes.length - before, ...(note ? { note } : {}) });
    };
    if (s.ended) return done("skipped", "the run has its result already");

    switch (m.type) {
      case "TextMessage":
      case "StopMessage":
      case "ToolCallSummaryMessage":
      case "MultiModalMessage": {
        const text = m.type === "MultiModalMessage" ? multiModalText(m.content as unknown[]) : (m.content as string);
        if (m.source === "user" && s.task !== null && text.trim() === s.task.trim()) {
          s.last = { source: "user", text };
          return done("skipped", "the run's task, already its request");
        }
        const answers = s.answers[m.source] ?? [];
        if (answers.includes(text)) {
          s.answers[m.source] = answers.filter((a, i) => i !== answers.indexOf(text));
          s.last = { source: m.source, text };
          return done("skipped", "the person's answer, already in the channel");
        }
        chat(text);
        return done();
      }
      case "ToolCallRequestEvent": {
        const task_id = taskOf(m.source);
        for (const call of m.content as z.infer<typeof FunctionCall>[]) {
          let args: unknown;
          try {
            args = JSON.parse(call.arguments || "{}");
          } catch {
            args = undefined;
          }
          const argumentsObj = args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : { raw: call.arguments };
          push(makeMessage({ type: "tool.call", ...at(task_id, parentOf(task_id)), from: who(m.source), to: [], payload: { call_id: call.id || `${keyBase}:${call.name}`, tool: call.name, arguments: argumentsObj, autogen }, idempotency_key: key(`call:${call.id}`) }));
        }
        return done();
      }
      case "ToolCallExecutionEvent": {
        const task_id = taskOf(m.source);
        for (const r of m.content as z.infer<typeof ExecutionResult>[]) {
          const base = { call_id: r.call_id, tool: r.name || "tool", autogen };
          push(
            r.is_error
              ? makeMessage({ type: "tool.error", ...at(task_id, parentOf(task_id)), from: who(m.source), to: [], payload: { ...base, code: "TOOL_ERROR", message: cut(r.content, 10_000) }, idempotency_key: key(`result:${r.call_id}`) })
              : makeMessage({ type: "tool.result", ...at(task_id, parentOf(task_id)), from: who(m.source), to: [], payload: { ...base, result: r.content }, idempotency_key: key(`result:${r.call_id}`) }),
          );
        }
        return done();
      }
      case "HandoffMessage": {
        const target = m.target!;
        if (target === "user") {
          chat(m.content as string, { handoff_to: "user" }, [{ agent_id: "user", role: "human" }]);
          return done("translated", "a handoff to the people: a message to them");
        }
        const from_task = taskOf(m.source);
        s.last = { source: m.source, text: m.content as string };
        taskOf(target, {
          by: who(m.source),
          parent: from_task,
          part: `handoff:${target}`,
          payload: { title: cut(`Handoff from ${m.source}: ${m.content as string}`, 500), instructions: m.content as string, context_summary: `${m.source} hands off to ${target} in the team ${s.team}`, input: { autogen: { source: target, handoff_from: m.source } }, autogen },
        });
        return done();
      }
      case "UserInputRequestedEvent": {
        const request_id = m.request_id!;
        const context = s.last ? `\n\n${s.last.source}: ${cut(s.last.text, 1000)}` : "";
        const task_id = taskOf(m.source);
        const msg = makeMessage({
          type: "chat.message",
          ...at(task_id, parentOf(task_id)),
          from: who(m.source),
          to: [{ agent_id: "user", role: "human" }],
          payload: { text: `${m.source} (AutoGen UserProxyAgent) waits for your input: reply to this message to answer.${context}`, expects_reply: true, autogen: { ...autogen, request_id } },
          idempotency_key: key("question"),
        });
        push(msg);
        s.questions[request_id] = { id: msg.id, source: m.source };
        return done();
      }
      case "ThoughtEvent": {
        const task_id = taskOf(m.source);
        push(makeMessage({ type: "task.progress", ...at(task_id, parentOf(task_id)), from: who(m.source), to: [], payload: { message: cut(m.content as string, 10_000), status: "thought", autogen }, idempotency_key: key("thought") }));
        return done();
      }
      case "ModelClientStreamingChunkEvent":
        return done("skipped", "a streaming chunk: the whole message follows");
      default: {
        const task_id = taskOf(m.source);
        const raw = JSON.stringify(m);
        push(
          makeMessage({
            type: "task.progress",
            ...at(task_id, parentOf(task_id)),
            from: who(m.source),
            to: [],
            payload: { message: passthroughLine(m), status: `autogen.${m.type}`.slice(0, 100), autogen: { ...autogen, message: raw.length > 50_000 ? { truncated: true, json: raw.slice(0, 50_000) } : m } },
            idempotency_key: key("passthrough"),
          }),
        );
        return done("passthrough", `${m.type} is kept as task.progress (status autogen.${m.type})`);
      }
    }
  });
  return { envelopes, outcomes, state: s };
}

/**
 * The state of AutoGen run `run_id` from its stored events, or null when they are not an
 * AutoGen run (no root request from `agent:autogen`'s start, see routes).
 */
export function runStateOf(events: readonly StoredEvent[]): AutogenRunState | null {
  const root = events.find((e) => isEvent(e, "task.request") && !e.parent_task_id && (e.meta as { autogen?: { run?: boolean } } | undefined)?.autogen?.run === true);
  if (!root || !isEvent(root, "task.request")) return null;
  // The team's label as the start named it (runs from before it was kept: the name it was shown by).
  const label = (root.meta as { autogen?: { team?: unknown } } | undefined)?.autogen?.team;
  const s: AutogenRunState = {
    run_id: root.run_id,
    thread_id: root.thread_id,
    root_task_id: root.task_id,
    requester: root.from,
    team: typeof label === "string" ? label : autogenLabel(root.to[0]?.display_name ?? "AutoGen team"),
    task: typeof root.payload.instructions === "string" ? root.payload.instructions : null,
    model: (root.payload.input as { autogen?: { model?: string } } | undefined)?.autogen?.model ?? null,
    tasks: {},
    parents: {},
    opened: [],
    questions: {},
    answers: {},
    last: null,
    ended: false,
  };
  const askedBy = new Map<string, string>();
  for (const e of events) {
    const source = (e.meta as { autogen?: { source?: string } } | undefined)?.autogen?.source;
    if (isEvent(e, "task.request") && e.task_id !== s.root_task_id && typeof source === "string") {
      s.tasks[source] = e.task_id;
      s.parents[e.task_id] = e.parent_task_id ?? s.root_task_id;
      s.opened.push([e.task_id, source]);
    }
    if (isEvent(e, "chat.message")) {
      // `payload.autogen` is what translate() above keeps of the AutoGen message; no schema of §2 names it.
      const ag = (e.payload as { autogen?: { source?: string; request_id?: string } }).autogen;
      if (ag?.request_id && e.payload.expects_reply) {
        s.questions[ag.request_id] = { id: e.id, source: ag.source ?? "" };
        askedBy.set(e.id, ag.source ?? "");
      } else if (typeof e.payload.reply_to === "string" && askedBy.has(e.payload.reply_to)) {
        const asker = askedBy.get(e.payload.reply_to)!;
        (s.answers[asker] ??= []).push(e.payload.text);
      } else if (ag?.source) s.last = { source: ag.source, text: e.payload.text };
    }
    if (isEvent(e, "task.result") && e.task_id === s.root_task_id) s.ended = true;
  }
  return s;
}
