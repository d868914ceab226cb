/**
 * Clutch as an ACP server (the Agent Communication Protocol, seed 003; docs/adapters.md "ACP"):
 * MCP with the `agents` capability, on the official `@modelcontextprotocol/sdk` over Streamable
 * HTTP at `POST /api/acp`, stateless (a server and transport per call). The caller is a Clutch
 * person or agent key, as for the rest of the API.
 *
 *   agents/list  → { agents: [{ name, description, inputSchema, outputSchema }] }: the agents the
 *                  caller may run (the workspace's and registered ones), by bare id (`pm-1`)
 *   agents/run { name, input: { text, channel?, run_id? } } → { output }: a run in the channel
 *                  (`channel`, else workspace.json's a2a.channel, else the first), where people
 *                  watch it live like any other with the caller as its requester; `run_id`
 *                  continues a run that stopped at a question (the text is the answer)
 *   notifications/agents/run/progress { progressToken, delta }: when the call carries
 *                  `_meta.progressToken`, the output as it grows, one delta per step; joined with
 *                  the seed's delta algorithm (lib/acp/delta.ts) they are the final output
 *   notifications/cancelled for a run in flight → the run is cancelled in Clutch. Stateless,
 *                  it comes in a request of its own, maybe to another node: the process serving
 *                  the call matches it by the caller and the call's JSON-RPC id (`inFlight`); a
 *                  node that does not serve the call tells the deployment's others over its bus
 *                  (server/streams/bus.ts), so no sticky routing is needed
 *
 * An outside agent's reply streams the other way with the same notification (`agentProgress`):
 *   notifications/agents/run/progress { progressToken: <task id>[#<label>], delta: { text } }
 *                  sent to this endpoint with the key of the agent a Clutch task is assigned to
 *                  (the work it found in its inbox): the texts, joined with the seed's delta
 *                  algorithm (strings concatenate), grow the StreamHub stream `acp:<progressToken>`
 *                  of the task (server/streams/hub.ts; kind `result`, to the task's requester),
 *                  opened by the first and written from outside (interrupted after the hub's
 *                  external idle time without a delta). It ends `done` when the agent's next
 *                  chat.message or task.result of the task is stored (it names the stream with
 *                  `meta.stream_id: "acp:<progressToken>"`, so browsers swap one for the other),
 *                  `interrupted` when the task fails, is cancelled or times out. Accepted: HTTP 202;
 *                  refused: HTTP 400 (bad params), 403 (not the task's assignee), 404 (no such
 *                  task), 409 (the task or that stream ended, a person stopped it, or another node
 *                  writes it) with a JSON-RPC error `{ id: null, error: { code: -32602, message } }`.
 *                  Nothing of it is stored; one progressToken is one message, of at most a
 *                  chat.message's 100,000 characters (more is refused, 400).
 *
 * The output (OUTPUT_SCHEMA): `{ run_id, thread_id, channel, steps[], status, text }`; `status`
 * is succeeded, failed, timed_out, cancelled, or input_required (a question waits for the
 * caller: `text` is the question; call again with `run_id` and the answer). A W3C `traceparent`
 * header on the call puts the run it starts under the caller's trace when traces are exported
 * (docs/observability.md "Traces (OpenTelemetry)").
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ChatMessagePayload, isEvent, newId, type StoredEvent } from "@/lib/protocol";
import type { AcpDelta } from "@/lib/acp/delta";
import { TERMINAL_STATES, type TaskState } from "@/lib/fold/task-state";
import { STREAM_META } from "@/lib/realtime/streams";
import type { Principal } from "../../auth/principal";
import type { ClutchParts } from "../parts";
import { cancelRun } from "../../lifecycle/cancel";
import { log } from "../../log";
import { followRun, remoteAnswer, requester, startRemoteRun } from "../../runs/remote";
import { callerTraceMeta, type TraceMeta } from "../../telemetry";
import type { StreamWriter } from "../../streams/hub";

/** What `agents/run` takes as `input`. */
export const INPUT_SCHEMA = {
  type: "object",
  properties: {
    text: { type: "string", minLength: 1, description: "The request, as a person would write it in the channel" },
    channel: { type: "string", description: "The channel to run in (default: the workspace's A2A channel, else its first)" },
    run_id: { type: "string", description: "Continue this run, stopped at a question: text is the answer" },
  },
  required: ["text"],
} as const;

/** What `agents/run` answers as `output`. */
export const OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    run_id: { type: "string" },
    thread_id: { type: "string" },
    channel: { type: "string" },
    steps: { type: "array", items: { type: "string" }, description: "What happened, one line per step: <agent>: <what>" },
    status: { type: "string", enum: ["succeeded", "failed", "timed_out", "cancelled", "input_required"] },
    text: { type: "string", description: "The result's report, the error, or the question that waits" },
  },
  required: ["run_id", "thread_id", "channel", "steps", "status", "text"],
} as const;

const CancelledNotification = z.object({ method: z.literal("notifications/cancelled"), params: z.looseObject({ requestId: z.union([z.string(), z.number()]) }) });
const AgentsListRequest = z.object({ method: z.literal("agents/list"), params: z.looseObject({}).optional() });
/** The request as the SDK routes it; its params are checked in the handler, so a bad one is InvalidParams (-32602). */
const AgentsRunRequest = z.object({ method: z.literal("agents/run"), params: z.unknown() });
const AgentsRunParams = z.looseObject({
  name: z.string({ error: "name: the agent to run, as agents/list names it" }).min(1, "name: the agent to run, as agents/list names it"),
  input: z.looseObject({
    text: z.string({ error: "input.text is the request; it is required" }).trim().min(1, "input.text is the request; it must not be empty"),
    channel: z.string().optional(),
    run_id: z.string().optional(),
  }, { error: "input: { text, channel?, run_id? } is required" }),
  _meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
});

/** The seed's progress notification: Clutch sends it to callers of agents/run, and outside agents send it to Clutch (agentProgress). */
const PROGRESS = "notifications/agents/run/progress";
const AgentProgressNotification = z.object({ method: z.literal(PROGRESS), params: z.unknown() });
const TOKEN_HELP = "progressToken: the id of the Clutch task you work on (task_…), or <task id>#<label> for each further message of it";
const AgentProgressParams = z.looseObject({
  progressToken: z.string({ error: TOKEN_HELP }).min(1, TOKEN_HELP).max(300, "progressToken: at most 300 characters"),
  delta: z.strictObject({ text: z.string({ error: "delta.text: the text to add to the message, a string" }) }, { error: "delta: { text } is what Clutch takes from an agent's progress" }),
});

/** The most a streamed message holds, in characters: a chat.message's text. */
const MAX_PROGRESS_CHARS = ChatMessagePayload.shape.text.maxLength ?? 100_000;

/** An agent's progress Clutch does not take: the HTTP status and what to do about it. */
export class ProgressRefused extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = "ProgressRefused";
  }
}

/**
 * One progress delta of an outside agent on its Clutch task (see the module doc): the stream
 * `acp:<progressToken>` grows by `delta.text`, opened (written from outside) by the first delta
 * with text. Throws ProgressRefused when the params are bad, the task is not the principal's or
 * has ended, or the stream ended (a person's Stop among them) or is written on another node.
 */
export async function agentProgress(clutch: Pick<ClutchParts, "store" | "tail" | "streams">, principal: Principal, params: unknown): Promise<void> {
  const parsed = AgentProgressParams.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join(".");
    throw new ProgressRefused(400, issue.message.includes(":") || !where ? issue.message : `${where}: ${issue.message}`);
  }
  const { progressToken: token, delta } = parsed.data;
  const hash = token.indexOf("#");
  const task_id = hash < 0 ? token : token.slice(0, hash);
  const stream_id = `acp:${token}`;
  const hub = clutch.streams;
  const written = (): StreamWriter | null => {
    const writer = hub.writer(stream_id);
    const held = hub.get(stream_id);
    const ended = writer?.ended ?? held?.ended ?? null;
    if (ended) {
      const next = `a new message takes a new progressToken (${task_id}#<label>)`;
      if (ended.status === "stopped") throw new ProgressRefused(409, `${ended.stopped_by ?? "a person"} stopped stream ${stream_id}: stop writing it and store nothing for it (the Stop kept what was written); ${next}`);
      throw new ProgressRefused(409, `stream ${stream_id} has ended (${ended.status}${ended.reason ? `: ${ended.reason}` : ""}); ${next}`);
    }
    if (!writer && held) throw new ProgressRefused(409, `stream ${stream_id} is written through another Clutch node: send all progress of a task to one node (sticky by API key)`);
    if (writer && writer.info.author !== principal.agent_id) throw new ProgressRefused(403, `stream ${stream_id} is ${writer.info.author}'s, not ${principal.agent_id}'s`);
    return writer;
  };
  /** `delta.text` after `sofar` characters, refused past a message's length. */
  const fits = (sofar: number) => {
    const length = sofar + delta.text.length;
    if (length > MAX_PROGRESS_CHARS) {
      throw new ProgressRefused(400, `delta.text: the message would be ${length.toLocaleString("en-US")} characters, and one is at most ${MAX_PROGRESS_CHARS.toLocaleString("en-US")}; store it and stream the rest under a new progressToken (${task_id}#<label>)`);
    }
  };
  const grow = (writer: StreamWriter) => {
    fits(writer.text.length);
    writer.append(delta.text);
  };
  const open = written();
  if (open) return grow(open);

  const task = await clutch.store.queries.task(task_id);
  if (!task) throw new ProgressRefused(404, `no task ${task_id}: ${TOKEN_HELP}`);
  if (task.assignee !== principal.agent_id) throw new ProgressRefused(403, `task ${task_id} is assigned to ${task.assignee ?? "nobody yet"}, not to ${principal.agent_id}; only its assignee writes its progress`);
  if (TERMINAL_STATES.has(task.state as TaskState)) throw new ProgressRefused(409, `task ${task_id} has ended (${task.state}); its progress shows no more`);
  // Another delta of the same stream may have opened it while the task was read.
  const meanwhile = written();
  if (meanwhile) return grow(meanwhile);
  if (!delta.text) return;
  fits(0);
  const writer = hub.open(
    { stream_id, thread_id: task.thread_id, run_id: task.run_id, task_id, author: principal.agent_id, to: task.requester ? [task.requester] : [], kind: "result" },
    { external: true },
  );
  writer.append(delta.text);
  endWithTask(clutch, writer);
}

/**
 * End an outside agent's stream with its task's log (see the module doc): done at the agent's next
 * chat.message or task.result of the task (one naming the stream, or naming none), interrupted
 * when the task fails, is cancelled or times out. Stops watching once the stream ended, however.
 */
function endWithTask(clutch: Pick<ClutchParts, "tail" | "streams">, writer: StreamWriter): void {
  const { stream_id, info } = writer;
  let watching = true;
  const stopWatching = () => {
    if (!watching) return;
    watching = false;
    unsubscribe();
    unlisten();
  };
  const unlisten = clutch.streams.listen((e) => {
    if ("end" in e && e.end.stream_id === stream_id) stopWatching();
  });
  const unsubscribe = clutch.tail.subscribe((ev) => {
    if (ev.task_id !== info.task_id) return;
    const named = ev.meta?.[STREAM_META];
    if (ev.from.agent_id === info.author && isEvent(ev, "chat.message", "task.result") && (named === undefined || named === stream_id)) writer.end("done");
    else if (isEvent(ev, "task.error")) writer.end("interrupted", { reason: `the task failed: ${ev.payload.message}` });
    else if (isEvent(ev, "task.cancel")) writer.end("interrupted", { reason: `the task was cancelled${ev.payload.reason ? `: ${ev.payload.reason}` : ""}` });
    else if (isEvent(ev, "task.timeout")) writer.end("interrupted", { reason: "the task timed out" });
  });
  if (writer.ended) stopWatching();
}

/**
 * agents/run calls in flight on this process, by `<principal>\n<JSON-RPC id>`: what cancels each.
 * A stateless call's `notifications/cancelled` arrives in a request of its own (handleAcp).
 */
const inFlight = new Map<string, () => void>();
const flightKey = (principal: Principal, requestId: string | number) => `${principal.agent_id}\n${typeof requestId}:${requestId}`;
/** The buses this process hears other nodes' cancels on (one per Clutch). */
const hearing = new WeakSet<object>();

/**
 * Cancel the call `key` (flightKey): here when this process serves it, else on the node that
 * does, told over the deployment's bus as `{ acp_cancel: key }`.
 */
function cancelFlight(clutch: ClutchParts, key: string): void {
  const here = inFlight.get(key);
  if (here) return here();
  clutch.bus.publish(JSON.stringify({ acp_cancel: key }));
}

/** Hear the deployment's other nodes' cancels of the calls this process serves (once per bus). */
function hearCancels(clutch: ClutchParts): void {
  if (hearing.has(clutch.bus)) return;
  hearing.add(clutch.bus);
  clutch.bus.subscribe((raw) => {
    let key: unknown;
    try {
      key = (JSON.parse(raw) as { acp_cancel?: unknown }).acp_cancel;
    } catch {
      return;
    }
    if (typeof key === "string") inFlight.get(key)?.();
  });
}

const bare = (id: string) => id.replace(/^agent:/, "");

/** A step line for the output: `<agent>: <what>`, or null for events that are not steps. */
export function stepOf(ev: StoredEvent): string | null {
  const who = bare(ev.from.agent_id);
  if (isEvent(ev, "task.progress") && ev.payload.message) return `${who}: ${ev.payload.message}`;
  if (isEvent(ev, "task.request") && ev.to[0] && ev.from.agent_id !== "agent:orchestrator") return `${who} → ${bare(ev.to[0].agent_id)}: ${ev.payload.title ?? "a task"}`;
  if (isEvent(ev, "task.accept")) return `${who}: started`;
  if (isEvent(ev, "chat.message") && ev.from.role !== "human") return `${who}: ${ev.payload.text.split("\n")[0]!.slice(0, 300)}`;
  if (isEvent(ev, "tool.call")) return `${who}: calls ${ev.payload.tool}`;
  if (isEvent(ev, "task.result") && ev.task_id) return `${who}: finished`;
  return null;
}

/** The MCP server of one call, for `principal` (see the module doc); `trace`: the call's W3C trace context. */
function acpServer(clutch: ClutchParts, principal: Principal, trace?: TraceMeta): Server {
  const server = new Server({ name: "clutch", version: clutch.version }, { capabilities: { agents: {} } as Record<string, object> });

  const runnable = () =>
    clutch.registry
      .list()
      .filter((a) => a.agent_id.startsWith("agent:"))
      .sort((a, b) => a.agent_id.localeCompare(b.agent_id));

  server.setRequestHandler(AgentsListRequest, async () => ({
    agents: runnable().map((a) => ({
      name: bare(a.agent_id),
      description: a.card.display.desc ?? a.card.display.name,
      inputSchema: INPUT_SCHEMA,
      outputSchema: OUTPUT_SCHEMA,
    })),
  }));

  server.setRequestHandler(AgentsRunRequest, async (request, extra) => {
    const parsed = AgentsRunParams.safeParse(request.params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new McpError(ErrorCode.InvalidParams, issue.message.includes(":") || issue.message.startsWith("input") ? issue.message : `${issue.path.join(".")}: ${issue.message}`);
    }
    const { name, input, _meta } = parsed.data;
    const agent = runnable().find((a) => bare(a.agent_id) === name || a.agent_id === name);
    if (!agent) throw new McpError(ErrorCode.InvalidParams, `no agent ${name}; agents/list names the agents you may run`);
    const channelName = input.channel ?? clutch.workspace.a2a.channel ?? clutch.channels[0]?.name;
    const channel = clutch.channels.find((c) => c.name === channelName) ?? (channelName ? await findChannel(clutch, channelName) : null);
    if (!channel) throw new McpError(ErrorCode.InvalidParams, channelName ? `no channel #${channelName}` : "this Clutch has no channel to run in; name one with input.channel");
    if (!(await clutch.identity.channels.canRead(principal, channel.thread_id))) throw new McpError(ErrorCode.InvalidParams, `${principal.agent_id} may not use #${channel.name}`);

    const token = _meta?.progressToken;
    const send = (delta: AcpDelta) =>
      token === undefined ? Promise.resolve() : extra.sendNotification({ method: "notifications/agents/run/progress", params: { progressToken: token, delta } } as never).catch(() => {});

    let run: { run_id: string; task_id: string; thread_id: string };
    let after: number;
    if (input.run_id) {
      const resumed = await answerQuestion(clutch, principal, input.run_id, channel.thread_id, input.text);
      run = resumed;
      after = resumed.after;
    } else {
      const started = await startRemoteRun(clutch, { principal, channel, target: agent.agent_id, text: input.text, via: "acp", key: newId("message"), trace });
      run = started;
      after = started.after;
    }
    const output = { run_id: run.run_id, thread_id: run.thread_id, channel: channel.name, steps: [] as string[], status: "failed", text: "" };
    await send({ run_id: output.run_id, thread_id: output.thread_id, channel: output.channel, steps: [] });

    const abort = () => void cancelRun(clutch.store, run.run_id, requester(principal), "cancelled by the ACP caller").catch((err) => log.warn({ err, run_id: run.run_id }, "ACP: cancelling the run failed"));
    let ended = false;
    extra.signal.addEventListener("abort", () => ended || abort(), { once: true });
    const key = flightKey(principal, extra.requestId);
    inFlight.set(key, () => ended || abort());

    await followRun(
      clutch,
      run,
      after,
      {
        event: (ev) => {
          const step = stepOf(ev);
          if (!step) return;
          output.steps.push(step);
          void send({ steps: [null, step] });
        },
        question: (ev) => {
          output.status = "input_required";
          output.text = ev.payload.text;
          return true;
        },
        ended: (ev) => {
          if (isEvent(ev, "task.result")) {
            const p = ev.payload as Record<string, unknown>;
            output.status = "succeeded";
            output.text = typeof p.report_markdown === "string" ? p.report_markdown : typeof p.summary === "string" ? p.summary : "Done.";
          } else if (isEvent(ev, "task.error")) {
            output.status = "failed";
            output.text = `${ev.payload.code}: ${ev.payload.message}`;
          } else if (isEvent(ev, "task.timeout")) {
            output.status = "timed_out";
            output.text = ev.payload.message ?? "The task timed out";
          } else {
            output.status = "cancelled";
            output.text = isEvent(ev, "task.cancel") ? (ev.payload.reason ?? "Cancelled") : "Cancelled";
          }
        },
        failed: (err) => {
          log.error({ err, run_id: run.run_id }, "ACP: reading the run failed");
          output.text = "Clutch could not read the run";
        },
      },
      extra.signal,
    );
    ended = true;
    inFlight.delete(key);
    await send({ status: output.status, text: output.text });
    return { output };
  });
  return server;
}

async function findChannel(clutch: ClutchParts, name: string): Promise<{ thread_id: string; name: string; entry_agent: string | null } | null> {
  const thread = await clutch.store.queries.threadByName(name);
  return thread ? { thread_id: thread.id, name: thread.name, entry_agent: null } : null;
}

/**
 * The caller's answer to the question run `run_id` waits on (the newest question to people), as
 * a reply in the channel. Returns the run's root task and the question's seq, to follow from.
 */
async function answerQuestion(clutch: ClutchParts, principal: Principal, run_id: string, thread_id: string, text: string): Promise<{ run_id: string; task_id: string; thread_id: string; after: number }> {
  const { store } = clutch;
  const events = await store.readAll({ run_id });
  if (!events.length || events[0]!.thread_id !== thread_id) throw new McpError(ErrorCode.InvalidParams, `no run ${run_id} in this channel`);
  const root = events.find((e) => isEvent(e, "task.request") && !e.parent_task_id)!;
  const questions = events.filter((e) => isEvent(e, "chat.message") && e.payload.expects_reply && e.to.some((t) => t.agent_id === "user"));
  const question = questions.at(-1);
  const answered = question && events.some((e) => isEvent(e, "chat.message") && e.payload.reply_to === question.id);
  if (!question || answered) throw new McpError(ErrorCode.InvalidParams, `run ${run_id} is not waiting for an answer`);
  await store.append(remoteAnswer(principal, question, text));
  return { run_id, task_id: root.task_id, thread_id, after: question.seq };
}

/**
 * Answer one HTTP request to the ACP endpoint for `principal`: a fresh MCP server and stateless
 * Streamable HTTP transport. `parsedBody` is the request's JSON, read with Clutch's limits.
 */
export async function handleAcp(clutch: ClutchParts, principal: Principal, req: Request, parsedBody: unknown): Promise<Response> {
  // A cancel of an agents/run in flight comes in a request of its own (no session ties the two):
  // it cancels the run that call follows, if that call is the same principal's.
  hearCancels(clutch);
  const messages: unknown[] = Array.isArray(parsedBody) ? parsedBody : [parsedBody];
  for (const msg of messages) {
    const cancel = CancelledNotification.safeParse(msg);
    if (cancel.success) cancelFlight(clutch, flightKey(principal, cancel.data.params.requestId));
  }
  // An outside agent's progress on its task is Clutch's to take (agentProgress), not the MCP server's.
  const progress = messages.filter((m) => AgentProgressNotification.safeParse(m).success) as { params: unknown }[];
  if (progress.length) {
    try {
      for (const p of progress) await agentProgress(clutch, principal, p.params);
    } catch (err) {
      if (!(err instanceof ProgressRefused)) throw err;
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.InvalidParams, message: err.message } }, { status: err.status });
    }
    const rest = messages.filter((m) => !progress.includes(m as { params: unknown }));
    if (!rest.length) return new Response(null, { status: 202 });
    parsedBody = Array.isArray(parsedBody) ? rest : rest[0];
  }
  // The caller's traceparent puts a run it starts under its trace (docs/observability.md).
  const server = acpServer(clutch, principal, await callerTraceMeta(req.headers));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  const res = await transport.handleRequest(req, { parsedBody });
  // The stream closes when the last response is written; the server goes with it.
  transport.onclose = () => void server.close().catch(() => {});
  return res;
}
