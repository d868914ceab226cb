/**
 * Clutch's agents as AG-UI agents (the open agent↔UI event protocol, 1.0, on the official
 * `@ag-ui/core` and `@ag-ui/encoder`; docs/adapters.md "AG-UI: Clutch's agents as AG-UI agents"):
 * a CopilotKit-style front end, or any `@ag-ui/client` HttpAgent, runs a Clutch agent and sees
 * its run as AG-UI events.
 *
 *   POST /api/ag-ui                    the workspace: a request goes to the agent it @mentions,
 *                                      is routed by the capabilities it @mentions, or goes to the
 *                                      channel's entry agent (as A2A's `/a2a`)
 *   POST /api/ag-ui/agents/<agent>     that agent (its id without `agent:`)
 *
 * The body is AG-UI's RunAgentInput (./server-input.ts; a bad one is 400 invalid_body naming the
 * field). The answer is `text/event-stream` of AG-UI events, or AG-UI's protobuf framing when the
 * Accept header asks for it (EventEncoder), mapped from the run by ./events.ts. The route
 * (app/api/ag-ui/…) has authenticated the caller with a Clutch API key (or session) and counted
 * the call against its writes a minute (app/api/_lib/route.ts; 401, 429); here the caller must
 * be able to read the channel `a2a.channel` of workspace.json names (default: the first), where
 * the run happens like an A2A or ACP run, with the caller as its requester (403 otherwise; 404
 * when the Clutch has no workspace channel or no such agent).
 *
 * Which Clutch run an AG-UI run is:
 *   - `resume` entries (AG-UI 1.0 interrupts): each names a Clutch question by its event id
 *     (`interruptId`); the question must wait in a run the caller started. A resolved entry's
 *     answer (its `payload`: a string or `{ answer }`; else a user message that ends `messages`)
 *     is posted as the caller's reply to the question in the channel, unless someone answered it
 *     there already; a cancelled one cancels the run (`task.cancel`, "the AG-UI caller cancelled
 *     the question"). The AG-UI run follows the Clutch run from the question on.
 *   - else, when `messages` ends with a user message and a run the caller started from the same
 *     AG-UI `threadId` waits on a question to people (the root request keeps the threadId in
 *     `payload.input.ag_ui`), that message is the answer, the same way.
 *   - else a new run: the latest user message is the request (its @mentions route it), the
 *     messages before it and AG-UI's `context` go in the request's `payload.input`
 *     (`conversation`, `context`) for the agent to read. The AG-UI `runId` makes a repeated POST
 *     follow the same run instead of starting another (startRemoteRun's key).
 * Frontend tools (`tools`) and the client's `state` are not used: Clutch's agents call their own
 * tools; the state is Clutch's (STATE_SNAPSHOT).
 *
 * The stream ends with the run's RUN_FINISHED (result or interrupt) or RUN_ERROR. When the
 * client goes away (the request is aborted), following stops; the run goes on in the channel.
 * A W3C `traceparent` header puts a new run under the caller's trace (docs/observability.md).
 * An SSE stream carries a comment every KEEPALIVE_MS while nothing else is sent, so proxies keep
 * it open while agents work.
 */
import { EventEncoder } from "@ag-ui/encoder";
import type { Event as AgUiEvent } from "@ag-ui/core";
import type { StoredEvent, StoredEventOf } from "@/lib/protocol";
import type { Principal } from "../../auth/principal";
import type { ClutchParts } from "../parts";
import { ClutchError } from "../../errors";
import { cancelRun } from "../../lifecycle/cancel";
import { log } from "../../log";
import { followRun, remoteAnswer, requester, startRemoteRun } from "../../runs/remote";
import { callerTraceMeta } from "../../telemetry";
import { isQuestionFor, RunEventMapper, type FollowedRun } from "./events";
import { readRunInput, type AgUiRequest } from "./server-input";

/** How often an idle SSE stream says it is alive (ms). */
export const KEEPALIVE_MS = 15_000;

/** How many open questions of the channel are looked at to find the one an AG-UI thread's run waits on. */
const THREAD_QUESTIONS = 50;

/** The door runs started here name (`payload.input.via`, the idempotency keys). */
const VIA = "ag-ui";

type Channel = { thread_id: string; name: string; entry_agent: string | null };

/** Where the AG-UI run begins following its Clutch run, and whether earlier events need folding. */
interface Followed {
  run: FollowedRun;
  after: number;
  resumed: boolean;
}

/** The channel AG-UI runs happen in: workspace.json's `a2a.channel`, else the first; null without one. */
function channelOf(clutch: ClutchParts): Channel | null {
  const name = clutch.workspace.a2a.channel ?? clutch.channels[0]?.name;
  return clutch.channels.find((c) => c.name === name) ?? null;
}

/** An agent's display name (its card's), else its id without `agent:`. */
function nameOf(clutch: ClutchParts, agent_id: string): string {
  return clutch.registry.get(agent_id)?.card.display.name ?? clutch.workspace.agents.get(agent_id.replace(/^agent:/, ""))?.card.display.name ?? agent_id.replace(/^(agent|user):/, "");
}

/**
 * Answer one AG-UI request of `principal` (see the module doc). `agent`: the agent of
 * `/api/ag-ui/agents/<agent>` (null: the workspace endpoint). `body` is the request's JSON, read
 * with the API's limits. Throws ClutchError (invalid_body 400, forbidden 403, not_found and
 * unknown_agent 404) before anything is stored; after that the answer is the event stream.
 */
export async function handleAgUi(clutch: ClutchParts, principal: Principal, req: Request, body: unknown, agent: string | null): Promise<Response> {
  const ask = readRunInput(body);
  const channel = channelOf(clutch);
  if (!channel) throw new ClutchError("not_found", "this Clutch has no workspace channel to run AG-UI requests in (workspace.json a2a.channel names it)", 404);
  if (!(await clutch.identity.channels.canRead(principal, channel.thread_id))) throw new ClutchError("forbidden", `${principal.agent_id} may not use #${channel.name}, where AG-UI requests run`, 403);
  const target = agent === null ? null : `agent:${agent.replace(/^agent:/, "")}`;
  if (target && !clutch.registry.has(target)) throw new ClutchError("unknown_agent", `no agent ${agent}; POST /api/ag-ui to reach the workspace, or name one of its agents`, 404);

  const followed = ask.answers.length ? await resume(clutch, principal, channel, ask) : ((await continueThread(clutch, principal, channel, ask)) ?? (await start(clutch, principal, channel, target, ask, req)));
  return stream(clutch, req, followed);
}

/** The root task.request of run `run_id`, when `principal` started it. */
async function rootIfStartedBy(clutch: ClutchParts, run_id: string, principal: Principal): Promise<StoredEventOf<"task.request"> | null> {
  const [root] = await clutch.store.queries.rootRequests(run_id, 1);
  return root && root.meta?.requested_by === principal.agent_id ? root : null;
}

/** The Clutch run of `root`'s, as the AG-UI run `ask` follows it. */
function followedRun(root: StoredEvent, channel: Channel, principal: Principal, ask: AgUiRequest): FollowedRun {
  return { run_id: root.run_id, task_id: root.task_id, thread_id: root.thread_id, channel: channel.name, caller: principal.agent_id, ag_ui: { thread_id: ask.input.threadId, run_id: ask.input.runId } };
}

/** The caller's reply `text` to `question` in the channel, unless someone replied already. Idempotent per AG-UI run. */
async function answer(clutch: ClutchParts, principal: Principal, question: StoredEventOf<"chat.message">, text: string, ask: AgUiRequest): Promise<void> {
  if (await clutch.store.queries.answerTo(question.run_id, question.id)) return;
  await clutch.store.append(
    remoteAnswer(principal, question, text, `${VIA}:${principal.agent_id}:${ask.input.runId}:answer:${question.id}`),
  );
}

/** The `resume` entries of `ask`: answer (or cancel) the questions they name; follow their run from the first. */
async function resume(clutch: ClutchParts, principal: Principal, channel: Channel, ask: AgUiRequest): Promise<Followed> {
  const found: { question: StoredEventOf<"chat.message">; entry: AgUiRequest["answers"][number]; i: number }[] = [];
  let root: StoredEventOf<"task.request"> | null = null;
  for (const [i, entry] of ask.answers.entries()) {
    const event = await clutch.store.queries.eventInThread(channel.thread_id, entry.interruptId);
    const question = event && isQuestionFor(event, principal.agent_id) ? event : null;
    const rootOfIt = question ? await rootIfStartedBy(clutch, question.run_id, principal) : null;
    if (!question || !rootOfIt) {
      throw new ClutchError("invalid_body", `resume.${i}.interruptId: no question of a run you started in #${channel.name} has the id ${entry.interruptId}; answer the interrupt the last RUN_FINISHED gave`);
    }
    if (root && root.run_id !== rootOfIt.run_id) throw new ClutchError("invalid_body", `resume.${i}.interruptId: the entries answer questions of different runs; resume one run at a time`);
    root = rootOfIt;
    found.push({ question, entry, i });
  }
  for (const { question, entry, i } of found) {
    if (entry.status === "cancelled") {
      const run = await clutch.store.queries.run(question.run_id);
      if (run && !run.ended_at) await cancelRun(clutch.store, question.run_id, requester(principal), "the AG-UI caller cancelled the question");
      continue;
    }
    const text = entry.text ?? (ask.fresh && ask.request ? ask.request : null);
    if (!text) throw new ClutchError("invalid_body", `resume.${i}.payload: the answer is missing; give { "answer": "…" } as the payload, or end messages with a user message that answers the question`);
    await answer(clutch, principal, question, text, ask);
  }
  return { run: followedRun(root!, channel, principal, ask), after: Math.min(...found.map((f) => f.question.seq)), resumed: true };
}

/**
 * When `ask` ends with a user message and a run the caller started from the same AG-UI thread
 * waits on a question to people: that message answers the newest such question. Null otherwise.
 */
async function continueThread(clutch: ClutchParts, principal: Principal, channel: Channel, ask: AgUiRequest): Promise<Followed | null> {
  if (!ask.fresh || !ask.request) return null;
  const open = await clutch.store.queries.openQuestionsFor(principal.agent_id, [channel.thread_id], THREAD_QUESTIONS);
  const checked = new Map<string, StoredEventOf<"task.request"> | null>();
  for (const question of open) {
    if (!isQuestionFor(question, principal.agent_id)) continue;
    if (!checked.has(question.run_id)) {
      const root = await rootIfStartedBy(clutch, question.run_id, principal);
      const input = root?.payload.input as { via?: unknown; ag_ui?: { thread_id?: unknown } } | undefined;
      checked.set(question.run_id, root && input?.via === VIA && input.ag_ui?.thread_id === ask.input.threadId ? root : null);
    }
    const root = checked.get(question.run_id);
    if (!root) continue;
    await answer(clutch, principal, question, ask.request, ask);
    return { run: followedRun(root, channel, principal, ask), after: question.seq, resumed: true };
  }
  return null;
}

/** A new run for `ask`'s latest user message (see the module doc). */
async function start(clutch: ClutchParts, principal: Principal, channel: Channel, target: string | null, ask: AgUiRequest, req: Request): Promise<Followed> {
  if (!ask.request) throw new ClutchError("invalid_body", 'messages: there is no user message with text; add { "role": "user", "content": "…" } saying what you need');
  const { conversation, context } = ask.context;
  const started = await startRemoteRun(clutch, {
    principal,
    channel,
    target,
    text: ask.request,
    via: VIA,
    key: ask.input.runId,
    input: { ag_ui: { thread_id: ask.input.threadId, run_id: ask.input.runId }, ...(conversation.length ? { conversation } : {}), ...(context.length ? { context } : {}) },
    trace: await callerTraceMeta(req.headers),
  });
  const run: FollowedRun = { run_id: started.run_id, task_id: started.task_id, thread_id: started.thread_id, channel: channel.name, caller: principal.agent_id, ag_ui: { thread_id: ask.input.threadId, run_id: ask.input.runId } };
  return { run, after: started.after, resumed: false };
}

/**
 * The AG-UI event stream of `followed`: RUN_STARTED, then the run from `after` on (stored events
 * and live text streams, one at a time in arrival order), until RUN_FINISHED or RUN_ERROR or the
 * client goes away.
 */
function stream(clutch: ClutchParts, req: Request, followed: Followed): Response {
  const encoder = new EventEncoder({ accept: req.headers.get("accept") ?? undefined });
  const sse = encoder.getContentType() === "text/event-stream";
  const { run, after } = followed;
  const stop = new AbortController();
  let out: ReadableStreamDefaultController<Uint8Array> | null = null;
  let closed = false;
  let lastWrite = Date.now();
  let unlisten = () => {};
  let keepalive: NodeJS.Timeout | undefined;

  const write = (bytes: Uint8Array) => {
    if (closed || !out) return;
    try {
      out.enqueue(bytes);
      lastWrite = Date.now();
    } catch {
      end();
    }
  };
  const end = () => {
    if (closed) return;
    closed = true;
    stop.abort();
    unlisten();
    clearInterval(keepalive);
    req.signal.removeEventListener("abort", end);
    try {
      out?.close();
    } catch {
      // the client went away first
    }
  };
  const mapper = new RunEventMapper(
    run,
    (event: AgUiEvent) => write(encoder.encodeBinary(event)),
    (agent_id) => nameOf(clutch, agent_id),
    async (question) => Boolean(await clutch.store.queries.answerTo(question.run_id, question.id)),
  );
  // Everything goes through one queue, so events leave in the order they came.
  let queue = Promise.resolve();
  const push = (step: () => void | Promise<void>) => {
    queue = queue
      .then(async () => {
        if (closed || mapper.ended) return;
        await step();
        if (mapper.ended) end();
      })
      .catch((err: unknown) => {
        log.error({ err, run_id: run.run_id }, "AG-UI: streaming the run failed");
        try {
          mapper.failed();
        } catch (again) {
          log.error({ err: again, run_id: run.run_id }, "AG-UI: saying the run failed failed");
        }
        end();
      });
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      if (req.signal.aborted) return end();
      req.signal.addEventListener("abort", end, { once: true });
      unlisten = clutch.streams.listen((e) => {
        if ("open" in e || "delta" in e || "end" in e) push(() => mapper.stream(e));
      });
      push(async () => {
        if (followed.resumed) mapper.seed((await clutch.store.readAll({ run_id: run.run_id })).filter((e) => e.seq <= after));
        mapper.start();
        for (const info of clutch.streams.openIn({ run_id: run.run_id })) mapper.stream({ open: info });
      });
      void followRun(
        clutch,
        run,
        after,
        {
          event: (ev) => push(() => mapper.stored(ev)),
          ended: () => {},
          failed: (err) => {
            log.error({ err, run_id: run.run_id }, "AG-UI: reading the run failed");
            push(() => mapper.failed());
          },
        },
        stop.signal,
      );
      if (sse) {
        const comment = new TextEncoder().encode(": keep-alive\n\n");
        keepalive = setInterval(() => {
          if (Date.now() - lastWrite >= KEEPALIVE_MS) write(comment);
        }, KEEPALIVE_MS);
        keepalive.unref();
      }
    },
    cancel() {
      end();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": encoder.getContentType(), "cache-control": "no-store, no-transform", "x-accel-buffering": "no" } });
}
