/**
 * RunTracer: a run's events, one at a time in log order, become finished spans in the
 * OpenTelemetry GenAI semantic conventions (docs/observability.md "Traces (OpenTelemetry)"):
 *
 *   invoke_workflow <run title>          the run: first root task.request → its last root task's end
 *   └─ invoke_agent <agent name>         a task's attempt: task.request → task.result / error / cancel / timeout
 *      ├─ chat <model>                   a model call: model.usage (start = ts − latency_ms)
 *      ├─ execute_tool <tool>            a tool call (MCP included): tool.call → tool.result / tool.error
 *      ├─ await_approval <what>          people's wait: approval.requested → granted / rejected / expired
 *      ├─ await_answer                   people's wait: a question to people → its answer (or the task's end)
 *      └─ invoke_agent <agent name>      a subtask (parent_task_id), and so on down
 *
 * A span is emitted when it ends, with the start its opening event gave. Ids are deterministic
 * (./ids.ts), so spans emitted at different times or by different nodes join one trace; a run
 * whose root task.request carries the caller's `meta.trace` (./meta.ts) takes the caller's trace
 * id and goes under the caller's span. What is open is kept in bounded maps (MAX_RUNS runs, and
 * per run MAX_OPEN of each kind); what is not there (a run evicted, or begun before this process
 * followed the log) is looked up in the store through `TraceLookup`, so its spans still end with
 * their real start and parent.
 *
 * What people wrote stays in the workspace when its channel is private (docs/observability.md
 * "What a trace carries"): the spans of a run in a private channel or a DM carry PRIVATE in place
 * of the run's and tasks' titles, approval summaries, error messages and cancel reasons (ids,
 * agents, tools, models, token counts, states and times stay), unless the tracer is made with
 * `privateContent` (CLUTCH_TRACE_PRIVATE_CONTENT). The channel's visibility is read from the store
 * when its spans end (`TraceLookup.isPrivate`), kept per channel, and read again after a
 * `channel.visibility_changed` of it in the log.
 *
 * Pure of OpenTelemetry's SDK: it returns plain `SpanRecord`s that ./export.ts hands to the SDK.
 */
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { isPeopleRecipient } from "@/lib/fold/questions";
import { runStateOf } from "@/lib/fold/run-state";
import type { TaskState } from "@/lib/fold/task-state";
import { remoteParentOf, type RemoteParent } from "./context";
import { spanIdOf, traceIdOf } from "./ids";
import { traceMetaOf } from "./meta";
import { ATTR, providerName } from "./attributes";

export type AttrValue = string | number | boolean | string[];
export type Attributes = Record<string, AttrValue>;

/** A finished span, as the exporter sends it. Times in ms since the epoch; ids lowercase hex. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** The parent span (`remote`: the caller's, from its traceparent); null for a root span. */
  parent: { spanId: string; remote: boolean } | null;
  /** The caller's tracestate, carried on every span of its trace. */
  tracestate?: string;
  name: string;
  kind: "internal" | "client" | "server";
  startMs: number;
  endMs: number;
  attributes: Attributes;
  status: { code: "unset" | "error"; message?: string };
  events: { name: string; timeMs: number; attributes: Attributes }[];
}

/** A task as the store has it now (the tasks projection), for a task this tracer has not seen opened. */
export interface TaskFacts {
  parent_task_id: string | null;
  assignee: string | null;
  title: string | null;
  /** The attempt now (1-based). */
  attempts: number;
  /** When the current attempt was requested (ms). */
  startMs: number;
}

/** Store reads for what the tracer did not see opened (server/events/queries.ts underneath). */
export interface TraceLookup {
  /** The run's first root task.request, or null: a run with none is not traced. */
  firstRootRequest(run_id: string): Promise<StoredEventOf<"task.request"> | null>;
  /** The ids of the run's root tasks that have not ended. */
  openRootTasks(run_id: string): Promise<string[]>;
  /** Task `task_id` of run `run_id`, or null. */
  task(run_id: string, task_id: string): Promise<TaskFacts | null>;
  /** The approval.requested of `approval_id`, or null. */
  approvalRequest(approval_id: string): Promise<StoredEventOf<"approval.requested"> | null>;
  /** Event `id` of run `run_id`, or null. */
  eventInRun(run_id: string, id: string): Promise<StoredEvent | null>;
  /** True for a private channel or a DM (and for one that cannot be found). */
  isPrivate(thread_id: string): Promise<boolean>;
}

/** What a span of a private channel's run carries in place of what people or agents wrote. */
export const PRIVATE = "(private)";

/** The attributes that hold what people or agents wrote (the rest are ids, names of agents, tools and models, figures). */
const CONTENT_ATTRIBUTES = [ATTR.WORKFLOW_NAME, ATTR.TASK_TITLE, ATTR.APPROVAL_SUMMARY, ATTR.CANCEL_REASON] as const;

/** Runs kept in memory (least recently touched evicted first); open items of each kind per run. */
export const MAX_RUNS = 1000;
export const MAX_OPEN = 1000;
/** Span events kept on one task span. */
const MAX_SPAN_EVENTS = 32;

const ORCHESTRATOR_ID = "agent:orchestrator";
const ENDINGS = ["task.result", "task.error", "task.cancel", "task.timeout"] as const;

interface TaskSpan {
  task_id: string;
  attempt: number;
  spanId: string;
  parentSpanId: string;
  startMs: number;
  assignee: string | null;
  requester: string | null;
  title: string | null;
  parent_task_id: string | null;
  /** The node that accepted the task (its accept's `meta.node`). */
  node?: string;
  ended: boolean;
  events: SpanRecord["events"];
}

interface Opened {
  task_id: string;
  startMs: number;
  from: string;
}

interface RunTrace {
  run_id: string;
  thread_id: string;
  traceId: string;
  spanId: string;
  remote: RemoteParent | null;
  startMs: number;
  title: string | null;
  requested_by: string | null;
  /** The run's first root task's agent. */
  entry: string | null;
  tasks: Map<string, TaskSpan>;
  openRoots: Set<string>;
  rootStates: Map<string, TaskState>;
  tools: Map<string, Opened & { tool: string; server_id?: string }>;
  approvals: Map<string, Opened & { payload: StoredEventOf<"approval.requested">["payload"]; events: SpanRecord["events"] }>;
  questions: Map<string, Opened & { to: string[] }>;
  answered: Set<string>;
  /** Rebuilt from the store (or lost a task to the bound): unknown tasks are looked up. */
  partial: boolean;
  /** The run span was emitted. */
  ended: boolean;
}

const ms = (ev: { ts: string }) => Date.parse(ev.ts);
const bare = (id: string) => id.replace(/^(agent|user):/, "");

/** True for the events the tracer reads (the exporter drops the rest before queueing them). */
export function isTraced(ev: StoredEvent): boolean {
  switch (ev.type) {
    case "task.request":
    case "task.accept":
    case "task.result":
    case "task.error":
    case "task.cancel":
    case "task.timeout":
    case "model.usage":
    case "tool.call":
    case "tool.result":
    case "tool.error":
    case "approval.requested":
    case "approval.granted":
    case "approval.rejected":
    case "approval.expired":
      return true;
    case "audit.change":
      // A channel made private (or public): its runs' spans carry its content or not from now on.
      return isEvent(ev, "audit.change") && ev.payload.action === "channel.visibility_changed";
    case "chat.message":
      return isEvent(ev, "chat.message") && (ev.payload.expects_reply === true || (typeof ev.payload.reply_to === "string" && ev.to.length > 0));
    default:
      return false;
  }
}

export class RunTracer {
  private readonly runs = new Map<string, RunTrace>();
  /** Runs found to have no root request (not traced), so they are not looked up again. */
  private readonly untraced = new Set<string>();
  /** Channels' privacy as last read (bounded like the runs), until their visibility changes. */
  private readonly privacy = new Map<string, boolean>();

  /**
   * `nameOf` gives an agent's display name (its card's), undefined when unknown.
   * `options.privateContent`: spans of private channels' and DMs' runs carry their titles,
   * summaries and messages too (default false: PRIVATE in their place; see the module doc).
   */
  constructor(
    private readonly lookup: TraceLookup,
    private readonly nameOf: (agent_id: string) => string | undefined = () => undefined,
    private readonly options: { privateContent?: boolean } = {},
  ) {}

  /**
   * Read one event (in log order); returns the spans it ended, possibly none, without the
   * content of a private channel's run (see the module doc). Rejects only when a store read
   * fails (the caller logs it and goes on with the next event; nothing of it is sent).
   */
  async apply(ev: StoredEvent): Promise<SpanRecord[]> {
    if (isEvent(ev, "audit.change")) {
      if (ev.payload.action === "channel.visibility_changed") this.privacy.delete(ev.thread_id);
      return [];
    }
    const spans = await this.spansOf(ev);
    if (!spans.length || this.options.privateContent) return spans;
    // Every span an event ends belongs to its run, whose channel is the run's first request's.
    const thread_id = String(spans[0]!.attributes[ATTR.THREAD_ID]);
    return (await this.isPrivate(thread_id)) ? spans.map(withoutContent) : spans;
  }

  private async isPrivate(thread_id: string): Promise<boolean> {
    let known = this.privacy.get(thread_id);
    if (known === undefined) {
      known = await this.lookup.isPrivate(thread_id);
      this.privacy.set(thread_id, known);
      if (this.privacy.size > MAX_RUNS) this.privacy.delete(this.privacy.keys().next().value!);
    }
    return known;
  }

  private async spansOf(ev: StoredEvent): Promise<SpanRecord[]> {
    if (!isTraced(ev)) return [];
    if (isEvent(ev, "task.request")) return this.onRequest(ev);
    const run = await this.runOf(ev);
    if (!run) return [];
    if (isEvent(ev, "task.accept")) return this.onAccept(run, ev);
    if (isEvent(ev, ...ENDINGS)) return this.onEnd(run, ev);
    if (isEvent(ev, "model.usage")) return this.onUsage(run, ev);
    if (isEvent(ev, "tool.call")) return this.open(run, run.tools, `${ev.task_id}/${ev.payload.call_id}`, { task_id: ev.task_id, startMs: ms(ev), from: ev.from.agent_id, tool: ev.payload.tool, ...(ev.payload.server_id ? { server_id: ev.payload.server_id } : {}) });
    if (isEvent(ev, "tool.result", "tool.error")) return this.onToolEnd(run, ev);
    if (isEvent(ev, "approval.requested")) return this.open(run, run.approvals, ev.payload.approval_id, { task_id: ev.task_id, startMs: ms(ev), from: ev.from.agent_id, payload: ev.payload, events: [] });
    if (isEvent(ev, "approval.granted", "approval.rejected", "approval.expired")) return this.onDecision(run, ev);
    if (isEvent(ev, "chat.message")) return this.onChat(run, ev);
    return [];
  }

  // Runs and tasks

  /** The run `ev` belongs to, from memory or rebuilt from the store; null when it is not traced. */
  private async runOf(ev: StoredEvent): Promise<RunTrace | null> {
    const known = this.runs.get(ev.run_id);
    if (known) {
      // Least recently touched goes first: re-insert at the end.
      this.runs.delete(ev.run_id);
      this.runs.set(ev.run_id, known);
      return known;
    }
    const isRoot = isEvent(ev, "task.request") && !ev.parent_task_id;
    if (!isRoot && this.untraced.has(ev.run_id)) return null;
    // Committed before the tail hands it on, so the store has it: the run's own first request
    // when `ev` opens the run, else the run began before this process followed it (or left memory).
    const first = await this.lookup.firstRootRequest(ev.run_id);
    if (!first) {
      if (isRoot) return this.newRun(ev as StoredEventOf<"task.request">, false);
      this.untraced.add(ev.run_id);
      if (this.untraced.size > MAX_RUNS) this.untraced.delete(this.untraced.values().next().value!);
      return null;
    }
    const fresh = first.id === ev.id;
    const run = this.newRun(first, !fresh);
    if (!fresh) for (const id of await this.lookup.openRootTasks(ev.run_id)) run.openRoots.add(id);
    return run;
  }

  private newRun(first: StoredEventOf<"task.request">, partial: boolean): RunTrace {
    const remote = remoteParentOf(traceMetaOf(first.meta).trace);
    const requested_by = first.meta?.requested_by;
    const run: RunTrace = {
      run_id: first.run_id,
      thread_id: first.thread_id,
      traceId: remote?.traceId ?? traceIdOf(first.run_id),
      spanId: spanIdOf("run", first.run_id),
      remote,
      startMs: ms(first),
      title: typeof first.payload.title === "string" ? first.payload.title : null,
      requested_by: typeof requested_by === "string" ? requested_by : first.from.agent_id,
      entry: assigneeOf(first),
      tasks: new Map(),
      openRoots: new Set(),
      rootStates: new Map(),
      tools: new Map(),
      approvals: new Map(),
      questions: new Map(),
      answered: new Set(),
      partial,
      ended: false,
    };
    this.untraced.delete(run.run_id);
    this.runs.set(run.run_id, run);
    if (this.runs.size > MAX_RUNS) this.runs.delete(this.runs.keys().next().value!);
    return run;
  }

  /** The span of task `task_id` (its current attempt), from memory or the store; null when unknown. */
  private async taskSpan(run: RunTrace, task_id: string, depth = 0): Promise<TaskSpan | null> {
    const known = run.tasks.get(task_id);
    if (known || !run.partial || depth > 32) return known ?? null;
    const facts = await this.lookup.task(run.run_id, task_id);
    if (!facts) return null;
    const parent = facts.parent_task_id ? await this.taskSpan(run, facts.parent_task_id, depth + 1) : null;
    const t = this.makeTask(run, task_id, facts.attempts, parent?.spanId ?? run.spanId, facts.startMs, {
      assignee: facts.assignee,
      requester: null,
      title: facts.title,
      parent_task_id: facts.parent_task_id,
    });
    this.keepTask(run, t);
    return t;
  }

  private makeTask(run: RunTrace, task_id: string, attempt: number, parentSpanId: string, startMs: number, facts: Pick<TaskSpan, "assignee" | "requester" | "title" | "parent_task_id">): TaskSpan {
    // The first attempt's id needs nothing but the task; later ones are told apart by number.
    const spanId = attempt <= 1 ? spanIdOf("task", run.run_id, task_id) : spanIdOf("task", run.run_id, task_id, String(attempt));
    return { task_id, attempt, spanId, parentSpanId, startMs, ...facts, ended: false, events: [] };
  }

  private keepTask(run: RunTrace, t: TaskSpan): void {
    run.tasks.delete(t.task_id);
    run.tasks.set(t.task_id, t);
    if (run.tasks.size > MAX_OPEN) {
      // The oldest task leaves memory; a later event of it is looked up in the store.
      run.tasks.delete(run.tasks.keys().next().value!);
      run.partial = true;
    }
  }

  private async onRequest(ev: StoredEventOf<"task.request">): Promise<SpanRecord[]> {
    const run = await this.runOf(ev);
    if (!run) return [];
    const assignee = assigneeOf(ev);
    const known = await this.taskSpan(run, ev.task_id);
    if (known && !known.ended) {
      // Routed or rerouted: the same attempt, maybe another agent.
      if (assignee) known.assignee = assignee;
      return [];
    }
    let attempt = known ? known.attempt + 1 : 1;
    if (!known && run.partial) attempt = (await this.lookup.task(run.run_id, ev.task_id))?.attempts ?? 1;
    const parent = ev.parent_task_id ? await this.taskSpan(run, ev.parent_task_id) : null;
    const t = this.makeTask(run, ev.task_id, attempt, parent?.spanId ?? run.spanId, ms(ev), {
      assignee,
      requester: ev.from.agent_id,
      title: typeof ev.payload.title === "string" ? ev.payload.title : null,
      parent_task_id: ev.parent_task_id ?? null,
    });
    this.keepTask(run, t);
    if (!ev.parent_task_id) {
      run.openRoots.add(ev.task_id);
      run.entry ??= assignee;
    }
    return [];
  }

  private async onAccept(run: RunTrace, ev: StoredEventOf<"task.accept">): Promise<SpanRecord[]> {
    const t = await this.taskSpan(run, ev.task_id);
    if (!t || t.ended) return [];
    const agent = ev.payload.agent_id ?? ev.from.agent_id;
    if (!t.assignee && agent !== ORCHESTRATOR_ID) t.assignee = agent;
    const node = nodeOf(ev);
    if (node) t.node = node;
    if (t.events.length < MAX_SPAN_EVENTS) t.events.push({ name: "task.accept", timeMs: ms(ev), attributes: { [ATTR.AGENT_ID]: agent } });
    return [];
  }

  private async onEnd(run: RunTrace, ev: StoredEventOf<(typeof ENDINGS)[number]>): Promise<SpanRecord[]> {
    const t = await this.taskSpan(run, ev.task_id);
    // An ended task stays ended (lib/fold/task-state.ts): a late result after a cancel adds nothing.
    if (!t || t.ended) return [];
    t.ended = true;
    const out: SpanRecord[] = [this.taskRecord(run, t, ev)];
    for (const [id, q] of run.questions) {
      if (q.task_id !== t.task_id) continue;
      // The task ended before anyone answered: nobody waits any more.
      run.questions.delete(id);
      out.push(this.questionRecord(run, id, q, t, ms(ev), { [ATTR.WAIT_OUTCOME]: "closed" }));
    }
    if (!t.parent_task_id) {
      run.rootStates.set(t.task_id, stateOf(ev));
      run.openRoots.delete(t.task_id);
      if (run.openRoots.size === 0 && !run.ended) {
        run.ended = true;
        out.push(this.runRecord(run, ms(ev)));
      }
    }
    return out;
  }

  // Spans

  private base(run: RunTrace): Pick<SpanRecord, "traceId" | "tracestate"> {
    return { traceId: run.traceId, ...(run.remote?.tracestate ? { tracestate: run.remote.tracestate } : {}) };
  }

  private ids(run: RunTrace, task_id?: string): Attributes {
    return { [ATTR.RUN_ID]: run.run_id, [ATTR.THREAD_ID]: run.thread_id, [ATTR.CONVERSATION_ID]: run.thread_id, ...(task_id ? { [ATTR.TASK_ID]: task_id } : {}) };
  }

  private agent(agent_id: string | null): Attributes {
    if (!agent_id) return {};
    return { [ATTR.AGENT_ID]: agent_id, [ATTR.AGENT_NAME]: this.nameOf(agent_id) ?? bare(agent_id) };
  }

  private runRecord(run: RunTrace, endMs: number): SpanRecord {
    const state = runStateOf([...run.rootStates.values()]);
    const title = run.title ?? "run";
    return {
      ...this.base(run),
      spanId: run.spanId,
      parent: run.remote ? { spanId: run.remote.spanId, remote: true } : null,
      name: `invoke_workflow ${title}`,
      kind: run.remote ? "server" : "internal",
      startMs: run.startMs,
      endMs,
      attributes: {
        [ATTR.OPERATION_NAME]: "invoke_workflow",
        [ATTR.WORKFLOW_NAME]: title,
        ...this.ids(run),
        [ATTR.RUN_STATE]: state,
        ...(run.requested_by ? { [ATTR.REQUESTED_BY]: run.requested_by } : {}),
        ...(run.entry ? { [ATTR.ENTRY_AGENT]: run.entry } : {}),
      },
      status: state === "failed" || state === "timed_out" ? { code: "error", message: `the run ${state.replace("_", " ")}` } : { code: "unset" },
      events: [],
    };
  }

  private taskRecord(run: RunTrace, t: TaskSpan, ev: StoredEventOf<(typeof ENDINGS)[number]>): SpanRecord {
    const state = stateOf(ev);
    const attributes: Attributes = {
      [ATTR.OPERATION_NAME]: "invoke_agent",
      ...this.agent(t.assignee),
      ...this.ids(run, t.task_id),
      ...(t.parent_task_id ? { [ATTR.PARENT_TASK_ID]: t.parent_task_id } : {}),
      ...(t.title ? { [ATTR.TASK_TITLE]: t.title } : {}),
      ...(t.requester ? { [ATTR.REQUESTER]: t.requester } : {}),
      [ATTR.TASK_STATE]: state,
      [ATTR.TASK_ATTEMPT]: t.attempt,
      ...(t.node ? { [ATTR.HOST_NAME]: t.node } : {}),
    };
    let status: SpanRecord["status"] = { code: "unset" };
    if (isEvent(ev, "task.error")) {
      attributes[ATTR.ERROR_TYPE] = ev.payload.code;
      if (typeof ev.payload.retryable === "boolean") attributes[ATTR.ERROR_RETRYABLE] = ev.payload.retryable;
      status = { code: "error", message: `${ev.payload.code}: ${ev.payload.message}` };
    } else if (isEvent(ev, "task.timeout")) {
      attributes[ATTR.ERROR_TYPE] = "TIMED_OUT";
      status = { code: "error", message: `TIMED_OUT: ${ev.payload.message ?? "the task timed out"}` };
    } else if (isEvent(ev, "task.cancel") && ev.payload.reason) {
      attributes[ATTR.CANCEL_REASON] = ev.payload.reason;
    }
    return {
      ...this.base(run),
      spanId: t.spanId,
      parent: { spanId: t.parentSpanId, remote: false },
      name: t.assignee ? `invoke_agent ${this.nameOf(t.assignee) ?? bare(t.assignee)}` : "invoke_agent",
      kind: "internal",
      startMs: t.startMs,
      endMs: ms(ev),
      attributes,
      status,
      events: t.events,
    };
  }

  private async onUsage(run: RunTrace, ev: StoredEventOf<"model.usage">): Promise<SpanRecord[]> {
    const p = ev.payload;
    const t = await this.taskSpan(run, ev.task_id);
    const endMs = ms(ev);
    return [
      {
        ...this.base(run),
        spanId: spanIdOf("chat", run.run_id, ev.id),
        parent: { spanId: t?.spanId ?? run.spanId, remote: false },
        name: `chat ${p.model}`,
        kind: "client",
        startMs: endMs - p.latency_ms,
        endMs,
        attributes: {
          [ATTR.OPERATION_NAME]: "chat",
          ...(p.provider ? { [ATTR.PROVIDER_NAME]: providerName(p.provider), [ATTR.MODEL_PROVIDER]: p.provider } : {}),
          [ATTR.REQUEST_MODEL]: p.model,
          [ATTR.RESPONSE_MODEL]: p.model,
          [ATTR.INPUT_TOKENS]: p.input_tokens,
          [ATTR.OUTPUT_TOKENS]: p.output_tokens,
          ...(p.cached_input_tokens !== undefined ? { [ATTR.CACHE_READ_INPUT_TOKENS]: p.cached_input_tokens } : {}),
          ...(p.reasoning_tokens !== undefined ? { [ATTR.REASONING_OUTPUT_TOKENS]: p.reasoning_tokens } : {}),
          ...(p.finish_reason ? { [ATTR.FINISH_REASONS]: [p.finish_reason] } : {}),
          ...this.agent(ev.from.agent_id),
          ...this.ids(run, ev.task_id),
          ...(p.step !== undefined ? { [ATTR.STEP]: p.step } : {}),
          ...(nodeOf(ev) ? { [ATTR.HOST_NAME]: nodeOf(ev)! } : {}),
        },
        status: { code: "unset" },
        events: [],
      },
    ];
  }

  private open<T>(run: RunTrace, map: Map<string, T>, key: string, value: T): SpanRecord[] {
    map.set(key, value);
    if (map.size > MAX_OPEN) map.delete(map.keys().next().value!);
    return [];
  }

  private async onToolEnd(run: RunTrace, ev: StoredEventOf<"tool.result" | "tool.error">): Promise<SpanRecord[]> {
    const p = ev.payload;
    const key = `${ev.task_id}/${p.call_id}`;
    const opened = run.tools.get(key);
    run.tools.delete(key);
    const endMs = ms(ev);
    // Not seen opened: the result says how long the call took.
    const startMs = opened?.startMs ?? endMs - (typeof p.duration_ms === "number" ? p.duration_ms : 0);
    const server_id = opened?.server_id ?? p.server_id;
    const t = await this.taskSpan(run, ev.task_id);
    const attributes: Attributes = {
      [ATTR.OPERATION_NAME]: "execute_tool",
      [ATTR.TOOL_NAME]: p.tool,
      [ATTR.TOOL_CALL_ID]: p.call_id,
      // An MCP server's tool is an extension the agent calls out to; Clutch's own (submit_result, delegate…) are functions.
      [ATTR.TOOL_TYPE]: server_id || p.tool.startsWith("mcp:") ? "extension" : "function",
      ...(server_id ? { [ATTR.TOOL_SERVER_ID]: server_id } : {}),
      ...this.agent(opened?.from ?? t?.assignee ?? null),
      ...this.ids(run, ev.task_id),
      ...(nodeOf(ev) ? { [ATTR.HOST_NAME]: nodeOf(ev)! } : {}),
    };
    let status: SpanRecord["status"] = { code: "unset" };
    if (isEvent(ev, "tool.error")) {
      attributes[ATTR.ERROR_TYPE] = ev.payload.code;
      status = { code: "error", message: `${ev.payload.code}: ${ev.payload.message}` };
    }
    return [
      {
        ...this.base(run),
        spanId: spanIdOf("tool", run.run_id, ev.task_id, p.call_id),
        parent: { spanId: t?.spanId ?? run.spanId, remote: false },
        name: `execute_tool ${p.tool}`,
        kind: "internal",
        startMs,
        endMs,
        attributes,
        status,
        events: [],
      },
    ];
  }

  private async onDecision(run: RunTrace, ev: StoredEventOf<"approval.granted" | "approval.rejected" | "approval.expired">): Promise<SpanRecord[]> {
    const id = ev.payload.approval_id;
    let opened = run.approvals.get(id);
    if (!opened) {
      const req = await this.lookup.approvalRequest(id);
      if (!req) return [];
      opened = { task_id: req.task_id, startMs: ms(req), from: req.from.agent_id, payload: req.payload, events: [] };
    }
    if (isEvent(ev, "approval.expired") && ev.payload.outcome === "escalated") {
      // Still waiting, on other people now.
      if (opened.events.length < MAX_SPAN_EVENTS) opened.events.push({ name: "approval.escalated", timeMs: ms(ev), attributes: { [ATTR.APPROVAL_ESCALATED_TO]: ev.payload.escalated_to ?? [] } });
      run.approvals.set(id, opened);
      return [];
    }
    run.approvals.delete(id);
    const outcome = ev.type === "approval.granted" ? "granted" : ev.type === "approval.rejected" ? "rejected" : "expired";
    const by = "by" in ev.payload && typeof ev.payload.by === "string" ? ev.payload.by : null;
    const subject = opened.payload.subject;
    const t = await this.taskSpan(run, opened.task_id);
    return [
      {
        ...this.base(run),
        spanId: spanIdOf("approval", run.run_id, id),
        parent: { spanId: t?.spanId ?? run.spanId, remote: false },
        name: `await_approval ${subject.tool ?? subject.kind}`,
        kind: "internal",
        startMs: opened.startMs,
        endMs: ms(ev),
        attributes: {
          [ATTR.WAIT]: "approval",
          [ATTR.WAIT_OUTCOME]: outcome,
          [ATTR.APPROVAL_ID]: id,
          [ATTR.APPROVAL_KIND]: subject.kind,
          [ATTR.APPROVAL_SUMMARY]: opened.payload.summary,
          ...(subject.tool ? { [ATTR.TOOL_NAME]: subject.tool } : {}),
          ...(opened.payload.rule ? { [ATTR.APPROVAL_RULE]: opened.payload.rule } : {}),
          ...(by ? { [ATTR.DECIDED_BY]: by } : {}),
          ...this.agent(subject.agent),
          ...this.ids(run, opened.task_id),
        },
        status: { code: "unset" },
        events: opened.events,
      },
    ];
  }

  private async onChat(run: RunTrace, ev: StoredEventOf<"chat.message">): Promise<SpanRecord[]> {
    const p = ev.payload;
    const out: SpanRecord[] = [];
    if (typeof p.reply_to === "string" && !run.answered.has(p.reply_to)) {
      let q = run.questions.get(p.reply_to);
      if (!q && ev.to.length > 0) {
        const asked = await this.lookup.eventInRun(run.run_id, p.reply_to);
        if (asked && isQuestionToPeople(asked)) q = { task_id: asked.task_id, startMs: ms(asked), from: asked.from.agent_id, to: asked.to.map((r) => r.agent_id) };
      }
      if (q) {
        run.questions.delete(p.reply_to);
        run.answered.add(p.reply_to);
        if (run.answered.size > MAX_OPEN) run.answered.delete(run.answered.values().next().value!);
        const t = await this.taskSpan(run, q.task_id);
        out.push(this.questionRecord(run, p.reply_to, q, t, ms(ev), { [ATTR.WAIT_OUTCOME]: "answered", [ATTR.ANSWERED_BY]: ev.from.agent_id }));
      }
    }
    if (isQuestionToPeople(ev)) this.open(run, run.questions, ev.id, { task_id: ev.task_id, startMs: ms(ev), from: ev.from.agent_id, to: ev.to.map((r) => r.agent_id) });
    return out;
  }

  private questionRecord(run: RunTrace, id: string, q: Opened & { to: string[] }, t: TaskSpan | null, endMs: number, extra: Attributes): SpanRecord {
    return {
      ...this.base(run),
      spanId: spanIdOf("question", run.run_id, id),
      parent: { spanId: t?.spanId ?? run.spanId, remote: false },
      name: "await_answer",
      kind: "internal",
      startMs: q.startMs,
      endMs,
      attributes: {
        [ATTR.WAIT]: "answer",
        [ATTR.QUESTION_ID]: id,
        [ATTR.QUESTION_TO]: q.to,
        ...extra,
        ...this.agent(q.from),
        ...this.ids(run, q.task_id),
      },
      status: { code: "unset" },
      events: [],
    };
  }
}

/**
 * `span` without what people or agents wrote: PRIVATE for the run's title (in its name too),
 * a task's title, an approval's summary, a cancel's reason, and an error's message (its code
 * stays, as `<code>: (private)`). Ids, agents, tools, models, figures and times stay.
 */
export function withoutContent(span: SpanRecord): SpanRecord {
  const attributes: Attributes = { ...span.attributes };
  for (const key of CONTENT_ATTRIBUTES) if (key in attributes) attributes[key] = PRIVATE;
  const errorType = attributes[ATTR.ERROR_TYPE];
  const status = span.status.code === "error" && typeof errorType === "string" ? { code: "error" as const, message: `${errorType}: ${PRIVATE}` } : span.status;
  const name = attributes[ATTR.OPERATION_NAME] === "invoke_workflow" ? `invoke_workflow ${PRIVATE}` : span.name;
  return { ...span, name, attributes, status };
}

/** The agent a task.request gives the task to (none while it goes to the router). */
function assigneeOf(ev: StoredEventOf<"task.request">): string | null {
  const to = ev.to[0]?.agent_id;
  return to && to !== ORCHESTRATOR_ID ? to : null;
}

function stateOf(ev: StoredEvent): TaskState {
  return ev.type === "task.result" ? "succeeded" : ev.type === "task.error" ? "failed" : ev.type === "task.timeout" ? "timed_out" : "cancelled";
}

/** A chat.message that waits for people's answer (lib/fold/questions.ts). */
function isQuestionToPeople(ev: StoredEvent): ev is StoredEventOf<"chat.message"> {
  return isEvent(ev, "chat.message") && ev.payload.expects_reply === true && ev.to.some(isPeopleRecipient);
}

/** The node that stored `ev` (`meta.node`, CLUTCH_NODE_NAME), if it says. */
function nodeOf(ev: StoredEvent): string | undefined {
  const node = ev.meta?.node;
  return typeof node === "string" && node ? node : undefined;
}
