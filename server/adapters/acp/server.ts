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
 *                  it comes in a request of its own: the process serving the call matches it
 *                  by the caller and the call's JSON-RPC id (`inFlight`)
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
import { isEvent, makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { AcpDelta } from "@/lib/acp/delta";
import type { Clutch } from "../../clutch";
import type { Principal } from "../../auth/principal";
import { cancelRun } from "../../lifecycle/cancel";
import { log } from "../../log";
import { followRun, requester, startRemoteRun } from "../../runs/remote";
import { callerTraceMeta, type TraceMeta } from "../../telemetry";

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

/**
 * agents/run calls in flight on this process, by `<principal>\n<JSON-RPC id>`: what cancels each.
 * A stateless call's `notifications/cancelled` arrives in a request of its own (handleAcp).
 */
const inFlight = new Map<string, () => void>();
const flightKey = (principal: Principal, requestId: string | number) => `${principal.agent_id}\n${typeof requestId}:${requestId}`;

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
function acpServer(clutch: Clutch, principal: Principal, trace?: TraceMeta): Server {
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

async function findChannel(clutch: Clutch, name: string): Promise<{ thread_id: string; name: string; entry_agent: string | null } | null> {
  const thread = await clutch.store.queries.threadByName(name);
  return thread ? { thread_id: thread.id, name: thread.name, entry_agent: null } : null;
}

/**
 * The caller's answer to the question run `run_id` waits on (the newest question to people), as
 * a reply in the channel. Returns the run's root task and the question's seq, to follow from.
 */
async function answerQuestion(clutch: Clutch, principal: Principal, run_id: string, thread_id: string, text: string): Promise<{ run_id: string; task_id: string; thread_id: string; after: number }> {
  const { store } = clutch;
  const events = await store.readAll({ run_id });
  if (!events.length || events[0]!.thread_id !== thread_id) throw new McpError(ErrorCode.InvalidParams, `no run ${run_id} in this channel`);
  const root = events.find((e) => isEvent(e, "task.request") && !e.parent_task_id)!;
  const questions = events.filter((e) => isEvent(e, "chat.message") && e.payload.expects_reply && e.to.some((t) => t.agent_id === "user"));
  const question = questions.at(-1);
  const answered = question && events.some((e) => isEvent(e, "chat.message") && e.payload.reply_to === question.id);
  if (!question || answered) throw new McpError(ErrorCode.InvalidParams, `run ${run_id} is not waiting for an answer`);
  await store.append(
    makeMessage({
      type: "chat.message",
      thread_id,
      run_id,
      task_id: question.task_id,
      parent_task_id: question.parent_task_id ?? null,
      from: requester(principal),
      to: [question.from],
      payload: { text, reply_to: question.id },
    }),
  );
  return { run_id, task_id: root.task_id, thread_id, after: question.seq };
}

/**
 * Answer one HTTP request to the ACP endpoint for `principal`: a fresh MCP server and stateless
 * Streamable HTTP transport. `parsedBody` is the request's JSON, read with Clutch's limits.
 */
export async function handleAcp(clutch: Clutch, principal: Principal, req: Request, parsedBody: unknown): Promise<Response> {
  // A cancel of an agents/run in flight comes in a request of its own (no session ties the two):
  // it cancels the run that call follows, if that call is the same principal's.
  for (const msg of Array.isArray(parsedBody) ? parsedBody : [parsedBody]) {
    const cancel = CancelledNotification.safeParse(msg);
    if (cancel.success) inFlight.get(flightKey(principal, cancel.data.params.requestId))?.();
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
