/**
 * The orchestrator (CAP seed 000 "Workflow Patterns", "Oversight"; Clutch Protocol §1.3, §2.1;
 * docs/architecture.md "From request to socket"). A consumer of the ordered event stream that
 * appends new events; it keeps no state of its own beyond what the log says.
 *
 *   a person's new message in a channel with an entry agent
 *        → a new run whose root task (T1) goes to the agent the message @mentions, or is
 *          routed by the capabilities it @mentions (`@skill:research`), or else goes to the
 *          channel's entry agent; each with its routing.decision
 *   a person's answer made of their new message (`meta.instead_of`) → cancel the run it started
 *   a person's reply to an agent's message or result (`meta.follows`)
 *        → a follow-up: a new root task of that run, requested of that agent (docs/channels.md)
 *   task.request to `agent:orchestrator` (requires[], prefers[], no fixed recipient)
 *        → the router (server/router/router.ts): routing.decision + the request to the chosen
 *          agent, or routing.failure (waiting, routed again when agents change, or failed)
 *   task.request to an agent of the workspace            → wake that agent's instance (on
 *        PostgreSQL through the durable dispatch queue: the job the append added, `dispatchJob`)
 *   a message to an agent (a question, an answer, an oversight inquiry)
 *        → wake the agent's instance for that task (or for the task it delegated); a question
 *          no addressee can read in an open task of its own (its task ended, or it holds none
 *          above the asker's) is answered on its behalf with what it left behind
 *          (server/lifecycle/unanswerable.ts), so the asker goes on
 *   a subtask's outcome                                  → wake its delegator's instance
 *   any task's outcome                                   → answer, on their addressee's behalf,
 *        the run's open questions whose addressee can no longer answer (its task just ended)
 *   a task.request passes the policy first (server/policy): go, wait for an approval, or task.error
 *   an approval decided                                  → carry on what it held
 *   an overseer's review.feedback.v1 on a result under review
 *        approved → the reviewed task's task.result (only now does it reach its delegator)
 *        otherwise → wake the author, who sees the feedback and revises
 *   task.cancel / task.timeout of a workspace agent's task → stop its instance at once
 *   a workspace agent's task ended in error, cancel or timeout → undo its side effects as its
 *        manifest declares (server/lifecycle/compensation.ts), once its instance has stopped
 *   every 5 s                                            → expire approvals, route waiting
 *        requests again, and sweep deadlines (server/lifecycle/deadlines.ts: timeouts, requests
 *        not accepted, agents gone offline)
 *
 * It acts in its workspace's channels (and the runs started there), and, with `allChannels`
 * (the server; not tests, which share one database), in every other channel too, where only
 * a message that @mentions an agent or a capability starts a run (there is no entry agent).
 *
 * `recover()` runs once at start: it wakes every unfinished task and finishes any reaction
 * the previous process was stopped before making; idempotency keys make each reaction happen
 * once however often it is attempted.
 */
import type { GroupChatShape } from "@/lib/group-chat/turns";
import { GroupChatRunner } from "./group-chat";
import { assign } from "./assign";
import { isEvent, makeMessage, newId, type MessageType, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { addressedToPeopleOnly, newMessageOutcome, type AnswerMode } from "@/lib/answers";
import { isCapabilityMention } from "@/lib/mentions";
import { TERMINAL_STATES, type TaskState } from "@/lib/fold/task-state";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import { conversationIds } from "../events/threads";
import type { AgentRunner } from "../agents/runner";
import type { Approvals } from "../policy/approvals";
import type { Workspace } from "../workspace/workspace";
import { agentDisplayName } from "../workspace/names";
import { log } from "../log";
import { needsRouting, ORCHESTRATOR, type Router } from "../router/router";
import type { AgentRegistry } from "../router/registry";
import { Deadlines } from "../lifecycle/deadlines";
import { compensate, compensateEnded } from "../lifecycle/compensation";
import { clutchTaskError } from "../lifecycle/task-error";
import { cancelRun } from "../lifecycle/cancel";
import { answerIfUnanswerable, answerUnanswerableInRun } from "../lifecycle/unanswerable";
import { ClutchError } from "../errors";
import type { ToolCaller } from "../workspace/tools";
import type { DispatchJob } from "../dispatch/queue";
import { traceMetaOf } from "../telemetry/meta";

export interface ChannelBinding {
  thread_id: string;
  name: string;
  /** Who gets a request that @mentions nobody; null in channels outside the workspace. */
  entry_agent: string | null;
  /**
   * Whether the entry agent takes every new top-level message or only agents @mentioned answer
   * (lib/answers.ts); an admin's choice stored on the thread wins (docs/channels.md "Who answers").
   */
  answers: AnswerMode;
  /** A direct message with an agent: sentences say "this direct message", not its stored name (`dm-…`). */
  dm?: boolean;
  /** Requests the workspace suggests to people new to the channel. */
  suggestions?: string[];
}

/** What the orchestrator does with one event of the stream, in a channel where it acts. */
type Reaction = (ev: StoredEvent, channel: ChannelBinding) => Promise<void>;

/** A reaction to the events of `types`, each handed over narrowed to its type; one entry per type. */
function on<T extends MessageType>(types: T[], react: (ev: StoredEventOf<T>, channel: ChannelBinding) => Promise<void>): [MessageType, Reaction][] {
  const reaction: Reaction = async (ev, channel) => {
    if (isEvent(ev, ...types)) await react(ev, channel);
  };
  return types.map((type) => [type, reaction]);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);

/**
 * What a review request carries in `input` (server/agents/tool-calls.ts, submit_result): the result
 * under review and its payload_type.
 */
function reviewedResult(request: StoredEventOf<"task.request">): { result: Record<string, unknown>; payload_type?: string } {
  const input = isRecord(request.payload.input) ? request.payload.input : {};
  return {
    result: isRecord(input.result) ? input.result : {},
    ...(typeof input.payload_type === "string" ? { payload_type: input.payload_type } : {}),
  };
}

export class Orchestrator {
  private unsubscribe: (() => void) | null = null;
  private chain: Promise<void> = Promise.resolve();

  private expiryTimer: NodeJS.Timeout | null = null;
  private unwatchRegistry: (() => void) | null = null;

  private readonly store: EventStore;
  private readonly tail: EventTail;
  private readonly workspace: Workspace;
  private readonly runner: AgentRunner;
  private readonly channels: ChannelBinding[];
  private readonly approvals: Approvals | null;
  private readonly router: Router | null;
  private readonly registry: AgentRegistry | null;
  private readonly allChannels: boolean;
  private readonly threadNames = new Map<string, { name: string; entry_agent: string | null; dm: boolean; elsewhere: boolean }>();
  private readonly groupChatOf: (thread_id: string) => { shape: GroupChatShape; team: string } | null;
  private readonly deadlines: Deadlines | null;
  private readonly tools: ToolCaller | null;
  private readonly durableDispatch: boolean;
  private readonly deployment: string | null;
  /** Work started by reactions that does not hold up the chain (compensations); stop() waits for it. */
  private readonly background = new Set<Promise<void>>();

  /** The reactions by event type (the module doc's table); other types are left alone. */
  private readonly reactions = new Map<MessageType, Reaction>([
    ...on(["chat.message"], (ev, channel) => this.onMessage(ev, channel)),
    ...on(["task.request"], (ev) => this.onRequest(ev)),
    ...on(["task.result", "task.error", "task.timeout", "task.cancel"], (ev) => this.onOutcome(ev)),
    ...on(["approval.granted", "approval.rejected", "approval.expired"], (ev) => this.onDecision(ev)),
  ]);

  constructor(deps: {
    store: EventStore;
    tail: EventTail;
    workspace: Workspace;
    runner: AgentRunner;
    channels: ChannelBinding[];
    /** The policy gate before every dispatch (server/policy/approvals.ts); null: everything goes. */
    approvals?: Approvals | null;
    /** Routing by capability (server/router); null: requests to agent:orchestrator are left alone. */
    router?: Router | null;
    registry?: AgentRegistry | null;
    /** Also act in channels the workspace does not name (see the module doc). */
    allChannels?: boolean;
    /** The deadlines' clock, ms since the epoch (default Date.now; tests swap it). */
    now?: () => number;
    /** MCP calls for compensations (server/adapters/mcp/tool-caller.ts); null: nothing is undone. */
    tools?: ToolCaller | null;
    /** Requests reach their agents through the durable queue's jobs (`dispatchJob`), not the reaction. */
    durableDispatch?: boolean;
    /** This node's deployment: a direct message opened on another deployment sharing the database is that one's. */
    deployment?: string;
    /** The group chat a channel runs (an imported AutoGen team; server/orchestrator/group-chat.ts), or null. */
    groupChatOf?: (thread_id: string) => { shape: GroupChatShape; team: string } | null;
  }) {
    this.store = deps.store;
    this.tail = deps.tail;
    this.workspace = deps.workspace;
    this.runner = deps.runner;
    this.channels = deps.channels;
    this.approvals = deps.approvals ?? null;
    this.router = deps.router ?? null;
    this.registry = deps.registry ?? null;
    this.allChannels = deps.allChannels ?? false;
    this.tools = deps.tools ?? null;
    this.durableDispatch = deps.durableDispatch ?? false;
    this.deployment = deps.deployment ?? null;
    this.groupChatOf = deps.groupChatOf ?? (() => null);
    this.deadlines = this.registry
      ? new Deadlines({
          store: this.store,
          registry: this.registry,
          router: this.router,
          settings: this.workspace.lifecycle,
          inScope: async (thread_id) => (await this.channelOf(thread_id)) !== null,
          now: deps.now,
        })
      : null;
  }

  /** Sweep the deadlines now, in the reaction chain (server/lifecycle/deadlines.ts); resolves with how many tasks it ended or moved. */
  sweepDeadlines(): Promise<number> {
    const deadlines = this.deadlines;
    if (!deadlines) return Promise.resolve(0);
    return this.inChain(() => deadlines.sweep(), "deadline sweep failed");
  }

  /**
   * Run `fn` in the reaction chain, after every reaction queued so far. Resolves with its result,
   * or rejects with its error, which the chain logs as `failure` and goes on.
   */
  private inChain<T>(fn: () => Promise<T>, failure: string, context: Record<string, unknown> = {}): Promise<T> {
    const done = this.chain.then(fn);
    this.chain = done.then(
      () => undefined,
      (err) => log.error({ err, ...context }, failure),
    );
    return done;
  }

  /** Whether the orchestrator acts in channel `thread_id` (its scope, for what acts beside it). */
  async actsIn(thread_id: string): Promise<boolean> {
    return (await this.channelOf(thread_id)) !== null;
  }

  /**
   * The channel `thread_id` is, if the orchestrator acts there (system threads never): a channel
   * of the workspace; a direct message with one of its agents (that agent is its entry agent,
   * docs/channels.md "Direct messages"); with `allChannels`, any other channel.
   */
  private async channelOf(thread_id: string): Promise<ChannelBinding | null> {
    const bound = this.channels.find((c) => c.thread_id === thread_id);
    if (bound) return bound;
    let known = this.threadNames.get(thread_id);
    if (known === undefined) {
      const t = await this.store.getThread(thread_id);
      const dm = t?.kind === "dm";
      // A DM opened on another deployment of the database is answered there (docs/deploy.md).
      const elsewhere = dm && this.deployment !== null && ![null, this.deployment].includes(await this.store.queries.threadDeployment(thread_id));
      known = { name: t?.name ?? "_", entry_agent: t?.entry_agent ?? null, dm, elsewhere };
      this.threadNames.set(thread_id, known);
    }
    if (known.elsewhere) return null;
    // A direct message with an agent: every message is for it.
    if (known.entry_agent && this.workspace.agents.has(known.entry_agent)) return { thread_id, name: known.name, entry_agent: known.entry_agent, answers: "every_message", dm: known.dm };
    if (!this.allChannels) return null;
    return known.name.startsWith("_") ? null : { thread_id, name: known.name, entry_agent: null, answers: "mentions" };
  }

  /** Route waiting requests again, in the reaction chain (an agent came online, registered, …). */
  retryRouting(): void {
    const router = this.router;
    if (!router?.pending.length) return;
    void this.inChain(() => router.retryWaiting(), "routing retry failed").catch(() => undefined);
  }

  /** Follow the stream (reactions run one at a time, in seq order). */
  start(): void {
    this.unsubscribe = this.tail.subscribe((ev) => {
      void this.inChain(() => this.react(ev), "orchestrator reaction failed", { seq: ev.seq, type: ev.type }).catch(() => undefined);
    });
    this.expiryTimer = setInterval(() => {
      void this.approvals?.expireDue().catch((err) => log.warn({ err }, "approval expiry failed"));
      this.retryRouting(); // waiting requests time out even when nothing else happens
      void this.sweepDeadlines().catch(() => undefined);
    }, 5000);
    this.expiryTimer.unref();
    this.unwatchRegistry = this.registry?.onChange(() => this.retryRouting()) ?? null;
  }

  /** Stop following the stream; resolves when the reactions already queued have run. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    this.unwatchRegistry?.();
    await this.chain;
    await Promise.allSettled([...this.background]);
  }

  /** Resolves when every reaction queued so far has run. */
  settled(): Promise<void> {
    return this.chain;
  }

  private isAgent(id: string | null | undefined): id is string {
    return Boolean(id && this.workspace.agents.has(id));
  }

  private async task(id: string | null | undefined) {
    return id ? this.store.queries.task(id) : null;
  }

  private async react(ev: StoredEvent): Promise<void> {
    const reaction = this.reactions.get(ev.type);
    if (!reaction) return;
    const channel = await this.channelOf(ev.thread_id);
    if (!channel) return; // another workspace's channel, or a system thread
    await reaction(ev, channel);
  }

  /**
   * A request for the router (no fixed recipient), or one to dispatch to its agent: here, or, with
   * the durable queue, by the job the append added with it (`dispatchJob`).
   */
  private async onRequest(ev: StoredEventOf<"task.request">): Promise<void> {
    if (!needsRouting(ev)) {
      if (!this.durableDispatch) await this.dispatch(ev);
      return;
    }
    if (this.router) await this.router.route(ev);
  }

  /**
   * A job of the durable dispatch queue (server/dispatch/queue.ts): dispatch its task, in the
   * reaction chain. A job for an older attempt, or a channel this Clutch does not act in, is done
   * at once. Rejects when the dispatch fails (the queue tries the job again).
   */
  dispatchJob(job: DispatchJob): Promise<void> {
    return this.inChain(
      async () => {
        const request = await this.store.queries.latestRequest(job.run_id, job.task_id);
        if (!request || (request.attempt ?? 1) !== job.attempt) return; // a newer attempt has a job of its own
        if (!(await this.channelOf(request.thread_id))) return;
        await this.dispatch(request);
      },
      "dispatch job failed",
      { task_id: job.task_id },
    );
  }

  /**
   * The policy check before a task reaches its agent (server/policy): go, wait for approval, or
   * refuse. `recovering`: carrying on after a start, the agent's instance is woken only when no
   * turn of it is queued already (one taken over from a node that stopped keeps its place).
   */
  private async dispatch(ev: StoredEventOf<"task.request">, recovering = false): Promise<void> {
    const to = ev.to[0]?.agent_id;
    if (!this.isAgent(to)) return;
    // A task that has ended or already started was dispatched before (a fork or an import copies
    // its request together with what followed): no new policy check, and nothing to wake if it ended.
    const task = await this.task(ev.task_id);
    if (task && TERMINAL_STATES.has(task.state as TaskState)) return;
    const started = task?.state === "running" || task?.state === "waiting_input";
    if (this.approvals && !started) {
      const agent = this.workspace.agents.get(to)!;
      const risk_tags = strings(ev.meta?.risk_tags);
      const labels = strings(ev.meta?.labels);
      const gate = await this.approvals.gate({
        key: `dispatch:${ev.task_id}`,
        subject: {
          kind: "dispatch",
          agent: to,
          capabilities: agent.card.capabilities.map((c) => c.id),
          ...(ev.domain ? { domain: ev.domain } : {}),
          ...(ev.payload_type ? { payload_type: ev.payload_type } : {}),
          ...(risk_tags ? { risk_tags } : {}),
          ...(labels ? { run_labels: labels } : {}),
        },
        at: { thread_id: ev.thread_id, run_id: ev.run_id, task_id: ev.task_id, parent_task_id: ev.parent_task_id ?? null },
        summary: `${agentDisplayName(this.workspace, to)} will start "${ev.payload.title ?? ev.task_id}"`,
        preview: ev.payload.context_summary ?? "",
      });
      if (gate.status === "wait") return;
      if (gate.status === "refused") {
        await this.store.append(clutchTaskError(ev, [{ agent_id: ev.from.agent_id }], { code: gate.code, message: gate.message, retryable: false }, `dispatch:${ev.task_id}:refused`));
        return;
      }
    }
    await this.runner.wake(to, ev.task_id, recovering ? "unless-queued" : "again");
  }

  /** An approval was decided: carry on the dispatch or the call it held. */
  private async onDecision(ev: StoredEventOf<"approval.granted" | "approval.rejected" | "approval.expired">): Promise<void> {
    const a = await this.store.queries.approval(ev.payload.approval_id);
    if (!a || a.state === "pending") return;
    if (a.kind === "dispatch") {
      const request = await this.store.queries.firstRequest(a.run_id, a.task_id);
      if (request) await this.dispatch(request);
      return;
    }
    if (this.isAgent(a.agent_id)) await this.runner.wake(a.agent_id, a.task_id);
  }

  private async onMessage(ev: StoredEventOf<"chat.message">, channel: ChannelBinding): Promise<void> {
    if (ev.from.role === "human" && !ev.payload.reply_to && ev.run_id === conversationIds(ev.thread_id).run_id) {
      return this.openRun(ev, channel);
    }
    if (ev.from.role === "human" && typeof ev.meta?.follows === "string") return this.openFollowUp(ev, ev.meta.follows);
    if (ev.from.role === "human" && typeof ev.meta?.instead_of === "string") await this.withdrawRequest(ev, ev.meta.instead_of);
    for (const { agent_id } of ev.to) {
      if (!this.isAgent(agent_id) || agent_id === ev.from.agent_id) continue;
      const task = await this.task(ev.task_id);
      if (task?.assignee === agent_id) {
        await this.runner.wake(agent_id, task.id);
        continue;
      }
      const parent = await this.task(task?.parent_task_id);
      if (parent?.assignee === agent_id) await this.runner.wake(agent_id, parent.id);
    }
    // A question no addressee can read in an open task of its own would wait forever: answer it on its behalf.
    if (ev.payload.expects_reply === true && ev.from.role !== "human") await answerIfUnanswerable({ store: this.store, workspace: this.workspace }, ev);
  }

  /**
   * A person's request in a channel becomes a run. Its root task goes to the agent the message
   * @mentions first; or, when it @mentions capabilities, to the router as a task.request to
   * `agent:orchestrator` with those as requires[]; or, in an imported AutoGen team's channel, to
   * its group chat (`agent:group-chat`, server/orchestrator/group-chat.ts); or else to the
   * channel's entry agent.
   */
  private async openRun(ev: StoredEventOf<"chat.message">, channel: ChannelBinding): Promise<void> {
    const text = ev.payload.text;
    const mentions = ev.payload.mentions ?? [];
    // Who answers (lib/answers.ts, docs/channels.md "Who answers"): plain chat, mentions of people
    // only, or a message that addresses no agent in a channel whose agents answer when mentioned
    // is a conversation between people, not a request. An admin's choice on the thread wins.
    const answers = (await this.store.getThread(ev.thread_id))?.answers ?? channel.answers;
    const outcome = newMessageOutcome({
      mentions,
      entry_agent: channel.entry_agent,
      answers,
      chatOnly: addressedToPeopleOnly(ev.to),
      isAgent: (m) => this.workspace.agents.has(m) || Boolean(this.registry?.has(m)),
    });
    if (outcome.kind === "chat") return;
    const run_id = newId("run");
    const task_id = newId("task");
    // The title is the first line without the @mentions that address it.
    const firstLine = text.split("\n")[0]!.replace(/^(\s*@\S+)+\s*/, "").trim() || text.split("\n")[0]!.trim();
    const who = ev.from.display_name ?? ev.from.agent_id;
    const request = {
      title: requestTitle(firstLine),
      instructions: text,
      context_summary: `User request from ${who} in #${channel.name}: ${text}`,
      input: { message_id: ev.id, from: ev.from },
    };
    const at = { thread_id: ev.thread_id, run_id, task_id, parent_task_id: null };
    // Who started the run, kept on its root request (lib/fold/run-requester.ts; docs/protocol.md),
    // and the caller's trace context, so the run's trace goes under it (docs/observability.md).
    const meta = { requested_by: ev.from.agent_id, ...traceMetaOf(ev.meta) };
    const capabilities = mentions.filter(isCapabilityMention);
    if (capabilities.length) {
      await this.store.append(
        makeMessage({ type: "task.request", ...at, from: ev.from, to: [ORCHESTRATOR], requires: capabilities, payload: request, meta, idempotency_key: `open-run:${ev.id}` }),
      );
      return;
    }
    const named = mentions.find((m) => this.workspace.agents.has(m) || this.registry?.has(m));
    // A team's channel runs its group chat, unless the person names one agent.
    const chat = named ? null : this.groupChatOf(ev.thread_id);
    if (chat) {
      await this.store.append(GroupChatRunner.rootRequest(ev, chat.shape, chat.team, requestTitle(firstLine)));
      return;
    }
    const selected = named ?? channel.entry_agent;
    if (!selected) return;
    const others = [...this.workspace.agents.keys()].filter((id) => id !== selected);
    // The channel as a sentence names it: "#sales", or "this direct message" for a DM (never its stored name).
    const place = channel.dm ? "this direct message" : `#${channel.name}`;
    const reason = named
      ? `${who} addressed ${agentDisplayName(this.workspace, named)} by name in ${place}`
      : `${agentDisplayName(this.workspace, selected)} is the entry agent of ${place}: a person's new request starts with planning (${this.workspace.agents.get(selected)?.card.capabilities[0]?.id ?? "planner"})`;
    const rejected = named ? [] : others.map((agent_id) => ({ agent_id, filter: "entry_agent", reason: `not the entry agent of ${place}; reachable by delegation or @mention` }));
    await this.store.append(assign(at, selected, { mode: "fixed", reason, rejected }, { payload: request, meta }, { routing: `open-run-routing:${ev.id}`, request: `open-run:${ev.id}` }));
  }

  /**
   * An answer the person made of their new message (server/events/chat.ts `answerInstead`):
   * the run that message started is cancelled, saying why. Reactions run in seq order, so the
   * run was opened (or not, for a channel without an entry agent) before this runs.
   */
  private async withdrawRequest(answer: StoredEventOf<"chat.message">, message_id: string): Promise<void> {
    const opened = await this.store.queries.eventByIdempotencyKey(`open-run:${message_id}`);
    if (!opened) return;
    const by = { agent_id: answer.from.agent_id, role: "human" as const, ...(answer.from.display_name ? { display_name: answer.from.display_name } : {}) };
    const asker = answer.to[0] ? agentDisplayName(this.workspace, answer.to[0].agent_id) : "an agent";
    await cancelRun(this.store, opened.run_id, by, `the message was meant as the answer to ${asker}'s question`).catch((err: unknown) => {
      if (!(err instanceof ClutchError && err.code === "run_ended")) throw err;
    });
  }

  /**
   * A person's reply to an agent's message or result (server/events/chat.ts): a new root task
   * of the same run, requested of that agent, whose request names the event it follows in
   * `meta.follows` (docs/channels.md "Follow-ups"; the agent reads the conversation so far,
   * lib/fold/follow-up.ts). The message carries the new task's id; nothing happens when the
   * followed event is not an agent's in that run, or the agent is not one of this workspace's.
   */
  private async openFollowUp(ev: StoredEventOf<"chat.message">, follows: string): Promise<void> {
    const followed = await this.store.queries.eventInRun(ev.run_id, follows);
    const agent_id = ev.to[0]?.agent_id;
    if (!followed || followed.from.agent_id !== agent_id || !this.isAgent(agent_id)) return;
    if (await this.task(ev.task_id)) return; // already requested
    const text = ev.payload.text;
    const firstLine = text.split("\n")[0]!.trim();
    const who = ev.from.display_name ?? ev.from.agent_id;
    const agent = agent_id.replace(/^agent:/, "");
    const name = agentDisplayName(this.workspace, agent_id);
    const at = { thread_id: ev.thread_id, run_id: ev.run_id, task_id: ev.task_id, parent_task_id: null };
    const what = followed.type === "task.result" ? "result" : "message";
    const request = {
      title: requestTitle(firstLine),
      instructions: text,
      context_summary: `Follow-up from ${who}, in reply to ${agent}'s ${what} ${followed.id}; the conversation so far comes with it.`,
      input: { message_id: ev.id, from: ev.from, follows: followed.id },
    };
    await this.store.append(
      assign(at, agent_id, { mode: "fixed", reason: `${who} replied to ${name}'s ${what}: ${name} carries on` }, { payload: request, meta: { follows: followed.id, follow_up_message: ev.id } }, { routing: `follow-up-routing:${ev.id}`, request: `follow-up:${ev.id}` }),
    );
  }

  /** A task ended: release a reviewed result, or wake the delegator; then route waiting requests (an agent may have room now). */
  private async onOutcome(ev: StoredEventOf<"task.result" | "task.error" | "task.timeout" | "task.cancel">): Promise<void> {
    if (!isEvent(ev, "task.result")) {
      const task = await this.task(ev.task_id);
      if (task && this.isAgent(task.assignee) && TERMINAL_STATES.has(task.state as TaskState) && task.state !== "succeeded") {
        // Not awaited: the instance stops on its own time, then what it did is undone; the chain goes on.
        const agent = this.workspace.agents.get(task.assignee)!;
        const job = this.runner
          .abort(task.assignee, task.id)
          .then(async () => {
            if (this.tools) await compensate({ store: this.store, tools: this.tools }, agent, task);
          })
          .catch((err) => log.error({ err, task_id: task.id }, "compensation failed"))
          .finally(() => this.background.delete(job));
        this.background.add(job);
      }
    }
    await this.wakeAfterOutcome(ev);
    // The ended task's agent may be the one a question of the run waits for.
    await answerUnanswerableInRun({ store: this.store, workspace: this.workspace }, ev.run_id);
    if (this.router?.pending.length) await this.router.retryWaiting();
  }

  private async wakeAfterOutcome(ev: StoredEventOf<"task.result" | "task.error" | "task.timeout" | "task.cancel">): Promise<void> {
    const request = await this.store.queries.firstRequest(ev.run_id, ev.task_id);
    const reviewOf = request?.meta?.review_of;
    if (request && typeof reviewOf === "string" && reviewOf) return this.onReviewOutcome(ev, reviewOf, request);
    const parent = await this.task(ev.parent_task_id);
    if (parent && this.isAgent(parent.assignee) && !TERMINAL_STATES.has(parent.state as TaskState)) {
      await this.runner.wake(parent.assignee, parent.id);
    }
  }

  /** CAP oversight: only after the overseer's approval does the result return to the delegator. */
  private async onReviewOutcome(ev: StoredEvent, reviewed_id: string, request: StoredEventOf<"task.request">) {
    const reviewed = await this.task(reviewed_id);
    if (!reviewed || TERMINAL_STATES.has(reviewed.state as TaskState)) return;
    const decision = isEvent(ev, "task.result") ? ev.payload.decision : undefined;
    if (decision !== "approved") {
      if (this.isAgent(reviewed.assignee)) await this.runner.wake(reviewed.assignee, reviewed.id);
      return;
    }
    const reviewedRequest = await this.store.queries.firstRequest(reviewed.run_id, reviewed.id);
    const delegator = reviewedRequest?.from.agent_id;
    const { result, payload_type } = reviewedResult(request);
    await this.store.append(
      makeMessage({
        type: "task.result",
        thread_id: reviewed.thread_id,
        run_id: reviewed.run_id,
        task_id: reviewed.id,
        parent_task_id: reviewed.parent_task_id,
        from: { agent_id: reviewed.assignee!, role: "worker" },
        to: delegator ? [{ agent_id: delegator }] : [],
        ...(payload_type ? { payload_type } : {}),
        payload: result,
        meta: { approved_by: ev.from.agent_id, review_task_id: ev.task_id },
        idempotency_key: `review-approved:${ev.task_id}`,
      }),
    );
  }

  /**
   * Carry on after a restart: dispatch every unfinished task of a workspace agent again (the
   * policy decides once for a task that was never dispatched; the others are woken), route requests
   * still waiting for an agent, resolve approved reviews whose result was not yet released, and
   * open runs for requests that got none and follow-up tasks for follow-ups that got none.
   */
  async recover(): Promise<void> {
    const channels = [...this.channels];
    if (this.allChannels) {
      for (const t of await this.store.listThreads()) {
        const c = await this.channelOf(t.id);
        if (c && !channels.some((b) => b.thread_id === t.id)) channels.push(c);
      }
    }
    const threads = channels.map((c) => c.thread_id);
    const open = await this.store.queries.openTasks(threads);
    for (const t of open) {
      if (!this.isAgent(t.assignee)) continue;
      // Through dispatch: a task the previous process stored but never dispatched passes the policy first.
      const request = await this.store.queries.latestRequest(t.run_id, t.id);
      if (request) await this.dispatch(request, true);
      else await this.runner.wake(t.assignee, t.id, "unless-queued");
    }
    for (const t of open) {
      if (t.assignee !== ORCHESTRATOR.agent_id || !this.router) continue; // a request still to be routed
      const request = await this.store.queries.firstRequest(t.run_id, t.id);
      if (request) await this.router.route(request);
    }

    for (const ev of await this.store.queries.reviewResults(threads)) await this.wakeAfterOutcome(ev);

    // Questions that became unanswerable while no process reacted (their addressee's task ended).
    for (const run_id of new Set(open.filter((t) => Array.isArray(t.open_questions) && t.open_questions.length).map((t) => t.run_id))) {
      await answerUnanswerableInRun({ store: this.store, workspace: this.workspace }, run_id);
    }

    // Compensations the previous process did not finish (or never started).
    if (this.tools) {
      const tools = this.tools;
      const job = compensateEnded({ store: this.store, tools }, [...this.workspace.agents.values()], threads)
        .then(() => undefined)
        .catch((err) => log.error({ err }, "compensation after restart failed"))
        .finally(() => this.background.delete(job));
      this.background.add(job);
    }

    for (const channel of channels) {
      const { run_id } = conversationIds(channel.thread_id);
      for (const ev of await this.store.queries.recentChatMessages(run_id, 20)) {
        if (ev.from.role !== "human" || ev.payload.reply_to) continue;
        const opened = await this.store.queries.eventByIdempotencyKey(`open-run:${ev.id}`);
        if (!opened) await this.openRun(ev, channel);
      }
      await this.recoverFollowUps(channel.thread_id, run_id);
    }
  }

  /**
   * Follow-ups a stopped process never requested (docs/channels.md "Follow-ups"): a person's
   * reply (`meta.follows`) among the newest chat messages of the channel's most recently active
   * runs, with no `follow-up:<message id>` request, is requested now as openFollowUp does.
   */
  private async recoverFollowUps(thread_id: string, conversation_run_id: string): Promise<void> {
    const runs = (await this.store.queries.runsOfThread(thread_id, RECOVER_RUNS_SCANNED))
      .filter((r) => r.id !== conversation_run_id)
      .sort((a, b) => Number(b.last_seq) - Number(a.last_seq))
      .slice(0, RECOVER_RUNS);
    for (const run of runs) {
      for (const ev of await this.store.queries.recentChatMessages(run.id, 20)) {
        if (ev.from.role !== "human" || typeof ev.meta?.follows !== "string") continue;
        const requested = await this.store.queries.eventByIdempotencyKey(`follow-up:${ev.id}`);
        if (!requested) await this.openFollowUp(ev, ev.meta.follows);
      }
    }
  }
}

/** How many of a channel's newest runs recover() reads, and how many of the most recently active of them it looks for follow-ups in. */
const RECOVER_RUNS_SCANNED = 100;
const RECOVER_RUNS = 20;

/** A request's title: its first line, at most 120 characters. */
function requestTitle(line: string): string {
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
