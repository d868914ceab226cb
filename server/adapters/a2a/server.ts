/**
 * Clutch as an A2A server (Clutch Protocol §7.2, docs/adapters.md "A2A"), on the official
 * `@a2a-js/sdk` (JSON-RPC; A2A 1.0 and, for clients such as LangGraph's and CrewAI's, the v0.3
 * method names `message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`).
 *
 *   GET  /.well-known/agent-card.json                 the workspace: one skill per exposed agent
 *   GET  /a2a/agents/<name>/.well-known/agent-card.json  one exposed agent
 *   POST /a2a                 JSON-RPC to the workspace: a message goes to the agent it @mentions,
 *                             the capabilities it @mentions (routed, §4.2), or the channel's entry agent
 *   POST /a2a/agents/<name>   JSON-RPC to that agent
 *
 * The cards name the address the client reached (see `cardOrigin`): CLUTCH_PUBLIC_URL when it is
 * set, else the request's Host (over http, or https on a TLS socket), or the X-Forwarded-Host and
 * X-Forwarded-Proto a proxy of CLUTCH_TRUSTED_PROXIES sent; so a client on another machine
 * follows the card's url back to where it found the card.
 *
 * Every call is authenticated with a Clutch API key (`Authorization: Bearer clk_…`, a person's or
 * an agent's; docs/identity.md) that may read the channel, and counts against the key's writes a
 * minute (429 with Retry-After beyond; docs/limits.md). A message starts a run in the channel
 * `a2a.channel` of workspace.json names (default: the workspace's first), where people watch it
 * live like any other: the caller is its requester. The run streams back as the A2A task:
 *   task.progress of any of its tasks   → status-update working, "<agent>: <message>"
 *   a question to people in the run     → input-required; the caller's next message on the task
 *                                         is the answer (a reply to the question in the channel)
 *   the root task's result              → artifact "result" (the report, and its data) + completed
 *   its error / timeout / cancel        → failed / failed / canceled
 *   tasks/cancel                        → the run is cancelled in Clutch (docs/lifecycle.md)
 * A blocking `message/send` (the default; not `blocking: false` / `returnImmediately`) answers
 * when the task completes, fails or waits for input, or after at most CLUTCH_A2A_BLOCKING_SEC
 * seconds (30 by default; docs/limits.md) with the task as it stands then (`working`): the run
 * goes on, and the caller follows it with tasks/get or tasks/resubscribe.
 * The A2A tasks are kept in the database (`a2a_tasks`, ./tasks.ts), so any node of the deployment
 * serves them, also after a restart: tasks/get and ListTasks (each caller's own), tasks/cancel (a
 * node that runs no execution of the task cancels its run here, then marks it canceled) and the
 * answer to input-required. A node without the task's link to its run rebuilds it from the
 * task's `metadata.clutch` (run, root task, thread, caller) and the log (the question: the run's
 * newest unanswered question to people). When the app is created, each endpoint follows again the
 * runs of its tasks still submitted or working and writes their question or end into the record
 * (RunExecutor.resume; several nodes write the same, and an ended task never changes).
 * tasks/resubscribe streams live on any node: the node running the task's message from its
 * execution, another node from the run's events in the log (its tail), as the executor would.
 * A task is found at the endpoint that took it and at the workspace endpoint `/a2a` (tasks/get,
 * ListTasks, tasks/cancel, tasks/resubscribe, the answer to its question), always the caller's own
 * only: the endpoints of one app share the executions running on this node and their run links.
 * A W3C `traceparent` header on the call that starts a run puts the run under the caller's trace
 * when traces are exported (docs/observability.md "Traces (OpenTelemetry)").
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import express, { type Request, type Response, type NextFunction } from "express";
import { z } from "zod";
import { AgentCard, Role, TaskState, type AgentSkill, type Message, type Task, type TaskStatus } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultExecutionEventBus,
  DefaultExecutionEventBusManager,
  ExecutionEventQueue,
  type AgentExecutionEvent,
  DefaultRequestHandler,
  ResultManager,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type TaskStore,
  type User,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { isEvent, newId, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { Principal } from "../../auth/principal";
import type { ClutchParts } from "../parts";
import { cancelRun } from "../../lifecycle/cancel";
import { followRun, remoteAnswer, requester, startRemoteRun } from "../../runs/remote";
import { log } from "../../log";
import { countWrite } from "../../http/write-limit";
import { callerTraceMeta, type TraceMeta } from "../../telemetry";
import { trustedOrigins } from "../../auth/origins";
import type { TrustedProxies } from "../../http/client-address";
import { partsText, textPart } from "./client";
import type { A2ATaskRecords, StoredA2ATask } from "./tasks";

/** How long a blocking message/send waits for its task to finish by default (seconds; docs/limits.md). */
export const A2A_BLOCKING_SEC = 30;

/** The caller, as the SDK carries it into the executor. */
class ClutchUser implements User {
  /** `trace`: the caller's W3C trace context (its traceparent header), for the run it starts. */
  constructor(
    readonly principal: Principal,
    readonly trace?: TraceMeta,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.principal.agent_id;
  }
}

/** A task's caller when a node acts for them without a call (following a run again at start). */
class OwnerUser implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

/** An A2A task's Clutch run, and the question it waits on. */
interface RunLink {
  run_id: string;
  task_id: string;
  thread_id: string;
  question_id: string | null;
  /** Who started it over A2A: a cancel is theirs. */
  caller: ReturnType<typeof requester>;
  /** The A2A task's context id. */
  context_id: string;
}

/**
 * What an A2A task's `metadata.clutch` holds: its run, who started it (to act for them on any
 * node), and while it waits for input the question it waits on.
 */
interface ClutchTaskMeta {
  run_id: string;
  /** The run's root task. */
  task_id: string;
  thread_id: string;
  channel: string;
  caller: RunLink["caller"];
  /** The chat.message the task's input-required asks (set with that state). */
  question_id?: string;
}

/** The `metadata.clutch` of a stored task, or null when it lacks any of its fields (a task that never started a run). */
function clutchMetaOf(task: Task): ClutchTaskMeta | null {
  const m = (task.metadata as { clutch?: Record<string, unknown> } | undefined)?.clutch;
  const str = (v: unknown): v is string => typeof v === "string" && v.length > 0;
  const c = m?.caller as Record<string, unknown> | undefined;
  if (!m || !str(m.run_id) || !str(m.task_id) || !str(m.thread_id) || !c || !str(c.agent_id) || (c.role !== "human" && c.role !== "worker")) return null;
  const caller: RunLink["caller"] = { agent_id: c.agent_id, role: c.role, ...(str(c.display_name) ? { display_name: c.display_name } : {}) };
  return { run_id: m.run_id, task_id: m.task_id, thread_id: m.thread_id, channel: str(m.channel) ? m.channel : "", caller, ...(str(m.question_id) ? { question_id: m.question_id } : {}) };
}

const isQuestion = (e: StoredEvent): e is StoredEventOf<"chat.message"> => isEvent(e, "chat.message") && Boolean(e.payload.expects_reply) && e.to.some((t) => t.agent_id === "user");

const now = () => new Date().toISOString();
const agentText = (text: string, taskId: string, contextId: string): Message => ({
  messageId: newId("message"),
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  taskId,
  contextId,
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
});

/** The A2A events of a run's root task ending: the result artifact then completed, or failed / canceled. */
function endedEvents(ev: StoredEventOf<"task.result" | "task.error" | "task.timeout" | "task.cancel">, ids: { taskId: string; contextId: string }): AgentExecutionEvent[] {
  const update = (state: TaskState, message?: string) =>
    AgentEvent.statusUpdate({ ...ids, status: { state, timestamp: now(), message: message ? agentText(message, ids.taskId, ids.contextId) : undefined }, metadata: {} });
  if (isEvent(ev, "task.result")) {
    const p = ev.payload as Record<string, unknown>;
    const report = typeof p.report_markdown === "string" ? p.report_markdown : typeof p.summary === "string" ? p.summary : "Done.";
    return [
      AgentEvent.artifactUpdate({
        ...ids,
        artifact: { artifactId: "result", name: "result", description: typeof p.summary === "string" ? p.summary : "", parts: [textPart(report), { content: { $case: "data", value: p }, metadata: undefined, filename: "", mediaType: "application/json" }], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
      update(TaskState.TASK_STATE_COMPLETED, typeof p.summary === "string" ? p.summary : undefined),
    ];
  }
  if (isEvent(ev, "task.cancel")) return [update(TaskState.TASK_STATE_CANCELED, ev.payload.reason ?? "Cancelled")];
  return [update(TaskState.TASK_STATE_FAILED, isEvent(ev, "task.error") ? `${ev.payload.code}: ${ev.payload.message}` : "The task timed out")];
}

/**
 * Carries an A2A message into a Clutch run and the run's events back as the A2A task. The link
 * from a task to its run is kept in memory while this node serves the task, and rebuilt from the
 * stored task's `metadata.clutch` and the log when it has none (after a restart, on another node).
 */
class RunExecutor implements AgentExecutor {
  /** The A2A task each incoming message went to (message id → task id), for a bounded message/send. */
  private readonly taskOfMessage = new Map<string, string>();

  /** The A2A task message `messageId` went to, once its execution started. */
  taskOf(messageId: string): string | undefined {
    return this.taskOfMessage.get(messageId);
  }

  /**
   * `target`: the exposed agent this endpoint is (null: the workspace, which routes). `links`: the
   * run links of this node's tasks (A2A task id → link), shared by the app's endpoints so that one
   * cancels or answers a task another took.
   */
  constructor(
    private readonly clutch: ClutchParts,
    private readonly channel: { thread_id: string; name: string; entry_agent: string | null },
    private readonly target: string | null,
    private readonly links: Map<string, RunLink>,
  ) {}

  /**
   * The link of stored task `task` to its run, rebuilt from its `metadata.clutch` (the record is
   * the same on every node, this node's memory may be behind another's) and kept as this node's.
   * When the task waits for input, the question is the one its record names, else the run's newest
   * unanswered question to people (else its newest), read from the log. Null for a task without a run.
   */
  private async linkOf(task: Task): Promise<RunLink | null> {
    const meta = clutchMetaOf(task);
    if (!meta) return null;
    let question_id: string | null = null;
    if (task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED && meta.question_id) question_id = meta.question_id;
    else if (task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      const events = await this.clutch.store.readAll({ run_id: meta.run_id });
      const answered = new Set(events.flatMap((e) => (isEvent(e, "chat.message") && e.payload.reply_to ? [e.payload.reply_to] : [])));
      const questions = events.filter(isQuestion);
      question_id = (questions.findLast((q) => !answered.has(q.id)) ?? questions.at(-1))?.id ?? null;
    }
    const link: RunLink = { run_id: meta.run_id, task_id: meta.task_id, thread_id: meta.thread_id, question_id, caller: meta.caller, context_id: task.contextId };
    this.links.set(task.id, link);
    return link;
  }

  /**
   * tasks/cancel in any state answers at once: the run is cancelled in Clutch, and the task says
   * canceled. While a run streams, its task.cancel does that (follow); a task waiting for input
   * follows nothing, so its canceled status is published here.
   */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const link = this.links.get(taskId);
    const canceled = (contextId: string) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_CANCELED, timestamp: now(), message: agentText("Cancelled over A2A", taskId, contextId) }, metadata: {} }));
    if (!link) return canceled("");
    const ended = await this.cancelRun(link);
    if (ended || link.question_id) canceled(link.context_id);
  };

  /**
   * tasks/cancel of a task this node follows nothing of (it runs no execution of it): its run is
   * cancelled in Clutch when it goes on; the SDK then marks the stored task canceled.
   */
  async cancelStored(task: Task): Promise<void> {
    const link = this.links.get(task.id) ?? (await this.linkOf(task));
    if (link) await this.cancelRun(link);
  }

  /** Cancel `link`'s run in Clutch unless it has ended; true when it had ended (or is gone). */
  private async cancelRun(link: RunLink): Promise<boolean> {
    const run = await this.clutch.store.queries.run(link.run_id);
    if (!run || run.ended_at) return true;
    await cancelRun(this.clutch.store, link.run_id, link.caller, "cancelled over A2A");
    return false;
  }

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.taskOfMessage.set(rc.userMessage.messageId, rc.taskId);
    try {
      await this.run(rc, bus);
    } finally {
      this.taskOfMessage.delete(rc.userMessage.messageId);
    }
  }

  /** Start the run (or answer its question) and stream it back as the A2A task. */
  private async run(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { principal, trace } = rc.context.user as ClutchUser;
    const text = partsText(rc.userMessage.parts).trim();
    const { taskId, contextId } = rc;
    const status = (state: TaskState, message?: string): TaskStatus => ({ state, timestamp: now(), message: message ? agentText(message, taskId, contextId) : undefined });
    const update = (state: TaskState, message?: string) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: {} }));

    let link: RunLink | null;
    let after: number;
    if (rc.task) {
      bus.publish(AgentEvent.task(rc.task));
      link = await this.linkOf(rc.task);
      if (!link?.question_id) {
        update(TaskState.TASK_STATE_FAILED, "This task is not waiting for input; send a new message to start another.");
        return;
      }
      after = await this.answer(link, principal, text);
      link.question_id = null;
    } else {
      if (!text) {
        bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_REJECTED, "The message has no text part; say what you need."), artifacts: [], history: [rc.userMessage], metadata: {} }));
        return;
      }
      const started = await startRemoteRun(this.clutch, { principal, channel: this.channel, target: this.target, text, via: "a2a", key: rc.userMessage.messageId, trace });
      link = { run_id: started.run_id, task_id: started.task_id, thread_id: started.thread_id, question_id: null, caller: requester(principal), context_id: contextId };
      after = started.after;
      this.links.set(taskId, link);
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [rc.userMessage], metadata: { clutch: { ...this.metaOf(link) } } }));
      update(TaskState.TASK_STATE_WORKING); // the run has started in the channel
    }
    await this.follow(link, after, { taskId, contextId }, bus, update);
  }

  /**
   * The caller's answer to the run's question, as a reply in the channel, unless someone answered
   * it there already. Returns the question's seq: the task follows the run from there, so what
   * came after an earlier answer (even the run's end) reaches the caller too.
   */
  private async answer(link: RunLink, p: Principal, text: string): Promise<number> {
    const { store } = this.clutch;
    const question = await store.queries.eventInThread(link.thread_id, link.question_id!);
    if (!question) throw new Error(`question ${link.question_id} is gone`);
    if (!(await this.answered(question))) {
      await store.append(remoteAnswer(p, question, text));
    }
    return question.seq;
  }

  /** The `metadata.clutch` of `link`'s task. */
  private metaOf(link: RunLink, question_id?: string): ClutchTaskMeta {
    return { run_id: link.run_id, task_id: link.task_id, thread_id: link.thread_id, channel: this.channel.name, caller: link.caller, ...(question_id ? { question_id } : {}) };
  }

  /** The task's input-required with `question`, which its record names (metadata.clutch.question_id) for any node to answer. */
  private asking(link: RunLink, question: StoredEventOf<"chat.message">, ids: { taskId: string; contextId: string }): AgentExecutionEvent {
    const status: TaskStatus = { state: TaskState.TASK_STATE_INPUT_REQUIRED, timestamp: now(), message: agentText(question.payload.text, ids.taskId, ids.contextId) };
    return AgentEvent.statusUpdate({ ...ids, status, metadata: { clutch: { ...this.metaOf(link, question.id) } } });
  }

  /** Whether someone replied to `question` in the run. */
  private async answered(question: StoredEvent): Promise<boolean> {
    const since = await this.clutch.store.readAll({ run_id: question.run_id }, question.seq);
    return since.some((e) => isEvent(e, "chat.message") && e.payload.reply_to === question.id);
  }

  /** Stream the run's events after `after` as the A2A task's, until its root ends or a question waits for the caller. */
  private follow(link: RunLink, after: number, ids: { taskId: string; contextId: string }, bus: ExecutionEventBus, update: (s: TaskState, m?: string) => void, signal?: AbortSignal): Promise<void> {
    return followRun(this.clutch, link, after, {
      progress: (ev) => update(TaskState.TASK_STATE_WORKING, `${ev.from.agent_id.replace(/^agent:/, "")}: ${ev.payload.message}`),
      question: (ev) => {
        link.question_id = ev.id;
        bus.publish(this.asking(link, ev, ids));
        return true;
      },
      ended: (ev) => {
        for (const e of endedEvents(ev, ids)) bus.publish(e);
      },
      failed: (err) => {
        log.error({ err, run_id: link.run_id }, "A2A: reading the run failed");
        update(TaskState.TASK_STATE_FAILED, "Clutch could not read the run");
      },
    }, signal);
  }

  /**
   * Stream the run of stored task `task` as its executor would (progress, a question, the end)
   * into `bus`, from what the log holds after the run's current end: for a tasks/resubscribe on a
   * node that runs no execution of the task. Resolves when the run ends or asks, or `signal` aborts.
   */
  async followElsewhere(task: Task, bus: ExecutionEventBus, signal: AbortSignal): Promise<void> {
    const link = this.links.get(task.id) ?? (await this.linkOf(task));
    if (!link) return;
    const ids = { taskId: task.id, contextId: task.contextId };
    const update = (state: TaskState, message?: string) =>
      bus.publish(AgentEvent.statusUpdate({ ...ids, status: { state, timestamp: now(), message: message ? agentText(message, ids.taskId, ids.contextId) : undefined }, metadata: {} }));
    const run = await this.clutch.store.queries.run(link.run_id);
    await this.follow(link, Number(run?.last_seq ?? 0), ids, bus, update, signal);
  }

  /**
   * Follow again the runs of `endpoint`'s stored tasks that neither ended nor wait for input (at
   * start: no node may follow them any more), and write into `tasks`, as their callers' tasks,
   * what the executor would have published: input-required at the run's first unanswered
   * question, or its end (the result artifact and completed, failed, canceled). Safe on several
   * nodes at once: the updates are the same whoever writes them, and a task that ended stays so.
   * Resolves when every such run has reached a question or its end.
   */
  async resume(records: A2ATaskRecords, endpoint: string, tasks: TaskStore): Promise<void> {
    const unfinished = await records.unfinished(endpoint);
    await Promise.all(unfinished.map((stored) => this.resumeOne(stored, tasks).catch((err: unknown) => log.error({ err, taskId: stored.task.id }, "A2A: following a task's run again failed"))));
  }

  private async resumeOne({ task, tenant, owner }: StoredA2ATask, tasks: TaskStore): Promise<void> {
    const link = await this.linkOf(task);
    if (!link) return;
    const ids = { taskId: task.id, contextId: task.contextId };
    const results = new ResultManager(tasks, new ServerCallContext({ user: new OwnerUser(owner), tenant }));
    const stop = new AbortController();
    let over = false;
    // Events are written in the run's order, one at a time; a question counts only when still unanswered.
    let writes = Promise.resolve();
    const write = (step: () => Promise<AgentExecutionEvent[] | null>) => {
      writes = writes.then(async () => {
        if (over) return;
        const events = await step();
        if (!events) return;
        over = true;
        stop.abort();
        for (const e of events) await results.processEvent(e);
      });
    };
    await followRun(
      this.clutch,
      link,
      0,
      {
        question: (ev) => {
          write(async () => {
            if (await this.answered(ev)) return null;
            link.question_id = ev.id;
            return [this.asking(link, ev, ids)];
          });
          return false;
        },
        ended: (ev) => write(async () => endedEvents(ev, ids)),
        failed: (err) => log.warn({ err, run_id: link.run_id, taskId: task.id }, "A2A: reading a task's run again failed; the next start tries again"),
      },
      stop.signal,
    );
    await writes;
  }
}

type SendParams = Parameters<DefaultRequestHandler["sendMessage"]>;
type CancelParams = Parameters<DefaultRequestHandler["cancelTask"]>;
type ResubscribeParams = Parameters<DefaultRequestHandler["resubscribe"]>;

/**
 * The SDK's request handler with a bound on a blocking message/send (see the module doc): after
 * `boundMs` it answers with the task as the task store has it then, while the run and the
 * SDK's processing of its events go on (tasks/get reads the same store). A tasks/cancel of a
 * task this node runs no execution of (it was sent to another node, or before a restart)
 * cancels its run in Clutch too. `buses`: the executions running on this node, shared by the
 * app's endpoints (a task is cancelled or resubscribed at another endpoint than the one that took it).
 */
class BoundedRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: TaskStore,
    private readonly executor: RunExecutor,
    private readonly boundMs: number,
    private readonly buses: DefaultExecutionEventBusManager,
  ) {
    super(card, tasks, executor, buses);
  }

  override async sendMessage(params: SendParams[0], context: SendParams[1]): ReturnType<DefaultRequestHandler["sendMessage"]> {
    const whole = super.sendMessage(params, context);
    if (params.configuration?.returnImmediately === true) return whole;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<"bound">((resolve) => {
      timer = setTimeout(() => resolve("bound"), this.boundMs);
    });
    try {
      const first = await Promise.race([whole, bound]);
      if (first !== "bound") return first;
    } finally {
      clearTimeout(timer);
    }
    const taskId = params.message ? this.executor.taskOf(params.message.messageId) : undefined;
    const task = taskId ? await this.tasks.load(taskId, context) : undefined;
    if (!task) return whole; // nothing started yet to show: wait for it after all
    whole.catch((err: unknown) => log.warn({ err, taskId }, "A2A: a message/send answered at its bound failed later"));
    return task;
  }

  /**
   * tasks/resubscribe of a task this node runs no execution of (another node took its message, or
   * it was before a restart): the task as stored, then its run live from the log until it ends or
   * asks for input. Otherwise (an execution here, an ended task, one waiting for input) the SDK's.
   */
  override async *resubscribe(params: ResubscribeParams[0], context: ResubscribeParams[1]): ReturnType<DefaultRequestHandler["resubscribe"]> {
    const id = typeof params?.id === "string" ? params.id : "";
    const task = id && !this.buses.getByTaskId(id, context) ? await this.tasks.load(id, context) : undefined;
    const state = task?.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    if (!task || TERMINAL_STATES.includes(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      yield* super.resubscribe(params, context);
      return;
    }
    yield { payload: { $case: "task", value: task } };
    const bus = new DefaultExecutionEventBus();
    const queue = new ExecutionEventQueue(bus);
    const stop = new AbortController();
    const following = this.executor.followElsewhere(task, bus, stop.signal).finally(() => bus.finished());
    try {
      for await (const event of queue.events()) {
        if (event.kind === "statusUpdate") yield { payload: { $case: "statusUpdate", value: event.data } };
        else if (event.kind === "artifactUpdate") yield { payload: { $case: "artifactUpdate", value: event.data } };
      }
    } finally {
      stop.abort();
      queue.stop();
      await following;
    }
  }

  override async cancelTask(params: CancelParams[0], context: CancelParams[1]): ReturnType<DefaultRequestHandler["cancelTask"]> {
    if (typeof params?.id === "string" && params.id && !this.buses.getByTaskId(params.id, context)) {
      const task = await this.tasks.load(params.id, context);
      if (task && !TERMINAL_STATES.includes(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) await this.executor.cancelStored(task);
    }
    return super.cancelTask(params, context);
  }
}

const TERMINAL_STATES: readonly TaskState[] = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED];

/**
 * The A2A card of a Clutch endpoint. Served as A2A 1.0 JSON (the ProtoJSON form the SDK's
 * `AgentCard.fromJSON` reads, e.g. `securitySchemes.clutchKey.httpAuthSecurityScheme`): the SDK's
 * card handler writes the card with JSON.stringify, which would otherwise write its in-memory
 * form (`{ $case, value }`); its 0.3 handler reads the in-memory form as before.
 */
function cardOf(base: string, endpoint: string, name: string, description: string, skills: AgentSkill[]): AgentCard {
  const card = inMemoryCard(base, endpoint, name, description, skills);
  Object.defineProperty(card, "toJSON", { value: () => AgentCard.toJSON(card), enumerable: false });
  return card;
}

function inMemoryCard(base: string, endpoint: string, name: string, description: string, skills: AgentSkill[]): AgentCard {
  return {
    name,
    description,
    supportedInterfaces: duplicateInterfacesForLegacy([{ url: `${base}${endpoint}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }], ["JSONRPC"]),
    provider: { organization: "Clutch", url: base },
    version: "0.1.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: { clutchKey: { scheme: { $case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "clk_… (a Clutch API key)", description: "A person's or an agent's Clutch API key" } } } },
    securityRequirements: [{ schemes: { clutchKey: { list: [] } } }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills,
    signatures: [],
  };
}

/**
 * Where the A2A cards say Clutch is: `publicUrl` (CLUTCH_PUBLIC_URL) when set; else the address
 * each request reached, with `trustedProxies` (CLUTCH_TRUSTED_PROXIES) the proxies whose
 * X-Forwarded-Host and X-Forwarded-Proto are believed, and `port` the server's own, for a request
 * that names no usable host.
 */
export interface A2AAddress {
  publicUrl?: string;
  port: number;
  trustedProxies?: TrustedProxies;
}

/** The scheme an X-Forwarded-Proto may give. */
const ForwardedProto = z.enum(["http", "https"]);

/** The first value of a header that may be repeated or a comma-separated list (as proxies append), trimmed; undefined when empty. */
function firstValue(header: string | string[] | undefined): string | undefined {
  const v = (Array.isArray(header) ? header[0] : header)?.split(",")[0]?.trim();
  return v || undefined;
}

/** What the cards name without a request: the public URL (no trailing slash), else http://localhost:<port>. */
function fallbackOrigin(where: A2AAddress): string {
  return where.publicUrl ? where.publicUrl.replace(/\/+$/, "") : `http://localhost:${where.port}`;
}

/**
 * The origin (or, with CLUTCH_PUBLIC_URL, the URL) the A2A cards name for `req`, without a
 * trailing slash. With `where.publicUrl`, that. Else the host the client reached, as sign-in's
 * origin rule reads it (server/auth/origins.ts: the Host header, over http): the request's Host,
 * with https when it came over TLS; when the TCP peer is one of `where.trustedProxies`, its
 * X-Forwarded-Host (the first, the client's) instead of the Host and its X-Forwarded-Proto
 * (http or https) as the scheme. Any client can send those headers: from any other peer they are
 * never read. A request without a usable host gets http://localhost:<port>.
 */
export function cardOrigin(req: IncomingMessage, where: A2AAddress): string {
  if (where.publicUrl) return fallbackOrigin(where);
  const peer = req.socket.remoteAddress;
  const proxied = Boolean(peer && where.trustedProxies?.has(peer));
  const host = (proxied ? firstValue(req.headers["x-forwarded-host"]) : undefined) ?? firstValue(req.headers.host);
  const proto = proxied ? ForwardedProto.safeParse(firstValue(req.headers["x-forwarded-proto"])?.toLowerCase()) : null;
  const scheme = proto?.success ? proto.data : (req.socket as Partial<TLSSocket>).encrypted ? "https" : "http";
  let origin: string | undefined;
  try {
    origin = host ? trustedOrigins(new Request("http://localhost/", { headers: { host } }), {})[0] : undefined;
  } catch {
    origin = undefined; // a Host no Request can carry: no usable host
  }
  if (!origin) return fallbackOrigin(where);
  const url = new URL(origin);
  url.protocol = `${scheme}:`;
  return url.origin;
}

/**
 * The Express app of Clutch's A2A endpoints (see the module doc). `address`: where the cards say
 * Clutch is (see `A2AAddress` and `cardOrigin`); a string is a fixed public URL, as
 * CLUTCH_PUBLIC_URL. `opts.blockingSec`:
 * the bound of a blocking message/send in seconds (server.ts passes CLUTCH_A2A_BLOCKING_SEC, checked by
 * server/config.ts; default A2A_BLOCKING_SEC). Without a workspace
 * channel there is nothing to start runs in: every path answers 404. The tasks are `clutch.a2aTasks`'
 * (the database); creating the app starts following again the runs of those still submitted or
 * working (see the module doc), in the background: a failure there is logged, never thrown.
 */
export function a2aApp(clutch: ClutchParts, address: string | A2AAddress, opts: { blockingSec?: number } = {}): express.Express {
  const where: A2AAddress = typeof address === "string" ? { publicUrl: address, port: 0 } : address;
  const boundMs = (opts.blockingSec ?? A2A_BLOCKING_SEC) * 1000;
  const app = express();
  app.disable("x-powered-by");
  const settings = clutch.workspace.a2a;
  const channel = clutch.channels.find((c) => c.name === (settings.channel ?? clutch.channels[0]?.name));
  const exposed = [...clutch.workspace.agents.values()].filter((a) => settings.expose === "all" || settings.expose.includes(a.manifest.id));
  const notFound = (res: Response, message: string) => res.status(404).json({ error: { code: "not_found", message } });
  if (!channel) {
    app.use((_req, res) => notFound(res, "This Clutch has no workspace channel to run A2A requests in (workspace.json a2a.channel)"));
    return app;
  }
  const skillOf = (a: (typeof exposed)[number]): AgentSkill => ({
    id: a.manifest.id,
    name: a.card.display.name,
    description: a.card.display.desc ?? a.manifest.system_prompt.split("\n")[0]!.slice(0, 300),
    tags: a.card.capabilities.map((c) => c.id),
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  });

  const authenticate = async (req: Request, res: Response, next: NextFunction) => {
    const principal = await clutch.identity.authenticate(new Headers(req.headers as Record<string, string>)).catch(() => null);
    const reject = (status: number, message: string) => res.status(status).json({ jsonrpc: "2.0", id: null, error: { code: -32001, message } });
    if (!principal) return reject(401, "A2A calls to Clutch need a Clutch API key: Authorization: Bearer clk_… (docs/identity.md)");
    if (!(await clutch.identity.channels.canRead(principal, channel.thread_id))) return reject(403, `${principal.agent_id} may not use #${channel.name}, where A2A requests run`);
    const limited = await countWrite(principal.agent_id);
    if (limited) {
      // HTTP 429 with Retry-After (whole seconds), the body a JSON-RPC error (docs/limits.md).
      res.setHeader("retry-after", String(limited.wait_sec));
      return reject(429, `too many calls: at most ${limited.per_minute} writes a minute for ${principal.agent_id}; nothing was done; retry in ${limited.wait_sec} s`);
    }
    res.locals.principal = principal;
    // The caller's traceparent puts the run it starts under its trace (docs/observability.md).
    res.locals.trace = await callerTraceMeta(new Headers(req.headers as Record<string, string>));
    next();
  };
  // Checking the caller failed (not a refusal): a logged JSON-RPC internal error, never Express's HTML page.
  const checkFailed = (err: unknown, req: Request, res: Response) => {
    log.error({ err, url: req.originalUrl }, "A2A: checking the caller failed");
    if (res.headersSent) return void res.destroy();
    res.status(500).json({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "something went wrong on the server; nothing was done; try again" } });
  };
  // The origin the card being served names: the request's (cardOrigin), for the SDK's card handler, which calls its provider without the request.
  const servedOrigin = new AsyncLocalStorage<string>();
  const fixedOrigin = fallbackOrigin(where);
  const serveCard = (path: string, cardAt: (origin: string) => AgentCard) => {
    const cards = agentCardHandler({ agentCardProvider: async () => cardAt(servedOrigin.getStore() ?? fixedOrigin), legacyCompat: { enabled: true } });
    app.use(path, (req, res, next) => servedOrigin.run(cardOrigin(req, where), () => cards(req, res, next)));
  };
  // The executions running on this node and their runs, shared by the endpoints: a task is found at the workspace's too.
  const buses = new DefaultExecutionEventBusManager();
  const links = new Map<string, RunLink>();
  const mount = (path: string, cardAt: (origin: string) => AgentCard, target: string | null) => {
    const tasks = clutch.a2aTasks.storeFor(path, { everyEndpoint: target === null });
    const executor = new RunExecutor(clutch, channel, target, links);
    const handler = new BoundedRequestHandler(cardAt(fixedOrigin), tasks, executor, boundMs, buses);
    // Tasks left working by a stopped node: their runs are followed again, to their question or end.
    void executor.resume(clutch.a2aTasks, path, tasks).catch((err: unknown) => log.error({ err, endpoint: path }, "A2A: following unfinished tasks again failed"));
    serveCard(`${path}/.well-known/agent-card.json`, cardAt);
    const rpc = jsonRpcHandler({ requestHandler: handler, userBuilder: async (req) => new ClutchUser((req.res as Response).locals.principal as Principal, (req.res as Response).locals.trace as TraceMeta | undefined), legacyCompat: { enabled: true } });
    // The endpoint itself only: a longer path under it (another agent's, one that does not exist) goes on.
    app.use(path, (req, res, next) => (req.path === "/" ? void authenticate(req, res, () => rpc(req, res, next)).catch((err: unknown) => checkFailed(err, req, res)) : next()));
  };
  for (const a of exposed) {
    mount(`/a2a/agents/${a.manifest.id}`, (origin) => cardOf(origin, `/a2a/agents/${a.manifest.id}`, a.card.display.name, skillOf(a).description, [skillOf(a)]), a.agent_id);
  }
  const workspaceCard = (origin: string) =>
    cardOf(origin, "/a2a", "Clutch", `The agents of this Clutch workspace, working in #${channel.name}. @mention an agent or a capability to choose who works on a request.`, exposed.map(skillOf));
  serveCard("/.well-known/agent-card.json", workspaceCard);
  mount("/a2a", workspaceCard, null);
  app.use((req, res) => notFound(res, `no A2A endpoint at ${req.path}; the workspace's card is at /.well-known/agent-card.json`));
  return app;
}

/** Whether a request path is one of the A2A endpoints'. */
export function isA2APath(pathname: string): boolean {
  return pathname === "/.well-known/agent-card.json" || pathname === "/a2a" || pathname.startsWith("/a2a/");
}
