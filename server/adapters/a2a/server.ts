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
 * The A2A tasks are kept in memory (the SDK's InMemoryTaskStore): after a restart the runs go on
 * and are in the log, but tasks/get no longer knows their A2A ids.
 */
import express, { type Request, type Response, type NextFunction } from "express";
import { AgentCard, Role, TaskState, type AgentSkill, type Message, type TaskStatus } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext, type User } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { isEvent, makeMessage, newId } from "@/lib/protocol";
import type { Clutch } from "../../clutch";
import type { Principal } from "../../auth/principal";
import { cancelRun } from "../../lifecycle/cancel";
import { followRun, requester, startRemoteRun } from "../../runs/remote";
import { log } from "../../log";
import { countWrite } from "../../http/write-limit";
import { partsText, textPart } from "./client";

/** How long a blocking message/send waits for its task to finish by default (seconds; docs/limits.md). */
export const A2A_BLOCKING_SEC = 30;

/** CLUTCH_A2A_BLOCKING_SEC when it is a positive number, else A2A_BLOCKING_SEC (seconds). */
export function blockingSec(env: Record<string, string | undefined> = process.env): number {
  const v = Number(env.CLUTCH_A2A_BLOCKING_SEC);
  return Number.isFinite(v) && v > 0 ? v : A2A_BLOCKING_SEC;
}

/** The caller, as the SDK carries it into the executor. */
class ClutchUser implements User {
  constructor(readonly principal: Principal) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.principal.agent_id;
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

/** Carries an A2A message into a Clutch run and the run's events back as the A2A task. */
class RunExecutor implements AgentExecutor {
  private readonly links = new Map<string, RunLink>();
  /** The A2A task each incoming message went to (message id → task id), for a bounded message/send. */
  private readonly taskOfMessage = new Map<string, string>();

  /** The A2A task message `messageId` went to, once its execution started. */
  taskOf(messageId: string): string | undefined {
    return this.taskOfMessage.get(messageId);
  }

  /** `target`: the exposed agent this endpoint is (null: the workspace, which routes). */
  constructor(
    private readonly clutch: Clutch,
    private readonly channel: { thread_id: string; name: string; entry_agent: string | null },
    private readonly target: string | null,
  ) {}

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
    const run = await this.clutch.store.queries.run(link.run_id);
    if (run && !run.ended_at) await cancelRun(this.clutch.store, link.run_id, link.caller, "cancelled over A2A");
    if (!run || run.ended_at || link.question_id) canceled(link.context_id);
  };

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
    const principal = (rc.context.user as ClutchUser).principal;
    const text = partsText(rc.userMessage.parts).trim();
    const { taskId, contextId } = rc;
    const status = (state: TaskState, message?: string): TaskStatus => ({ state, timestamp: now(), message: message ? agentText(message, taskId, contextId) : undefined });
    const update = (state: TaskState, message?: string) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: {} }));

    let link = this.links.get(taskId);
    let after: number;
    if (rc.task) {
      bus.publish(AgentEvent.task(rc.task));
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
      const started = await startRemoteRun(this.clutch, { principal, channel: this.channel, target: this.target, text, via: "a2a", key: rc.userMessage.messageId });
      link = { run_id: started.run_id, task_id: started.task_id, thread_id: started.thread_id, question_id: null, caller: requester(principal), context_id: contextId };
      after = started.after;
      this.links.set(taskId, link);
      bus.publish(
        AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [rc.userMessage], metadata: { clutch: { run_id: link.run_id, thread_id: link.thread_id, channel: this.channel.name } } }),
      );
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
    const since = await store.readAll({ run_id: question.run_id }, question.seq);
    if (!since.some((e) => isEvent(e, "chat.message") && e.payload.reply_to === question.id)) {
      await store.append(
        makeMessage({
          type: "chat.message",
          thread_id: link.thread_id,
          run_id: question.run_id,
          task_id: question.task_id,
          parent_task_id: question.parent_task_id ?? null,
          from: requester(p),
          to: [question.from],
          payload: { text, reply_to: question.id },
        }),
      );
    }
    return question.seq;
  }

  /** Stream the run's events after `after` as the A2A task's, until its root ends or a question waits for the caller. */
  private follow(link: RunLink, after: number, ids: { taskId: string; contextId: string }, bus: ExecutionEventBus, update: (s: TaskState, m?: string) => void): Promise<void> {
    return followRun(this.clutch, link, after, {
      progress: (ev) => update(TaskState.TASK_STATE_WORKING, `${ev.from.agent_id.replace(/^agent:/, "")}: ${ev.payload.message}`),
      question: (ev) => {
        link.question_id = ev.id;
        update(TaskState.TASK_STATE_INPUT_REQUIRED, ev.payload.text);
        return true;
      },
      ended: (ev) => {
        if (isEvent(ev, "task.result")) {
          const p = ev.payload as Record<string, unknown>;
          const report = typeof p.report_markdown === "string" ? p.report_markdown : typeof p.summary === "string" ? p.summary : "Done.";
          bus.publish(
            AgentEvent.artifactUpdate({
              ...ids,
              artifact: { artifactId: "result", name: "result", description: typeof p.summary === "string" ? p.summary : "", parts: [textPart(report), { content: { $case: "data", value: p }, metadata: undefined, filename: "", mediaType: "application/json" }], metadata: undefined, extensions: [] },
              append: false,
              lastChunk: true,
              metadata: undefined,
            }),
          );
          update(TaskState.TASK_STATE_COMPLETED, typeof p.summary === "string" ? p.summary : undefined);
        } else if (isEvent(ev, "task.cancel")) update(TaskState.TASK_STATE_CANCELED, ev.payload.reason ?? "Cancelled");
        else update(TaskState.TASK_STATE_FAILED, isEvent(ev, "task.error") ? `${ev.payload.code}: ${ev.payload.message}` : "The task timed out");
      },
      failed: (err) => {
        log.error({ err, run_id: link.run_id }, "A2A: reading the run failed");
        update(TaskState.TASK_STATE_FAILED, "Clutch could not read the run");
      },
    });
  }
}

type SendParams = Parameters<DefaultRequestHandler["sendMessage"]>;

/**
 * The SDK's request handler with a bound on a blocking message/send (see the module doc): after
 * `boundMs` it answers with the task as the task store has it then, while the run and the
 * SDK's processing of its events go on (tasks/get reads the same store).
 */
class BoundedRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: InMemoryTaskStore,
    private readonly executor: RunExecutor,
    private readonly boundMs: number,
  ) {
    super(card, tasks, executor);
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
}

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
 * The Express app of Clutch's A2A endpoints (see the module doc). `base`: Clutch's public URL
 * (CLUTCH_PUBLIC_URL, else http://localhost:<port>), which the cards name. `opts.blockingSec`:
 * the bound of a blocking message/send (default: `blockingSec()`, CLUTCH_A2A_BLOCKING_SEC or 30). Without a workspace
 * channel there is nothing to start runs in: every path answers 404.
 */
export function a2aApp(clutch: Clutch, base: string, opts: { blockingSec?: number } = {}): express.Express {
  const boundMs = (opts.blockingSec ?? blockingSec()) * 1000;
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
      res.setHeader("retry-after", String(limited.wait_sec));
      return reject(429, `too many calls: at most ${limited.per_minute} writes a minute; retry in ${limited.wait_sec} s`);
    }
    res.locals.principal = principal;
    next();
  };
  const mount = (path: string, card: AgentCard, target: string | null) => {
    const tasks = new InMemoryTaskStore();
    const executor = new RunExecutor(clutch, channel, target);
    const handler = new BoundedRequestHandler(card, tasks, executor, boundMs);
    app.use(`${path}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
    const rpc = jsonRpcHandler({ requestHandler: handler, userBuilder: async (req) => new ClutchUser((req.res as Response).locals.principal as Principal), legacyCompat: { enabled: true } });
    // The endpoint itself only: a longer path under it (another agent's, one that does not exist) goes on.
    app.use(path, (req, res, next) => (req.path === "/" ? void authenticate(req, res, () => rpc(req, res, next)).catch(next) : next()));
  };
  for (const a of exposed) {
    mount(`/a2a/agents/${a.manifest.id}`, cardOf(base, `/a2a/agents/${a.manifest.id}`, a.card.display.name, skillOf(a).description, [skillOf(a)]), a.agent_id);
  }
  const workspaceCard = cardOf(base, "/a2a", "Clutch", `The agents of this Clutch workspace, working in #${channel.name}. @mention an agent or a capability to choose who works on a request.`, exposed.map(skillOf));
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: async () => workspaceCard, legacyCompat: { enabled: true } }));
  mount("/a2a", workspaceCard, null);
  app.use((req, res) => notFound(res, `no A2A endpoint at ${req.path}; the workspace's card is at /.well-known/agent-card.json`));
  return app;
}

/** Whether a request path is one of the A2A endpoints'. */
export function isA2APath(pathname: string): boolean {
  return pathname === "/.well-known/agent-card.json" || pathname === "/a2a" || pathname.startsWith("/a2a/");
}
