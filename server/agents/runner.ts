/**
 * The agent loop (docs/architecture.md "From request to socket"): one loop for every agent,
 * driven by the log.
 *
 * `wake(agent_id, task_id)` schedules the instance that owns the task. A wake reads the run's
 * events (once, then only what was appended since: run-log.ts), rebuilds the instance's
 * conversation (conversation.ts), finishes any tool call the log shows as started but not
 * completed, and, when something new has arrived (the last message is not the agent's own turn
 * end), asks the model for its next step through the AI SDK (`streamText`, one step, tools
 * without execute). While the model writes, its text and the text of its reply, ask and
 * submit_result calls stream to the people watching (step-streams.ts), and its status says
 * what it does; the log still gets one event per message when the step is carried out. Each tool call of the step is carried out as events (actions.ts); the loop
 * goes on until the task ends (its result, an error, a cancel or timeout), waits for something
 * (an answer, a subtask, a review, an approval: the event that ends the wait wakes it again) or
 * hits `max_model_turns` (task.error TURN_LIMIT). There is no other cap, so no task stops in
 * silence. Nothing lives only in memory: after a restart, waking every unfinished task carries
 * each run on from its events.
 *
 * Every task ends (docs/lifecycle.md):
 *   - a turn that ends in text while the task waits for nothing (no open question, subtask or
 *     review) finishes the task with that text as its result, through submit_result like any
 *     other; a review task, which must submit a decision, and an empty answer get one nudge first,
 *     then a task.error;
 *   - a model call that fails for a passing reason (429, 5xx, network) is tried again with
 *     backoff, each retry a task.progress "retrying"; when every attempt failed, task.error
 *     MODEL_UNAVAILABLE (retryable) ends the task, and a person may retry it;
 *   - a task that took `max_model_turns` turns without finishing ends with task.error TURN_LIMIT;
 *   - `abort(agent_id, task_id)` (a cancel or timeout) stops the model call and any MCP call in
 *     flight at once; nothing after it is recorded as the task's outcome;
 *   - a new task.request for an ended task (a retry, attempt n) starts a new attempt that
 *     carries on from the recorded conversation.
 *
 * An agent whose manifest names another runtime (an A2A agent, a LangGraph graph) is scheduled
 * the same way; after task.accept its driver (driver.ts) does the work instead of the model loop.
 *
 * Instances: one per task (`<agent id>/<task id>`), each with its own conversation; an agent
 * runs at most `limits.max_concurrency` of them at once, others queue.
 */
import { z } from "zod";
import { jsonSchema, streamText, tool, type FinishReason, type LanguageModel, type LanguageModelUsage, type ModelMessage, type SystemModelMessage, type ToolSet } from "ai";
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { foldTask, TERMINAL_STATES, type TaskState, type TaskView } from "@/lib/fold/task-state";
import type { EventStore } from "../events/store";
import type { Workspace, WorkspaceAgent } from "../workspace/workspace";
import { log } from "../log";
import { perform } from "./actions";
import { taskContext, type ActionDeps, type TaskContext } from "./task-context";
import type { ToolCaller } from "../workspace/tools";
import { BUILTIN_TOOLS, expectedPayloadType, mcpToolName } from "./contract";
import type { SystemMeta } from "./models/system-meta";
import { buildConversation, parentsOf, stepMetaOf } from "./conversation";
import { describeModelError, isPassingModelError, retryNotice, withRetries } from "./retry";
import { modelEnvVar, ModelNotConfiguredError } from "./models/connect";
import { RunLog } from "./run-log";
import type { Gate, GateResult } from "../policy/approvals";
import type { BudgetOutcome, BudgetScope } from "../policy/budgets";
import { answersQuestions, askerOf, summarize, type Drivers } from "./driver";
import type { SchemaRegistry } from "../schemas/registry";
import { Wakes } from "./wakes";
import { agentDisplayName } from "../workspace/names";
import type { StreamHub } from "../streams/hub";
import { StepStreams } from "./step-streams";
import { modelUsage } from "../usage/model-usage";
import type { TurnJob, TurnOutcome } from "../dispatch/turns";

/** One answered model step, as the runner reads it from the stream. */
interface StepResult {
  text: string;
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  usage: LanguageModelUsage;
  finishReason: FinishReason;
  response?: { modelId?: string };
}

const ENDINGS = new Set(["task.result", "task.error", "task.cancel", "task.timeout"]);

/** How often a wake is offered to the turn queue before it is given up (0.5 + 1 + 2 + 4 + 8 s of waiting). */
const WAKE_ATTEMPTS = 6;

/** An MCP tool as offered to a model. */
export interface OfferedTool {
  server_id: string;
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface RunnerDeps {
  store: EventStore;
  workspace: Workspace;
  tools: ToolCaller & { listTools(server_ids: string[]): Promise<OfferedTool[]> };
  /** The model of an agent (server/agents/models). */
  modelFor(agent: WorkspaceAgent): LanguageModel;
  /** The policy gate for every tool call (server/policy/approvals.ts). */
  gate?: (g: Gate) => Promise<GateResult>;
  /** Whether an agent is known (the workspace's, or registered over the API): delegation checks it. */
  isRegistered?: (agent_id: string) => boolean;
  /** What works for agents whose manifest names another runtime than `model` (driver.ts). */
  drivers?: Drivers;
  /** The schema registry: results are checked against their payload type, and a task that `expects` one shows its schema. */
  schemas?: SchemaRegistry;
  /** Budgets checked before each model call (server/policy/budgets.ts); none: no limit. */
  budgets?: (at: BudgetScope) => Promise<BudgetOutcome>;
  /** Where replies stream as they are written, and statuses show (server/streams/hub.ts); none: nothing streams. */
  streams?: StreamHub;
  /** This node's name (CLUTCH_NODE_NAME), on every event of the agents' work here as `meta.node`. */
  node?: string;
  /**
   * The deployment's turn queue (server/dispatch/turns.ts; PostgreSQL): a wake becomes a job any
   * node takes (`runTurn` there), and an abort reaches the node running the instance. None: every
   * wake runs in this process (the embedded database).
   */
  turns?: {
    add(job: TurnJob, mode?: "again" | "unless-queued"): Promise<void>;
    abort(job: TurnJob): Promise<void>;
    pending(): Promise<number>;
  };
}

const BUILTIN_DESCRIPTIONS: Record<keyof typeof BUILTIN_TOOLS, string> = {
  ask: "Ask a person (to: \"user\") or an agent (to: \"agent:<id>\") a question. Returns at once; the answer arrives later as a new message, so end your turn after asking.",
  reply: "Send a message (to: \"user\" for the people in the channel, or an agent id); to answer a message someone sent you, give reply_to = its id. Markdown is rendered for people. When the message is your report, the deliverable people asked for, set payload_type \"chat.report.v1\".",
  delegate: "Hand a subtask to an agent in your allowed_agents (agent_id), or to the best of them for the capabilities it needs (requires, prefers), with a context_summary of what is done and what remains, and attachments it needs. Returns the new task id at once; the result arrives later as a new message.",
  submit_result: "Finish your task with its result: a summary, a markdown report for people, and the data behind it. A review task submits payload_type review.feedback.v1 with data { decision, comments, blocking_issues }.",
  decline: "End your task without a result because you cannot do it (it is outside what you know or may do), with the reason. Tell the people who asked why first (reply). Never decline work you could do by asking a question.",
};

/**
 * The system prompt of a task: the manifest's prompt, then Clutch's rules for the agent, and,
 * when the request `expects` a payload type (§3.4), the result it must submit and its schema.
 */
function systemPrompt(agent: WorkspaceAgent, kind: "work" | "review", expects: string | null): string {
  const rules = [
    `You are ${agent.agent_id} in Clutch, working in a team of agents and people in a chat channel.`,
    agent.allowed_agents.length
      ? `You may delegate to: ${agent.allowed_agents.join(", ")}. Rules: ${Object.entries(agent.manifest.delegate_rules)
          .map(([id, r]) => `${id}: ${r.when_to_delegate}`)
          .join("; ")}.`
      : "You may not delegate.",
    agent.overseer ? `${agent.overseer} reviews your results before they go back to whoever asked.` : "",
    kind === "review"
      ? "This task is a review: verify the work under review (recompute figures with your tools), ask its author if something is unclear, then submit_result with payload_type review.feedback.v1."
      : "Use your tools; ask when the request is ambiguous; when you are waiting for an answer or a subtask, end your turn with a short note. Finish with submit_result.",
    "Never invent figures: state only numbers that your tools returned.",
    expects ?? "",
  ];
  return `${agent.manifest.system_prompt}\n\n${rules.filter(Boolean).join("\n")}`;
}

/** The manifest's `model_parameters` as the AI SDK's call settings (none set: the provider's defaults). */
function samplingOf(agent: WorkspaceAgent): { temperature?: number; maxOutputTokens?: number; topP?: number } {
  const p = agent.manifest.model_parameters;
  return {
    ...(p?.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p?.max_tokens !== undefined ? { maxOutputTokens: p.max_tokens } : {}),
    ...(p?.top_p !== undefined ? { topP: p.top_p } : {}),
  };
}

/**
 * A tool's JSON Schema as model APIs take it: without the `$schema` key, which some
 * OpenAI-compatible servers refuse (MCP servers and zod put it at the root).
 */
export function forModel(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** What a nudge tells a model that ended its turn without a result it may not leave out. */
const NUDGE = {
  review: "You ended your turn without a decision. This task is a review: call submit_result now with payload_type review.feedback.v1 and data { decision, comments, blocking_issues }.",
  empty: "You ended your turn without an answer, and nothing is pending for this task. Call submit_result with your result now.",
} as const;

/** The newest task.request of `task_id` addressed to `agent_id` (the current attempt), and where it is in `events`. */
export function currentRequest(events: readonly StoredEvent[], task_id: string, agent_id: string): { request: StoredEventOf<"task.request">; index: number } | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (isEvent(e, "task.request") && e.task_id === task_id && e.to.some((t) => t.agent_id === agent_id)) return { request: e, index: i };
  }
  return null;
}

/**
 * What the task still waits for, from the run's events: a question its agent asked that has no
 * answer, or a subtask (a delegation or a review of its result) that has not ended. Null when
 * nothing: a turn that ends in text then finishes the task.
 */
export function awaiting(events: readonly StoredEvent[], task_id: string): string | null {
  const parents = parentsOf(events);
  const views = new Map<string, TaskView>();
  for (const ev of events) {
    if (ev.task_id !== task_id && parents.get(ev.task_id) !== task_id) continue;
    const next = foldTask(views.get(ev.task_id), ev);
    if (next) views.set(ev.task_id, next);
  }
  const own = views.get(task_id);
  if (own?.open_questions.length) return `an answer to question ${own.open_questions[0]!.id}`;
  for (const v of views.values()) {
    if (v.task_id !== task_id && !TERMINAL_STATES.has(v.state)) return `subtask ${v.task_id}${v.title ? ` (${v.title})` : ""}`;
  }
  return null;
}

export class AgentRunner {
  private readonly wakes = new Wakes();
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** See RunnerDeps: the store, the workspace's agents, their MCP tools, models and the policy gate. */
  constructor(private readonly deps: RunnerDeps) {}

  /**
   * Stop taking new wakes; resolves when the instances that are mid-step have finished it, or,
   * with `abort`, when they have been stopped at once (this node no longer leads: another carries
   * them on from the log).
   */
  stop(opts: { abort?: boolean } = {}): Promise<void> {
    return this.wakes.stop(opts.abort);
  }

  /** Take wakes again after `stop()`. */
  start(): void {
    this.wakes.start();
  }

  /** Resolves when no instance is working, here or, with the turn queue, on any node (tests, benches). */
  async idle(): Promise<void> {
    await this.wakes.idle();
    const turns = this.deps.turns;
    if (!turns) return;
    while ((await turns.pending()) > 0) {
      await new Promise((r) => setTimeout(r, 50));
      await this.wakes.idle();
    }
  }

  /** How many of the agent's instances are working now (for its heartbeat). */
  load(agent_id: string): number {
    return this.running.get(agent_id) ?? 0;
  }

  /**
   * Schedule the agent's instance for `task_id`: with the turn queue, a job that any node of the
   * deployment takes; otherwise here. Several wakes while it runs coalesce into one more pass.
   * Resolves once the wake is scheduled. A job the database does not take is tried again with
   * backoff for about 15 s, then logged (the task's deadline, or the next leader's recovery,
   * carries it on). `unless-queued` (a recovery after a start): no new turn when one is queued
   * already, so a turn taken over from a node that stopped keeps its place in the queue.
   */
  async wake(agent_id: string, task_id: string, mode: "again" | "unless-queued" = "again"): Promise<void> {
    if (!this.deps.workspace.agents.has(agent_id)) return;
    const turns = this.deps.turns;
    if (!turns) {
      void this.wakeHere(agent_id, task_id);
      return;
    }
    const { outcome: err } = await withRetries({ attempts: WAKE_ATTEMPTS, first_ms: 500 }, () =>
      turns.add({ agent_id, task_id }, mode).then(
        () => ({ outcome: null, again: false }),
        (error: unknown) => ({ outcome: error, again: true }),
      ),
    );
    if (err) log.error({ err, agent_id, task_id }, "an agent's turn could not be queued");
  }

  /**
   * One job of the turn queue, on the node that took it: the instance's passes here until its turn
   * ends; `signal` aborts them (a cancel anywhere, this node stopping). `interrupted` when this node
   * stops taking turns before the instance was done (the queue hands the turn back).
   */
  async runTurn(agent_id: string, task_id: string, signal: AbortSignal): Promise<TurnOutcome> {
    if (this.wakes.isStopped) return "interrupted";
    const key = `${agent_id}/${task_id}`;
    const onAbort = () => void this.wakes.abort(key, signal.reason instanceof Error ? signal.reason : new Error(`task ${task_id} ended`));
    if (signal.aborted) return this.wakes.isStopped ? "interrupted" : "done";
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.wakeHere(agent_id, task_id);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    return this.wakes.isStopped ? "interrupted" : "done";
  }

  /** The instance's passes in this process; resolves when its last pass has ended. */
  private wakeHere(agent_id: string, task_id: string): Promise<void> {
    const agent = this.deps.workspace.agents.get(agent_id);
    if (!agent) return Promise.resolve();
    return this.wakes.wake(`${agent_id}/${task_id}`, (signal) => this.pass(agent, task_id, signal), { agent_id, task_id }, async () => {
      await this.acquire(agent);
      return () => this.release(agent);
    });
  }

  /**
   * Stop the agent's instance for `task_id` now (its task was cancelled or timed out): the model
   * call and any MCP call in flight are aborted, and the instance takes no further step, on
   * whichever node runs it. Resolves when it has stopped; a no-op when it is not working.
   */
  async abort(agent_id: string, task_id: string): Promise<void> {
    await Promise.all([this.wakes.abort(`${agent_id}/${task_id}`, new Error(`task ${task_id} ended`)), this.deps.turns?.abort({ agent_id, task_id })]);
  }

  private async acquire(agent: WorkspaceAgent) {
    const max = agent.card.limits?.max_concurrency ?? 1;
    const n = this.running.get(agent.agent_id) ?? 0;
    if (n < max) {
      this.running.set(agent.agent_id, n + 1);
      return;
    }
    await new Promise<void>((resolve) => {
      const q = this.waiting.get(agent.agent_id) ?? [];
      q.push(resolve);
      this.waiting.set(agent.agent_id, q);
    });
  }

  private release(agent: WorkspaceAgent) {
    const next = this.waiting.get(agent.agent_id)?.shift();
    if (next) next();
    else this.running.set(agent.agent_id, (this.running.get(agent.agent_id) ?? 1) - 1);
  }

  /** One wake of an instance: steps until its turn ends, its task ends, or `signal` aborts. */
  private async pass(agent: WorkspaceAgent, task_id: string, signal: AbortSignal): Promise<void> {
    const { queries } = this.deps.store;
    const row = await queries.task(task_id);
    if (!row || row.assignee !== agent.agent_id || TERMINAL_STATES.has(row.state as TaskState)) return;
    // A dispatch held for approval: the agent does not start until it is granted.
    if (await queries.pendingDispatchApproval(task_id)) return;
    const runLog = new RunLog(this.deps.store, row.run_id);
    let events = await runLog.refresh();
    const current = currentRequest(events, task_id, agent.agent_id);
    if (!current) return;
    const { request } = current;
    const attempt = request.attempt ?? 1;
    const ctx = taskContext({
      agent,
      instance_id: `${agent.manifest.id}/${task_id}`,
      run_id: row.run_id,
      thread_id: row.thread_id,
      task_id,
      parent_task_id: row.parent_task_id,
      kind: request.meta?.review_of ? "review" : "work",
      request,
      ...(this.deps.node ? { node: this.deps.node } : {}),
    });
    const actionDeps: ActionDeps = {
      store: this.deps.store,
      workspace: this.deps.workspace,
      tools: this.deps.tools,
      gate: this.deps.gate,
      runEvents: () => runLog.refresh(),
      signal,
      ...(this.deps.isRegistered ? { isRegistered: this.deps.isRegistered } : {}),
      ...(this.deps.schemas ? { schemas: this.deps.schemas } : {}),
    };
    /** Whether an event of the current attempt (from its request on) matches. */
    const sinceRequest = (match: (e: StoredEvent) => boolean | undefined) => {
      for (let i = current.index; i < events.length; i++) if (match(events[i]!)) return true;
      return false;
    };
    const to = [{ agent_id: request.from.agent_id }];
    const fail = (code: string, message: string, retryable: boolean, details: Record<string, unknown>, key: string) =>
      this.deps.store.append(ctx.envelope("task.error", { code, message, retryable, details }, { to, attempt, idempotency_key: `${ctx.instance_id}:${key}` }));

    if (!sinceRequest((e) => e.type === "task.accept" && e.task_id === task_id)) {
      await this.deps.store.append(
        ctx.envelope(
          "task.accept",
          { agent_id: agent.agent_id, instance_id: ctx.instance_id },
          // The first attempt keeps the key it always had, so logs written before retries existed replay the same.
          { to, ...(attempt > 1 ? { attempt } : {}), idempotency_key: `${ctx.instance_id}:accept${attempt > 1 ? `:${attempt}` : ""}` },
        ),
      );
    }
    const runtime = agent.manifest.runtime;
    if (runtime.kind !== "model") {
      const driver = this.deps.drivers?.[runtime.kind];
      if (!driver) {
        await fail("RUNTIME_UNAVAILABLE", `${agent.card.display.name} runs on ${runtime.kind}, which this Clutch cannot reach`, false, { runtime: runtime.kind }, `no-runtime:${attempt}`);
        return;
      }
      const { retry_attempts, retry_delay_ms } = this.deps.workspace.lifecycle;
      await driver.wake({ ctx, request, attempt, asker: askerOf(request, answersQuestions(this.deps.workspace)), events: () => runLog.refresh(), signal, store: this.deps.store, retry: { attempts: retry_attempts, delay_ms: retry_delay_ms }, ...(this.deps.streams ? { streams: this.deps.streams } : {}), ...(this.deps.gate ? { gate: this.deps.gate } : {}) });
      return;
    }
    const meta: SystemMeta = {
      agent_id: agent.agent_id,
      instance_id: ctx.instance_id,
      task_id,
      run_id: ctx.run_id,
      task_kind: ctx.kind,
      allowed_agents: agent.allowed_agents,
      overseer: agent.overseer,
      agent_names: Object.fromEntries([...this.deps.workspace.agents.values()].map((a) => [a.agent_id, a.card.display.name])),
    };
    const tools = await this.toolSet(agent);
    const { lifecycle } = this.deps.workspace;
    const maxTurns = agent.manifest.limits?.max_model_turns ?? lifecycle.max_model_turns;
    // Turns of earlier attempts do not count against this one.
    const own = (e: StoredEvent) => {
      const m = stepMetaOf(e);
      return m?.instance_id === ctx.instance_id ? m : undefined;
    };
    const turnsBefore = events.slice(0, current.index).reduce((max, e) => Math.max(max, own(e)?.step ?? 0), 0);

    const loop = async (): Promise<void> => {
    while (!this.wakes.isStopped && !signal.aborted) {
      events = await runLog.refresh();
      if (sinceRequest((e) => e.task_id === task_id && ENDINGS.has(e.type))) return;
      const conv = buildConversation(events, { agent_id: agent.agent_id, instance_id: ctx.instance_id, task_id }, systemPrompt(agent, ctx.kind, this.expectation(request)), meta);
      if (conv.pending.length) {
        let waiting = false;
        for (const call of conv.pending) waiting = (await perform(ctx, call, actionDeps)) === "waiting" || waiting;
        if (waiting) return; // held for an approval: woken again when it is decided
        continue;
      }
      if (conv.idle) return;
      if (conv.steps - turnsBefore >= maxTurns) {
        const message = `${agent.card.display.name} took ${maxTurns} model turns on "${request.payload.title ?? task_id}" without finishing it; a task may take at most ${maxTurns} (limits.max_model_turns)`;
        await fail("TURN_LIMIT", message, false, { max_model_turns: maxTurns }, `turn-limit:${attempt}`);
        return;
      }
      const step = conv.steps + 1;
      const seen_seq = events.at(-1)?.seq ?? 0;
      const budget = await this.deps.budgets?.({ agent, thread_id: ctx.thread_id, run_id: ctx.run_id, task_id, parent_task_id: ctx.parent_task_id });
      if (budget?.status === "wait") return; // a person decides whether it goes on: woken again by the decision
      if (budget?.status === "refused") {
        await fail("BUDGET_EXCEEDED", budget.message, false, { budget: budget.budget, used: budget.used, limit: budget.limit }, `budget:${budget.budget}:${attempt}`);
        return;
      }
      const live = this.deps.streams ? new StepStreams(this.deps.streams, ctx, step, (id) => agentDisplayName(this.deps.workspace, id)) : null;
      live?.status("thinking");
      const result = await this.ask(ctx, { system: conv.instructions, messages: conv.messages, tools }, step, signal, attempt, live);
      if (!result) {
        live?.close("interrupted", signal.aborted ? "the task ended" : "the model call failed");
        return; // the task ended: cancelled, timed out, or the model could not be reached
      }
      if (live?.anyStopped()) {
        // A person stopped the reply: their Stop kept what was written and cancelled the task.
        live.close();
        return;
      }
      const text = result.text.trim();
      if (!result.toolCalls.length) {
        const waitingFor = awaiting(events, task_id);
        if (!waitingFor && text && ctx.kind === "work") {
          // A final answer in plain text: it is the task's result, submitted like any other.
          await perform(ctx, { step, seen_seq, call_id: `text-result-${step}`, tool: "submit_result", input: { summary: summarize(text), report_markdown: text }, text }, actionDeps);
          live?.close();
          continue;
        }
        const nudge = waitingFor ? undefined : ctx.kind === "review" ? NUDGE.review : NUDGE.empty;
        if (nudge && sinceRequest((e) => Boolean(own(e)?.nudge))) {
          const message =
            ctx.kind === "review"
              ? `${agent.card.display.name} ended the review without a decision, even when asked for one`
              : `${agent.card.display.name} ended its turn without an answer, even when asked for one`;
          await fail("NO_RESULT", message, true, { text: text.slice(0, 2000) }, `no-result:${attempt}`);
          live?.close();
          return;
        }
        // The turn ends; if something arrived while the model was thinking, the conversation
        // shows it after this turn end (seen_seq) and the loop asks the model again.
        await this.deps.store.append(
          ctx.envelope(
            "task.progress",
            { message: text || "(waiting)" },
            {
              idempotency_key: `${ctx.instance_id}:${step}:turn-end`,
              meta: { agent: { instance_id: ctx.instance_id, step, seen_seq, text: text || "(waiting)", ...(nudge ? { nudge } : {}) } },
            },
          ),
        );
        live?.close();
        continue;
      }
      let first = true;
      let waiting = false;
      for (const call of result.toolCalls) {
        const r = await perform(ctx, { step, seen_seq, call_id: call.toolCallId, tool: call.toolName, input: call.input, ...(first && text ? { text } : {}) }, actionDeps);
        live?.done(call.toolCallId);
        waiting = r === "waiting" || waiting;
        first = false;
      }
      live?.close();
      if (waiting) return;
    }
    };
    try {
      await loop();
    } finally {
      // Whatever it was doing, it is not doing it any more.
      this.deps.streams?.status({ thread_id: ctx.thread_id, run_id: ctx.run_id, task_id, agent_id: agent.agent_id, status: null });
    }
  }

  /**
   * One model call, tried `lifecycle.retry_attempts` times in all while it fails for a passing
   * reason (each retry a task.progress "retrying" with its attempt and delay). Null when the task
   * must stop: `signal` aborted, or every attempt failed (then task.error MODEL_UNAVAILABLE,
   * retryable, is stored) or the failure cannot pass (task.error MODEL_ERROR). Each answered
   * call is recorded as a `model.usage` event (tokens, latency, finish reason;
   * docs/observability.md) before its actions.
   */
  private async ask(ctx: TaskContext, prompt: { system: SystemModelMessage; messages: ModelMessage[]; tools: ToolSet }, step: number, signal: AbortSignal, attempt: number, live: StepStreams | null) {
    const { retry_attempts, retry_delay_ms } = this.deps.workspace.lifecycle;
    type Outcome = { result: StepResult; latency_ms: number } | { error: string; passing: boolean; unconfigured?: true };
    const model = this.deps.modelFor(ctx.agent);
    const { outcome, attempts } = await withRetries<Outcome>(
      { attempts: retry_attempts, first_ms: retry_delay_ms, signal },
      async () => {
        try {
          const started = performance.now();
          const result = await streamStep({ model, ...prompt, ...samplingOf(ctx.agent), maxRetries: 0, abortSignal: signal }, live);
          return { outcome: { result, latency_ms: performance.now() - started }, again: false };
        } catch (err) {
          // What was written of a failed attempt is not the answer: the next attempt writes it again.
          live?.close("interrupted", "the model call failed");
          if (err instanceof ModelNotConfiguredError) return { outcome: { error: err.message, passing: false, unconfigured: true }, again: false };
          const passing = isPassingModelError(err);
          return { outcome: { error: describeModelError(err), passing }, again: passing };
        }
      },
      (next, delay_ms, failed) =>
        this.deps.store
          .append(
            ctx.envelope("task.progress", retryNotice({ of: "model", label: "The model call" }, "error" in failed ? failed.error : "", next, retry_attempts, delay_ms), {
              idempotency_key: `${ctx.instance_id}:${step}:retry-${next}:${attempt}`,
            }),
          )
          .then(() => undefined),
    );
    if ("result" in outcome) {
      await this.deps.store.append(ctx.envelope("model.usage", modelUsage(model, outcome.result, outcome.latency_ms, step), { idempotency_key: `${ctx.instance_id}:${step}:usage:${attempt}` }));
      return outcome.result;
    }
    if (signal.aborted) return null;
    // The error alone: the AI SDK's error carries the whole prompt, which does not belong in the log.
    log.warn({ error: outcome.error, agent_id: ctx.agent.agent_id, task_id: ctx.task_id, attempts }, "model call failed");
    await this.deps.store.append(
      ctx.envelope(
        "task.error",
        outcome.unconfigured
          ? { code: "MODEL_NOT_CONFIGURED", message: outcome.error, retryable: false, details: { step } }
          : outcome.passing
            ? {
                code: "MODEL_UNAVAILABLE",
                message: `${ctx.agent.card.display.name}'s model did not answer after ${attempts} attempts (${outcome.error}). Check that the model server is running and reachable, or change ${modelEnvVar(ctx.agent.agent_id)} (or CLUTCH_MODEL, OPENAI_BASE_URL), then retry.`,
                retryable: true,
                details: { attempts, step },
              }
            : { code: "MODEL_ERROR", message: `The model refused the call: ${outcome.error}`, retryable: false, details: { step } },
        { to: [{ agent_id: ctx.request.from.agent_id }], attempt, idempotency_key: `${ctx.instance_id}:${step}:model-error:${attempt}` },
      ),
    );
    return null;
  }

  /**
   * What the system prompt says of a request that `expects` a payload type (§3.4): submit the
   * result as that type, with the registered JSON Schema when there is one. Null otherwise.
   */
  private expectation(request: StoredEventOf<"task.request">): string | null {
    const expected = expectedPayloadType(request);
    if (!expected) return null;
    const schema = this.deps.schemas?.forPayloadType(expected);
    const required = request.payload.expects?.required?.length ? ` It must have ${request.payload.expects.required.map((f) => `data.${f}`).join(", ")}.` : "";
    return schema
      ? `This task expects a result of payload_type ${expected}: call submit_result with payload_type ${expected} and data matching this JSON Schema (${schema.ref}): ${JSON.stringify(forModel(schema.json_schema))}.${required}`
      : `This task expects a result of payload_type ${expected}: call submit_result with payload_type ${expected}.${required}`;
  }

  private async toolSet(agent: WorkspaceAgent): Promise<ToolSet> {
    const set: ToolSet = {};
    for (const [name, schema] of Object.entries(BUILTIN_TOOLS)) {
      set[name] = tool({
        description: BUILTIN_DESCRIPTIONS[name as keyof typeof BUILTIN_TOOLS],
        inputSchema: jsonSchema(forModel(z.toJSONSchema(schema, { target: "draft-7", io: "input" })) as never),
      });
    }
    const servers = agent.manifest.mcp_bindings.map((b) => b.server_id);
    for (const t of await this.deps.tools.listTools(servers)) {
      const binding = agent.manifest.mcp_bindings.find((b) => b.server_id === t.server_id);
      if (!binding?.allowed_tools.includes(t.name)) continue;
      set[mcpToolName(t.server_id, t.name)] = tool({
        description: `${t.server_id}: ${t.description ?? t.name}`,
        inputSchema: jsonSchema(forModel(t.inputSchema) as never),
      });
    }
    return set;
  }
}

/**
 * One model step through the AI SDK's `streamText`: each part goes to `live` as it arrives
 * (people see the text being written), and the step's text, tool calls, usage, finish reason
 * and response are gathered from the parts. Throws what the model call threw (an error part),
 * or the abort's reason when `abortSignal` aborts.
 */
async function streamStep(call: Parameters<typeof streamText>[0] & { abortSignal: AbortSignal }, live: StepStreams | null): Promise<StepResult> {
  // Errors arrive as stream parts and are thrown below; nothing to print.
  const stream = streamText({ ...call, onError: () => {} });
  let text = "";
  const toolCalls: StepResult["toolCalls"] = [];
  let finish: Pick<StepResult, "usage" | "finishReason" | "response"> | null = null;
  for await (const part of stream.fullStream) {
    live?.part(part);
    switch (part.type) {
      case "text-delta":
        text += part.text;
        break;
      case "tool-call":
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case "finish-step":
        finish = { usage: part.usage, finishReason: part.finishReason, response: part.response };
        break;
      case "error":
        throw part.error;
      case "abort":
        throw call.abortSignal.reason ?? new Error("the model call was aborted");
    }
  }
  if (!finish) throw new Error("the model's stream ended without finishing its step");
  return { text, toolCalls, ...finish };
}

