/**
 * Security regressions from the private-work drill (docs/identity.md "The agent directory",
 * docs/observability.md "What a trace carries"). Each test failed before its fix:
 *
 * - the agent directory is cut per reader: a member who is not in a private channel, and a
 *   guest, see none of the tasks an agent worked on there (titles, run, task and channel ids),
 *   neither from `GET /api/agents` nor in the `agents.changed` push; a member of the channel sees
 *   them in both; a person added to the channel gets them with the next push, and loses them
 *   with the one after their removal. Before, every signed-in principal got every agent's newest
 *   tasks of every channel;
 * - trace export leaves private channels' and DMs' content in the workspace: by default the
 *   spans of their runs carry "(private)" in place of run and task titles, approval summaries
 *   and error messages, with ids and timings kept; with CLUTCH_TRACE_PRIVATE_CONTENT=1 they are
 *   sent whole; a public channel's run is sent whole either way. Before, the OTLP backend got
 *   every run's titles and summaries.
 *
 * Real PostgreSQL; the workspace's built-in agents on the built-in model; Socket.IO over a real
 * HTTP server; traces received by the test OTLP receiver (test/otlp-receiver.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentSummary } from "@/lib/api/types";
import { newId, type ClutchMessage } from "@/lib/protocol";
import type { ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import type { Clutch } from "@/server/clutch";
import { loadConfig } from "@/server/config";
import { SYSTEM } from "@/server/auth/principal";
import { setClutch } from "@/server/instance";
import { startAgentsFeed } from "@/server/realtime/agents-feed";
import { RealtimeGateway } from "@/server/realtime/gateway";
import * as agentsRoute from "@/app/api/agents/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import { scratchWorkspace, startAgents, waitFor } from "./agents";
import { msg, requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { startOtlpReceiver, type ReceivedSpan } from "./otlp-receiver";

const params = <T>(p: T) => ({ params: Promise.resolve(p) }) as never;
const uniq = () => newId("task").slice(-8).toLowerCase();

describe("the agent directory shows each reader only the tasks of channels it may read", () => {
  let rt: Clutch;
  let server: http.Server;
  let gateway: RealtimeGateway;
  let stopFeed: () => void;
  let url: string;
  let ada: TestPrincipal; // member, in the private channel
  let lee: TestPrincipal; // member, not in it
  let gus: TestPrincipal; // guest, not in it
  let secret: string; // the workspace's channel (pm-1 takes its requests), made private
  let title: string; // the task pm-1 works on there
  let task_id: string;

  beforeAll(async () => {
    rt = await startAgents(scratchWorkspace().dir);
    setClutch(rt);
    [ada, lee, gus] = await Promise.all([testPerson(rt, "member", "Ada"), testPerson(rt, "member", "Lee"), testPerson(rt, "guest", "Gus")]);
    secret = rt.channels[0]!.thread_id;
    await rt.identity.addMember(SYSTEM, secret, ada.agent_id);
    await rt.identity.setVisibility(SYSTEM, secret, "private");
    server = http.createServer();
    gateway = new RealtimeGateway(server, rt.store, rt.tail, rt.identity);
    stopFeed = startAgentsFeed(gateway, { queries: rt.store.queries, registry: rt.registry, tail: rt.tail });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    stopFeed?.();
    await gateway?.close();
    await rt?.stop();
  });

  type Client = Socket<ServerEvents, ClientEvents>;
  /** A socket of `who` that keeps every `agents.changed` it receives. */
  async function client(who: TestPrincipal) {
    const socket: Client = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token: who.key } });
    const pushes: AgentSummary[][] = [];
    socket.on("agents.changed", (agents) => pushes.push(agents));
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", reject);
    });
    return { socket, pushes };
  }
  /** The tasks of the private channel a directory lists, of any agent. */
  const secretTasks = (agents: AgentSummary[]) => agents.flatMap((a) => a.recent_tasks).filter((t) => t.thread_id === secret || t.title?.includes(title));
  const directoryOf = async (who: TestPrincipal) => {
    const res = await agentsRoute.GET(requestAs(who, "http://localhost:3000/api/agents"), params({}));
    expect(res.status).toBe(200);
    return ((await res.json()) as { agents: AgentSummary[] }).agents;
  };

  it("pm-1's task in a private channel: its member sees it over REST and Socket.IO; a member outside it and a guest see none of it", async () => {
    const [a, l, g] = await Promise.all([client(ada), client(lee), client(gus)]);
    try {
      title = `Draft the merger terms with Borealis ${uniq()}`;
      const res = await messagesRoute.POST(
        requestAs(ada, `http://localhost:3000/api/threads/${secret}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: title }) }),
        params({ thread_id: secret }),
      );
      expect(res.status).toBe(201);
      const request = await waitFor(rt, secret, "pm-1's task", (evs) => evs.find((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:pm-1" && e.payload.title === title));
      task_id = request.task_id;

      // REST: Ada, in the channel, sees the task under pm-1, with its title, run and channel.
      const pm1 = (await directoryOf(ada)).find((x) => x.agent_id === "agent:pm-1")!;
      expect(pm1.recent_tasks).toContainEqual(expect.objectContaining({ task_id, title, run_id: request.run_id, thread_id: secret }));
      // Lee and Gus see pm-1 and its figures, but nothing of the private channel's work.
      for (const who of [lee, gus]) {
        const agents = await directoryOf(who);
        expect(agents.map((x) => x.agent_id)).toContain("agent:pm-1");
        expect(secretTasks(agents)).toEqual([]);
        expect(JSON.stringify(agents)).not.toContain(title);
      }

      // Socket.IO: the push that shows Ada the task goes to Lee and Gus without it.
      await expect.poll(() => a.pushes.some((p) => secretTasks(p).some((t) => t.task_id === task_id)), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => l.pushes.length > 0 && g.pushes.length > 0, { timeout: 5000 }).toBe(true);
      await new Promise((r) => setTimeout(r, 700));
      for (const c of [l, g]) {
        for (const p of c.pushes) {
          expect(p.map((x) => x.agent_id)).toContain("agent:pm-1");
          expect(secretTasks(p)).toEqual([]);
          expect(JSON.stringify(p)).not.toContain(secret);
        }
      }
    } finally {
      for (const c of [a, l, g]) c.socket.disconnect();
    }
  });

  it("a person added to the private channel gets its tasks with the next push, and loses them with the one after their removal", async () => {
    expect(task_id).toBeDefined();
    const l = await client(lee);
    try {
      const latest = () => l.pushes[l.pushes.length - 1];
      const seesIt = () => Boolean(latest() && secretTasks(latest()!).some((t) => t.task_id === task_id));
      await rt.identity.addMember(SYSTEM, secret, lee.agent_id);
      await expect.poll(seesIt, { timeout: 5000 }).toBe(true);
      expect(secretTasks(await directoryOf(lee))).toContainEqual(expect.objectContaining({ task_id, title }));
      const before = l.pushes.length;
      await rt.identity.removeMember(SYSTEM, secret, lee.agent_id);
      await expect.poll(() => l.pushes.length > before && !seesIt(), { timeout: 5000 }).toBe(true);
      expect(secretTasks(await directoryOf(lee))).toEqual([]);
    } finally {
      l.socket.disconnect();
    }
  });
});

describe("trace export leaves the content of private channels and DMs out unless CLUTCH_TRACE_PRIVATE_CONTENT=1", () => {
  // Two nodes on the same log, each exporting to a receiver of its own: one with the default,
  // one with CLUTCH_TRACE_PRIVATE_CONTENT=1 (read through server/config.ts, as server.ts does).
  let quiet: Clutch;
  let whole: Clutch;
  let toQuiet: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let toWhole: Awaited<ReturnType<typeof startOtlpReceiver>>;

  beforeAll(async () => {
    [toQuiet, toWhole] = await Promise.all([startOtlpReceiver(), startOtlpReceiver()]);
    process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
    // The OTLP exporter reads its endpoint when it is made: each node gets the one set then.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = toQuiet.endpoint;
    quiet = await testClutch({ tracePrivateContent: loadConfig({ ...process.env }).tracePrivateContent });
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = toWhole.endpoint;
    whole = await testClutch({ tracePrivateContent: loadConfig({ ...process.env, CLUTCH_TRACE_PRIVATE_CONTENT: "1" }).tracePrivateContent });
  });
  afterAll(async () => {
    await quiet?.stop();
    await whole?.stop();
    toQuiet?.close();
    toWhole?.close();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_BSP_SCHEDULE_DELAY;
  });

  /** A run in `thread_id`: a titled task, a subtask that fails, an approval with a summary. */
  function run(thread_id: string, marker: string) {
    const run_id = newId("run");
    const A = newId("task");
    const B = newId("task");
    const agent = "agent:drafter";
    const dana = { agent_id: "user:dana", role: "human", display_name: "Dana" };
    const T0 = Date.now() - 60_000;
    const at = (s: number) => new Date(T0 + s * 1000).toISOString();
    const inA = { thread_id, run_id, task_id: A, from: { agent_id: agent, role: "worker" } };
    const approval_id = `apr_${newId("task").slice(5)}`;
    const events: ClutchMessage[] = [
      msg("task.request", { title: `Draft the layoff memo ${marker}` }, { thread_id, run_id, task_id: A, from: dana, to: [{ agent_id: agent }], meta: { requested_by: dana.agent_id }, ts: at(0) }),
      msg("task.accept", {}, { ...inA, ts: at(1) }),
      msg("task.request", { title: `List who is affected ${marker}` }, { ...inA, task_id: B, parent_task_id: A, to: [{ agent_id: "agent:counter" }], ts: at(2) }),
      msg("task.error", { code: "LOOKUP_FAILED", message: `no head-count for ${marker}`, retryable: false }, { thread_id, run_id, task_id: B, parent_task_id: A, from: { agent_id: "agent:counter", role: "worker" }, to: [{ agent_id: agent }], ts: at(4) }),
      msg(
        "approval.requested",
        { approval_id, subject: { kind: "tool_call", agent, tool: "send_memo" }, approvers: "any", summary: `Send the layoff memo ${marker} to all staff`, expires_at: new Date(T0 + 3_600_000).toISOString() },
        { ...inA, from: { agent_id: "agent:orchestrator", role: "orchestrator" }, ts: at(5) },
      ),
      msg("approval.granted", { approval_id, by: dana.agent_id, display_name: "Dana" }, { ...inA, from: dana, ts: at(8) }),
      msg("task.result", { summary: `Memo ${marker} sent.` }, { ...inA, to: [{ agent_id: dana.agent_id }], ts: at(10) }),
    ];
    return { run_id, T0, events };
  }

  /** The run's four spans (run, task, subtask, approval) as `receiver` got them. */
  async function spansOf(receiver: { spans: ReceivedSpan[] }, run_id: string): Promise<ReceivedSpan[]> {
    await expect.poll(() => receiver.spans.filter((s) => s.attributes["clutch.run_id"] === run_id).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
    return receiver.spans.filter((s) => s.attributes["clutch.run_id"] === run_id);
  }

  it("a private channel's and a DM's runs: ids and times, no title, summary or error message by default; all of it with CLUTCH_TRACE_PRIVATE_CONTENT=1", async () => {
    const privateChannel = (await quiet.store.createThread({ name: `hr-${uniq()}`, visibility: "private" }, { agent_id: "user:dana", display_name: "Dana" })).id;
    const someone = `user:${newId("user")}`;
    const dm = (await quiet.store.directMessage([someone, "agent:drafter"], { entry_agent: "agent:drafter", with_name: "Drafter" }, { agent_id: someone, display_name: "Sam" })).thread.id;
    for (const thread_id of [privateChannel, dm]) {
      const marker = `secret-${uniq()}`;
      const { run_id, T0, events } = run(thread_id, marker);
      await quiet.store.append(events);

      const sent = await spansOf(toQuiet, run_id);
      expect(JSON.stringify(sent)).not.toContain(marker);
      const byOp = (op: string) => sent.filter((s) => s.attributes["gen_ai.operation.name"] === op || s.attributes["clutch.wait"] === op);
      const [runSpan] = byOp("invoke_workflow");
      expect(runSpan).toMatchObject({ name: "invoke_workflow (private)", attributes: expect.objectContaining({ "gen_ai.workflow.name": "(private)", "clutch.run_id": run_id, "clutch.thread_id": thread_id }) });
      expect([runSpan!.startMs - T0, runSpan!.endMs - T0]).toEqual([0, 10_000]);
      expect(byOp("invoke_agent").map((s) => s.attributes["clutch.task.title"])).toEqual(["(private)", "(private)"]);
      const failed = byOp("invoke_agent").find((s) => s.attributes["error.type"] === "LOOKUP_FAILED")!;
      expect(failed.status.message).toBe("LOOKUP_FAILED: (private)");
      const [approval] = byOp("approval");
      expect(approval!.attributes).toMatchObject({ "clutch.approval.summary": "(private)", "gen_ai.tool.name": "send_memo", "clutch.wait.outcome": "granted" });
      expect([approval!.startMs - T0, approval!.endMs - T0]).toEqual([5000, 8000]);

      // The node told to send private content sends the same run whole.
      const all = await spansOf(toWhole, run_id);
      expect(all.map((s) => s.name)).toContain(`invoke_workflow Draft the layoff memo ${marker}`);
      expect(all.map((s) => s.attributes["clutch.task.title"]).filter(Boolean).sort()).toEqual([`Draft the layoff memo ${marker}`, `List who is affected ${marker}`]);
      expect(all.find((s) => s.attributes["clutch.wait"] === "approval")!.attributes["clutch.approval.summary"]).toBe(`Send the layoff memo ${marker} to all staff`);
    }
  });

  it("a public channel's run is sent with its title and summary by default", async () => {
    const open = (await quiet.store.createThread({ name: `ops-${uniq()}`, visibility: "public" }, { agent_id: "user:dana", display_name: "Dana" })).id;
    const marker = `open-${uniq()}`;
    const { run_id, events } = run(open, marker);
    await quiet.store.append(events);
    const sent = await spansOf(toQuiet, run_id);
    expect(sent.map((s) => s.name)).toContain(`invoke_workflow Draft the layoff memo ${marker}`);
    expect(sent.find((s) => s.attributes["gen_ai.operation.name"] === "invoke_workflow")!.attributes["gen_ai.workflow.name"]).toBe(`Draft the layoff memo ${marker}`);
    expect(sent.find((s) => s.attributes["clutch.wait"] === "approval")!.attributes["clutch.approval.summary"]).toBe(`Send the layoff memo ${marker} to all staff`);
  });
});
