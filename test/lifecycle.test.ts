/**
 * Every task ends (docs/lifecycle.md): agents on a scripted OpenAI-compatible model, through the
 * real agent loop, on the test database.
 *
 *   - a plain-text final answer is the task's result;
 *   - a model that answers 500 twice is retried with each attempt visible, then succeeds; one that
 *     never answers gives up after the configured attempts, and a person's retry carries on;
 *   - a cancel stops a model call and an MCP call in flight (never recorded as success), and
 *     reaches the whole subtree; the cancel and retry routes say who may, and refuse bad bodies;
 *   - a cancelled task's side effects are undone as its manifest declares (compensation);
 *   - the runaway guards end a helper that keeps asking questions, and delegation too deep;
 *   - a request stored before any Clutch ran is dispatched once, through the policy; on
 *     PostgreSQL its dispatch job commits with it and the next node takes it;
 *   - on a swapped clock: a task over its agent's max_runtime_sec times out, a request no agent
 *     accepted in time goes to the next candidate, an agent that goes offline has its task
 *     failed, a run over run_timeout_sec is timed out whole.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isEvent, makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch, ClutchOptions } from "@/server/clutch";
import { threadRuns } from "@/server/events/runs";
import { cancelRun, cancelTask } from "@/server/lifecycle/cancel";
import { DispatchQueue } from "@/server/dispatch/queue";
import { retryTask } from "@/server/lifecycle/retry-task";
import { registerAgent } from "@/server/router/registration";
import { say, waitFor } from "./agents";
import { requestAs, runRow, taskRow, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { completion, httpError, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";

const HEAVY_SQL = "SELECT count(*) AS n FROM orders a, orders b, orders c WHERE a.sales + b.sales + c.sales < 0";
const DANA = { agent_id: "user:dana", role: "human" as const, display_name: "Dana" };

let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
let thread_id: string;
/** Model calls per scenario tag, and switches a test flips. */
const calls = new Map<string, number>();
let downFixed = false;

const text = (m: { content: unknown }) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const never = () => new Promise(() => undefined);

/** The scripted model: which agent is asked (the system prompt) and the scenario tag of the request decide the answer. */
function answer(body: ChatRequest): unknown {
  const all = body.messages.map(text).join("\n");
  const tag = /\[(\w[\w-]*)\]/.exec(all)?.[1] ?? "none";
  const agent = /You are (agent:[\w-]+)/.exec(text(body.messages[0]!))?.[1];
  const n = (calls.get(tag) ?? 0) + 1;
  calls.set(tag, n);
  const last = body.messages.at(-1)!;
  const say = (content: string) => completion(body.model, { content }, "stop");
  const call = (name: string, args: unknown) => completion(body.model, toolCall(name, args), "tool_calls");
  switch (tag) {
    case "text":
      return say("Sales rose 12% in Q4.\n\nThe West led, as the query showed.");
    case "flaky":
      return n <= 2 ? httpError(500) : say("Recovered after two failures.");
    case "down":
      return downFixed ? say("Back up: here is the answer.") : httpError(503, "the model is overloaded");
    case "bad":
      return httpError(400, "this model does not take tools");
    case "slow":
      return never();
    case "tool":
      return last.role === "tool" ? say("done") : call("DataServer__query_data", { sql: HEAVY_SQL });
    case "long": {
      // Thirty queries for one question, more than one wake's worth of steps, then the answer.
      const done = body.messages.filter((m) => m.role === "tool").length;
      return done < 30 ? call("DataServer__query_data", { sql: `SELECT ${done + 1} AS step` }) : say(`Thirty queries later: the answer.`);
    }
    case "forever":
      return call("DataServer__query_data", { sql: "SELECT 1 AS again" });
    case "reserve":
      return last.role === "tool" ? never() : call("Ledger__reserve", { item: "widgets", quantity: 3 });
    case "tree":
      if (agent === "agent:helper-1") return never();
      return last.role === "tool" ? say("Waiting for the helper.") : call("delegate", { agent_id: "helper-1", title: "Dig into it", context_summary: "[tree] nothing done yet" });
    case "deep":
      if (agent === "agent:helper-1") return call("delegate", { agent_id: "lead-1", title: "Go one level deeper", context_summary: "[deep] deeper still" });
      if (/Subtask \S+ failed/.test(text(last))) return say("The helper could not go deeper, so here is what I have.");
      return last.role === "tool" ? say("Waiting for the helper.") : call("delegate", { agent_id: "helper-1", title: "Dig deeper", context_summary: "[deep] go" });
    case "pingpong": {
      if (agent === "agent:helper-1") {
        // Asks its delegator again and again, ending each turn to wait for the answer.
        return last.role === "tool" ? say("Waiting for an answer.") : call("ask", { to: "agent:lead-1", question: `Are you sure? (${n})` });
      }
      if (/Subtask \S+ failed/.test(text(last))) return say("The helper would not stop asking, so I stopped here.");
      const question = /Message (\S+) from agent:helper-1/.exec(text(last));
      if (question) return call("reply", { to: "agent:helper-1", text: "Yes.", reply_to: question[1] });
      return last.role === "tool" ? say("Waiting for the helper.") : call("delegate", { agent_id: "helper-1", title: "Check the figures", context_summary: "[pingpong] check them" });
    }
    default:
      return say("I have nothing to add.");
  }
}

/** A Clutch running the agents of workspace `dir` on the scripted model. */
function withAgents(dir: string, options: Partial<ClutchOptions> = {}): Promise<Clutch> {
  return testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: "scripted-1" }),
    ...options,
  });
}

function workspace(extra: Record<string, unknown>, policy?: string): { dir: string; channel: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  const manifest = (id: string, allowed: string[], more: Record<string, unknown> = {}) => ({
    id,
    system_prompt: `You are ${id}, a careful worker.`,
    allowed_agents: allowed,
    delegate_rules: Object.fromEntries(allowed.map((a) => [a, { when_to_delegate: "when asked to" }])),
    overseer: null,
    mcp_bindings: [{ server_id: "DataServer", scopes: ["read:data"], allowed_tools: ["query_data"] }],
    ...more,
  });
  // lead-1 reserves stock in a ledger, and a reservation of a task that does not finish is released.
  const lead = manifest("lead-1", ["helper-1"], {
    limits: { max_model_turns: 40 },
    mcp_bindings: [
      { server_id: "DataServer", scopes: ["read:data"], allowed_tools: ["query_data"] },
      { server_id: "Ledger", scopes: ["write:stock"], allowed_tools: ["reserve", "release"] },
    ],
    compensations: [{ after: "Ledger.reserve", undo: "Ledger.release", arguments: { reservation_id: "$result.reservation_id", note: "compensation" } }],
  });
  fs.writeFileSync(path.join(dir, "agents", "lead-1.json"), JSON.stringify(lead));
  fs.writeFileSync(path.join(dir, "agents", "helper-1.json"), JSON.stringify(manifest("helper-1", [])));
  const servers = JSON.parse(fs.readFileSync("examples/sales-analysis/mcp.json", "utf8")) as { mcpServers: Record<string, Record<string, unknown>> };
  // The example's servers name their scripts relative to the example's folder.
  for (const entry of Object.values(servers.mcpServers)) entry.cwd = path.resolve("examples/sales-analysis");
  servers.mcpServers.Ledger = {
    command: "node",
    args: ["--import", "tsx", path.resolve("test/fixtures/ledger-server.ts")],
    cwd: path.resolve("."), // where tsx is installed
    env: { CLUTCH_LEDGER_FILE: path.join(dir, "ledger.json") },
  };
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify(servers));
  if (policy) fs.writeFileSync(path.join(dir, "clutch.policy.yaml"), policy);
  const channel = `life-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ mcp: path.join(dir, "mcp.json"), channels: [{ name: channel, entry_agent: "lead-1", answers: "every_message" }], ...extra }));
  return { dir, channel };
}

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const { dir } = workspace({ lifecycle: { retry_delay_ms: 20, max_model_turns: 6, max_depth: 1 } });
  rt = await withAgents(dir);
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop({ graceMs: 2000 });
  model?.close();
});

/** The run a person's request started, once its root task exists. */
async function runOf(request: StoredEvent): Promise<{ run_id: string; task_id: string }> {
  const root = await waitFor(rt, thread_id, "the run's root task", (evs) => evs.find((e) => e.type === "task.request" && e.payload.input && (e.payload.input as { message_id?: string }).message_id === request.id));
  return { run_id: root.run_id, task_id: root.task_id };
}

const runEvents = (run_id: string) => rt.store.readAll({ run_id });

describe("a model's answer in plain text", () => {
  it("is the task's result, and the run succeeds", async () => {
    const run = await runOf(await say(rt, thread_id, "[text] How did Q4 go?"));
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.result"));
    expect(result.payload).toMatchObject({ summary: "Sales rose 12% in Q4.", report_markdown: "Sales rose 12% in Q4.\n\nThe West led, as the query showed." });
    expect(result.from.agent_id).toBe("agent:lead-1");
    expect((await runRow(rt, run.run_id)).state).toBe("succeeded");
    expect(calls.get("text")).toBe(1);
    const [summary] = (await threadRuns(rt.store.queries, thread_id)).filter((r) => r.run_id === run.run_id);
    expect(summary!.outcome).toEqual({ kind: "result", text: "Sales rose 12% in Q4.", agent_id: "agent:lead-1", task_id: run.task_id });
  });
});

describe("model calls that fail", () => {
  it("are retried with backoff, each attempt visible, until one succeeds", async () => {
    const run = await runOf(await say(rt, thread_id, "[flaky] Try this"));
    await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.result"));
    const retries = (await runEvents(run.run_id)).filter((e) => e.type === "task.progress" && e.payload.status === "retrying");
    expect(retries.map((e) => (e.payload.retry as { attempt: number }).attempt)).toEqual([2, 3]);
    expect(String(retries[0]!.payload.message)).toMatch(/^The model call failed \(HTTP 500 .*\); trying again in 20 ms \(attempt 2 of 3\)$/);
    expect(calls.get("flaky")).toBe(3);
    expect((await taskRow(rt, run.task_id)).state).toBe("succeeded");
  });

  it("give up after the configured attempts, and a person's retry carries the task on", async () => {
    const run = await runOf(await say(rt, thread_id, "[down] Is the model there?"));
    const error = await waitFor(rt, thread_id, "the error", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.error"));
    expect(error.payload).toMatchObject({ code: "MODEL_UNAVAILABLE", retryable: true, details: { attempts: 3 } });
    expect(String(error.payload.message)).toContain("the model is overloaded");
    expect(calls.get("down")).toBe(3);
    expect((await runRow(rt, run.run_id)).state).toBe("failed");

    downFixed = true;
    const task = await taskRow(rt, run.task_id);
    expect(await retryTask(rt.store, task, DANA)).toBe(2);
    const result = await waitFor(rt, thread_id, "the retried result", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.result"));
    expect(result.payload.summary).toBe("Back up: here is the answer.");
    expect(await taskRow(rt, run.task_id)).toMatchObject({ state: "succeeded", attempts: 2 });
    expect((await runRow(rt, run.run_id)).state).toBe("succeeded");
    // The second attempt was accepted again, and the model saw the retry in its conversation.
    const accepts = (await runEvents(run.run_id)).filter((e) => e.type === "task.accept");
    expect(accepts.map((e) => e.attempt ?? 1)).toEqual([1, 2]);
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain("again, attempt 2 (user:dana asked for it)");
    // Retrying a task that succeeded is refused.
    await expect(retryTask(rt.store, await taskRow(rt, run.task_id), DANA)).rejects.toMatchObject({ code: "task_not_retryable", status: 409 });
  });

  it("that cannot pass (HTTP 400) end the task at once", async () => {
    const run = await runOf(await say(rt, thread_id, "[bad] Use a tool"));
    const error = await waitFor(rt, thread_id, "the error", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.error"));
    expect(error.payload).toMatchObject({ code: "MODEL_ERROR", retryable: false });
    expect(calls.get("bad")).toBe(1);
  });
});

describe("cancel", () => {
  it("stops a model call in flight, and the run shows who cancelled it and why", async () => {
    const run = await runOf(await say(rt, thread_id, "[slow] Take your time"));
    await waitFor(rt, thread_id, "the task accepted", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.accept"));
    const before = model.aborted();
    await waitForValue(() => calls.get("slow") === 1);
    const started = Date.now();
    expect(await cancelRun(rt.store, run.run_id, DANA, "changed my mind")).toEqual([run.task_id]);
    await rt.orchestrator.settled();
    await rt.runner.idle();
    expect(Date.now() - started).toBeLessThan(3000);
    await waitForValue(() => model.aborted() > before);
    const events = await runEvents(run.run_id);
    const cancel = events.find((e) => e.type === "task.cancel")!;
    expect(cancel).toMatchObject({ from: { agent_id: "user:dana", display_name: "Dana" }, to: [{ agent_id: "agent:lead-1" }], payload: { reason: "changed my mind", requested_by: "user:dana" } });
    expect(events.filter((e) => e.type === "task.result")).toEqual([]);
    expect((await runRow(rt, run.run_id)).state).toBe("cancelled");
    const [summary] = (await threadRuns(rt.store.queries, thread_id)).filter((r) => r.run_id === run.run_id);
    expect(summary!.outcome?.text).toBe("Cancelled by Dana: changed my mind");
    await expect(cancelRun(rt.store, run.run_id, DANA)).rejects.toMatchObject({ code: "run_ended", status: 409 });
  });

  it("aborts an MCP call in flight: the call ends TOOL_CANCELLED, never as a result", async () => {
    const run = await runOf(await say(rt, thread_id, "[tool] Count the impossible"));
    const call = await waitFor(rt, thread_id, "the tool call", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "tool.call"));
    await new Promise((r) => setTimeout(r, 300)); // the query is running in DuckDB
    const started = Date.now();
    await cancelTask(rt.store, await taskRow(rt, run.task_id), DANA, "too slow");
    await rt.orchestrator.settled();
    await rt.runner.idle();
    expect(Date.now() - started).toBeLessThan(5000);
    const events = await runEvents(run.run_id);
    const outcome = events.filter((e) => (e.type === "tool.result" || e.type === "tool.error") && e.payload.call_id === call.payload.call_id);
    expect(outcome.map((e) => [e.type, e.payload.code])).toEqual([["tool.error", "TOOL_CANCELLED"]]);
    expect((await taskRow(rt, run.task_id)).state).toBe("cancelled");
  });

  it("reaches every task under the one cancelled, children first", async () => {
    const run = await runOf(await say(rt, thread_id, "[tree] Split the work"));
    const sub = await waitFor(rt, thread_id, "the helper's task", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.accept" && e.from.agent_id === "agent:helper-1"));
    const cancelled = await cancelRun(rt.store, run.run_id, DANA);
    expect(cancelled.sort()).toEqual([run.task_id, sub.task_id].sort());
    await rt.orchestrator.settled();
    await rt.runner.idle();
    const cancels = (await runEvents(run.run_id)).filter((e) => e.type === "task.cancel");
    expect(cancels.map((e) => e.task_id)).toEqual([sub.task_id, run.task_id]);
    expect(cancels[0]!.to).toEqual([{ agent_id: "agent:helper-1" }]);
    expect((await taskRow(rt, sub.task_id)).state).toBe("cancelled");
  });
});

describe("the cancel and retry routes", () => {
  const ROUTES = {
    "runs/[run_id]/cancel": () => import("@/app/api/runs/[run_id]/cancel/route"),
    "tasks/[task_id]/cancel": () => import("@/app/api/tasks/[task_id]/cancel/route"),
    "tasks/[task_id]/retry": () => import("@/app/api/tasks/[task_id]/retry/route"),
  };
  const post = async (as: TestPrincipal, route: keyof typeof ROUTES, id: string, body?: string) => {
    const mod = (await ROUTES[route]()) as unknown as { POST: (req: Request, ctx: unknown) => Promise<Response> };
    const param = route.startsWith("runs") ? { run_id: id } : { task_id: id };
    const url = `http://localhost:3000/api/${route.replace(/\[\w+\]/, id)}`;
    const res = await mod.POST(requestAs(as, url, { method: "POST", body, headers: { "content-type": "application/json" } }), { params: Promise.resolve(param) });
    return { status: res.status, body: (await res.json()) as Record<string, { code?: string; message?: string }> & { cancelled?: string[]; attempt?: number } };
  };
  /** A task in a public channel requested by `requester`, given to an agent that never answers. */
  async function task(requester: string) {
    const thread = await rt.store.createThread({ name: `api-${newId("thread").slice(-8).toLowerCase()}` }, { agent_id: "system" });
    const at = { thread_id: thread.id, run_id: newId("run"), task_id: newId("task") };
    await rt.store.append(makeMessage({ type: "task.request", ...at, from: { agent_id: requester }, to: [{ agent_id: "agent:lc-silent" }], payload: { title: "Look it up" } }));
    return at;
  }

  it("let the agent that asked for a task cancel and retry it, and nobody else's agent", async () => {
    const asker = await testAgent(rt, `agent:lc-asker-${newId("task").slice(-6).toLowerCase()}`);
    const other = await testAgent(rt, `agent:lc-other-${newId("task").slice(-6).toLowerCase()}`);
    const at = await task(asker.agent_id);
    const refused = await post(other, "tasks/[task_id]/cancel", at.task_id);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "not_your_task" } } });
    const ok = await post(asker, "tasks/[task_id]/cancel", at.task_id); // an empty body is fine
    expect(ok).toMatchObject({ status: 200, body: { cancelled: [at.task_id], task: { state: "cancelled" } } });
    expect((await post(asker, "tasks/[task_id]/cancel", at.task_id)).body.error).toMatchObject({ code: "task_ended" });
    const retried = await post(asker, "tasks/[task_id]/retry", at.task_id, "{}");
    expect(retried).toMatchObject({ status: 200, body: { attempt: 2, task: { state: "pending", attempts: 2 } } });
  });

  it("close the approvals the cancelled tasks wait for", async () => {
    const dana = await testPerson(rt, "member", "Dana Member");
    const at = await task(dana.agent_id);
    const approval_id = newId("approval");
    await rt.store.append(
      makeMessage({
        type: "approval.requested",
        ...at,
        from: { agent_id: "agent:policy", role: "system" },
        to: [],
        payload: { approval_id, subject: { kind: "dispatch", agent: "agent:lc-silent" }, approvers: "any", summary: "lc-silent will start", expires_at: new Date(Date.now() + 3_600_000).toISOString() },
      }),
    );
    expect((await rt.store.queries.approval(approval_id))?.state).toBe("pending");
    expect((await post(dana, "tasks/[task_id]/cancel", at.task_id, JSON.stringify({ reason: "not now" }))).status).toBe(200);
    expect(await rt.store.queries.approval(approval_id)).toMatchObject({ state: "rejected", decided_by: dana.agent_id });
    const closed = (await rt.store.readAll({ run_id: at.run_id })).find((e) => e.type === "approval.rejected")!;
    expect(closed.payload.comment).toBe("Closed: the task was cancelled (not now)");
  });

  it("refuse a bad body with a message a person can act on, and store nothing", async () => {
    const dana = await testPerson(rt, "member", "Dana Member");
    const at = await task(dana.agent_id);
    const long = await post(dana, "runs/[run_id]/cancel", at.run_id, JSON.stringify({ reason: "x".repeat(501) }));
    expect(long.status).toBe(400);
    expect(long.body.error!.message).toContain("reason is at most 500 characters");
    const extra = await post(dana, "runs/[run_id]/cancel", at.run_id, JSON.stringify({ why: "no" }));
    expect(extra.status).toBe(400);
    expect((await taskRow(rt, at.task_id)).state).toBe("pending");
    const done = await post(dana, "runs/[run_id]/cancel", at.run_id, JSON.stringify({ reason: "duplicate request" }));
    expect(done).toMatchObject({ status: 200, body: { cancelled: [at.task_id], run: { state: "cancelled" } } });
    expect((await taskRow(rt, at.task_id)).error).toMatchObject({ code: "CANCELLED", message: "duplicate request", requested_by: dana.agent_id, requested_by_name: dana.person!.name });
  });
});

describe("compensation", () => {
  it("releases the reservation a cancelled task made, as its manifest declares", async () => {
    const ledger = path.join(rt.workspace.dir!, "ledger.json");
    const run = await runOf(await say(rt, thread_id, "[reserve] Hold three widgets"));
    const reserved = await waitFor(rt, thread_id, "the reservation", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "tool.result" && e.payload.tool === "reserve"));
    const { reservation_id } = reserved.payload.result as { reservation_id: string };
    expect(Object.keys(JSON.parse(fs.readFileSync(ledger, "utf8")))).toContain(reservation_id);

    await cancelRun(rt.store, run.run_id, DANA, "not needed after all");
    const undone = await waitFor(rt, thread_id, "the release", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "tool.result" && e.payload.tool === "release"));
    expect(undone.payload.result).toEqual({ released: true });
    expect(undone.meta?.compensation).toEqual({ of_call_id: reserved.payload.call_id, after: "Ledger.reserve" });
    const call = (await runEvents(run.run_id)).find((e) => e.type === "tool.call" && e.payload.tool === "release")!;
    expect(call.payload.arguments).toEqual({ reservation_id, note: "compensation" });
    expect(Object.keys(JSON.parse(fs.readFileSync(ledger, "utf8")))).not.toContain(reservation_id);
    expect((await taskRow(rt, run.task_id)).state).toBe("cancelled");

    // Once only, however often it is attempted.
    const { compensate } = await import("@/server/lifecycle/compensation");
    expect(await compensate({ store: rt.store, tools: { callTool: () => Promise.reject(new Error("called again")) } }, rt.workspace.agents.get("agent:lead-1")!, await taskRow(rt, run.task_id))).toBe(0);
  });

  it("is made after a restart when the process stopped before it (or in the middle of it)", async () => {
    // A Clutch of its own: it is stopped while lead-1 holds a reservation.
    const { dir } = workspace({ lifecycle: { retry_delay_ms: 20, max_model_turns: 6 } });
    const ledger = path.join(dir, "ledger.json");
    const first = await withAgents(dir);
    const channel = first.channels[0]!.thread_id;
    let run: { run_id: string; task_id: string };
    let reservation_id: string;
    try {
      const asked = await say(first, channel, "[reserve] Hold four widgets");
      const root = await waitFor(first, channel, "the run's root task", (evs) => evs.find((e) => e.type === "task.request" && (e.payload.input as { message_id?: string } | undefined)?.message_id === asked.id));
      run = { run_id: root.run_id, task_id: root.task_id };
      const reserved = await waitFor(first, channel, "the reservation", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "tool.result" && e.payload.tool === "reserve"));
      reservation_id = (reserved.payload.result as { reservation_id: string }).reservation_id;
    } finally {
      await first.stop({ graceMs: 500 });
    }
    // The task is cancelled while no Clutch runs this workspace (as if the process had died right after).
    await cancelTask(rt.store, await taskRow(rt, run.task_id), DANA, "stopped while down");
    expect((await taskRow(rt, run.task_id)).state).toBe("cancelled");
    expect(Object.keys(JSON.parse(fs.readFileSync(ledger, "utf8")))).toContain(reservation_id);

    const again = await withAgents(dir);
    try {
      const undone = await waitFor(again, channel, "the release after the restart", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "tool.result" && e.payload.tool === "release"));
      expect(undone.payload.result).toEqual({ released: true });
      expect(Object.keys(JSON.parse(fs.readFileSync(ledger, "utf8")))).not.toContain(reservation_id);
    } finally {
      await again.stop({ graceMs: 500 });
    }
  });
});

describe("long tasks", () => {
  it("go on for as many model turns as they need, within max_model_turns", async () => {
    const run = await runOf(await say(rt, thread_id, "[long] Query it step by step"));
    const result = await waitFor(rt, thread_id, "the result", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.result"), 60_000);
    expect(result.payload.summary).toContain("Thirty queries later");
    const queries = (await runEvents(run.run_id)).filter((e) => e.type === "tool.result" && e.payload.tool === "query_data");
    expect(queries).toHaveLength(30);
  });

  it("end with TURN_LIMIT when the model never stops, never in silence", async () => {
    const run = await runOf(await say(rt, thread_id, "[forever] Keep querying"));
    const error = await waitFor(rt, thread_id, "the turn limit", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.error" && e.payload.code === "TURN_LIMIT"), 60_000);
    expect(error.from.agent_id).toBe("agent:lead-1");
    expect(String(error.payload.message)).toContain("took 40 model turns");
    expect((await runRow(rt, run.run_id)).state).toBe("failed");
  });
});

describe("runaway guards", () => {
  it("end a helper that keeps asking its delegator questions, and the run still ends", async () => {
    const run = await runOf(await say(rt, thread_id, "[pingpong] Check the figures"));
    const error = await waitFor(rt, thread_id, "the turn limit", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.error" && e.payload.code === "TURN_LIMIT"));
    expect(error.from.agent_id).toBe("agent:helper-1");
    expect(String(error.payload.message)).toContain("took 6 model turns");
    const result = await waitFor(rt, thread_id, "the lead's result", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.result"));
    expect(result.payload.summary).toBe("The helper would not stop asking, so I stopped here.");
    const questions = (await runEvents(run.run_id)).filter((e) => isEvent(e, "chat.message") && e.payload.expects_reply);
    expect(questions).toHaveLength(3); // ask + turn end, three times: six turns
  });

  it("end a task that would delegate deeper than max_depth, and its delegator carries on", async () => {
    const run = await runOf(await say(rt, thread_id, "[deep] Keep digging"));
    const error = await waitFor(rt, thread_id, "the run limit", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.error" && e.payload.code === "RUN_LIMIT"));
    expect(error.from.agent_id).toBe("agent:helper-1");
    expect(String(error.payload.message)).toContain("the subtask would be 2 levels below the run's first task, and the workspace allows 1 (lifecycle.max_depth)");
    const result = await waitFor(rt, thread_id, "the lead's result", (evs) => evs.find((e) => e.run_id === run.run_id && e.type === "task.result"));
    expect(result.payload.summary).toBe("The helper could not go deeper, so here is what I have.");
    expect((await runEvents(run.run_id)).filter((e) => e.type === "task.request").map((e) => e.to[0]!.agent_id)).toEqual(["agent:lead-1", "agent:helper-1"]);
  });
});

describe("a request stored while no Clutch ran", () => {
  it("is dispatched once on start, through the policy: it waits for its approval instead of running", async () => {
    const { dir, channel } = workspace({}, "version: 1\ndefault: allow\nrules:\n  - id: approve-lead\n    match: { kind: dispatch, agent: lead-1 }\n    decision: require_approval\n");
    // The channel and the request are in the log before the workspace's Clutch starts (a crash
    // right after the append, before the dispatch).
    const thread = await rt.store.createThread({ name: channel }, { agent_id: "system", display_name: "Clutch" });
    const at = { thread_id: thread.id, run_id: newId("run"), task_id: newId("task") };
    await rt.store.append(makeMessage({ type: "task.request", ...at, from: DANA, to: [{ agent_id: "agent:lead-1" }], payload: { title: "[text] Stored before the start" } }));
    const rt3 = await withAgents(dir);
    try {
      await rt3.orchestrator.settled();
      await rt3.runner.idle();
      let events = await rt3.store.readAll({ run_id: at.run_id });
      expect(events.map((e) => e.type)).toEqual(["task.request", "policy.decision", "approval.requested"]);
      expect((await taskRow(rt3, at.task_id)).state).toBe("approval_required");

      // Granted: it runs, once.
      const approval = events.find((e) => e.type === "approval.requested")!.payload.approval_id as string;
      await rt3.approvals.decide(approval, { decision: "approve" }, { agent_id: "user:ada", display_name: "Ada", role: "admin", email: "ada@test.local" });
      const result = await waitFor(rt3, thread.id, "the result", (evs) => evs.find((e) => e.run_id === at.run_id && e.type === "task.result"));
      expect(result.payload.summary).toBe("Sales rose 12% in Q4.");
      events = await rt3.store.readAll({ run_id: at.run_id });
      expect(events.filter((e) => e.type === "task.accept")).toHaveLength(1);
      expect(events.filter((e) => e.type === "task.result")).toHaveLength(1);
    } finally {
      await rt3.stop({ graceMs: 2000 });
    }
  });
});

describe.skipIf(inject("embeddedDatabase"))("durable dispatch on PostgreSQL", () => {
  it("commits a request with its job; the next Clutch to start takes the job and runs the task once", async () => {
    const { dir, channel } = workspace({});
    const deployment = `test.${newId("task")}`;
    const identifier = `${deployment}.dispatch`;
    const thread = await rt.store.createThread({ name: channel }, { agent_id: "system", display_name: "Clutch" });
    const at = { thread_id: thread.id, run_id: newId("run"), task_id: newId("task") };
    // A writer whose request commits with its dispatch job, and no node running to take it.
    const writer = await testClutch();
    const queue = new DispatchQueue({ connectionString: inject("databaseUrl"), identifier, isLocalAgent: (id) => id === "agent:lead-1" });
    await queue.migrate();
    writer.store.setInTx(queue.enqueueInTx);
    await writer.store.append(makeMessage({ type: "task.request", ...at, from: DANA, to: [{ agent_id: "agent:lead-1" }], payload: { title: "[text] Queued while nobody ran" } }));
    expect(await queue.pending()).toBe(1);
    await writer.stop();

    const node = await withAgents(dir, { deployment });
    try {
      await waitFor(node, thread.id, "the result", (evs) => evs.find((e) => e.run_id === at.run_id && e.type === "task.result"));
      const deadline = Date.now() + 10_000;
      while ((await queue.pending()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await queue.pending()).toBe(0);
      await node.orchestrator.settled();
      await node.runner.idle();
      const events = await node.store.readAll({ run_id: at.run_id });
      expect(events.filter((e) => e.type === "task.accept")).toHaveLength(1);
      expect(events.filter((e) => e.type === "task.result")).toHaveLength(1);
    } finally {
      await node.stop({ graceMs: 2000 });
      await queue.close();
    }
  });
});

async function waitForValue(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("deadlines, on a swapped clock", () => {
  let rt2: Clutch;
  let offset = 0;
  let thread2: string;
  const skill = `skill:lc-${newId("task").slice(-6).toLowerCase()}`;

  beforeAll(async () => {
    const { dir } = workspace({ lifecycle: { accept_timeout_sec: 60, run_timeout_sec: 600 }, registry: { heartbeat_interval_sec: 30, offline_after_missed: 3 } });
    rt2 = await withAgents(dir, { clock: () => Date.now() + offset });
    thread2 = rt2.channels[0]!.thread_id;
  });
  afterAll(() => rt2?.stop({ graceMs: 2000 }));

  const card = (agent_id: string, extra: Record<string, unknown> = {}) => ({
    v: "clutch/0.1",
    agent_id,
    display: { name: agent_id.slice(6) },
    capabilities: [{ id: skill, version: "1.0" }],
    ...extra,
  });
  /** A person's task in rt2's channel, to `to` (an agent, or the router with `requires`). */
  async function request(to: string, requires?: string[]) {
    const at = { thread_id: thread2, run_id: newId("run"), task_id: newId("task") };
    await rt2.store.append(makeMessage({ type: "task.request", ...at, from: DANA, to: [{ agent_id: to }], ...(requires ? { requires } : {}), payload: { title: "Find the numbers" } }));
    await rt2.orchestrator.settled();
    // The router reacts when the tail brings it the request, which on a busy machine may be after settled().
    if (requires) await expect.poll(async () => (await taskRow(rt2, at.task_id)).assignee, { timeout: 10_000 }).not.toBe(to);
    return at;
  }
  const accept = (at: { thread_id: string; run_id: string; task_id: string }, agent_id: string) =>
    rt2.store.append(makeMessage({ type: "task.accept", ...at, from: { agent_id, role: "worker" }, to: [], payload: { agent_id } }));
  const events2 = (run_id: string) => rt2.store.readAll({ run_id });

  it("time out a task that runs longer than its agent's limits.max_runtime_sec", async () => {
    offset = 0;
    const agent = `agent:lc-slow-${newId("task").slice(-6).toLowerCase()}`;
    await registerAgent(rt2.store, rt2.registry, card(agent, { capabilities: [{ id: `${skill}-slow`, version: "1.0" }], limits: { max_runtime_sec: 45 } }));
    const at = await request(agent);
    await accept(at, agent);
    offset = 30_000;
    await rt2.orchestrator.sweepDeadlines();
    expect((await taskRow(rt2, at.task_id)).state).toBe("running");
    offset = 50_000;
    await rt2.orchestrator.sweepDeadlines();
    const timeout = (await events2(at.run_id)).find((e) => e.type === "task.timeout")!;
    expect(timeout.payload).toMatchObject({ timeout_ms: 45_000 });
    expect(String(timeout.payload.message)).toContain("its AgentCard's limits.max_runtime_sec");
    expect(timeout.to).toEqual([{ agent_id: agent }]);
    expect((await runRow(rt2, at.run_id)).state).toBe("timed_out");
  });

  it("send a request no agent accepted in time to the next candidate, then fail it when none is left", async () => {
    offset = 0;
    const a = `agent:lc-a-${newId("task").slice(-6).toLowerCase()}`;
    const b = `agent:lc-b-${newId("task").slice(-6).toLowerCase()}`;
    for (const id of [a, b]) await registerAgent(rt2.store, rt2.registry, card(id));
    const at = await request("agent:orchestrator", [skill]);
    const first = (await taskRow(rt2, at.task_id)).assignee!;
    expect([a, b]).toContain(first);
    offset = 61_000;
    await rt2.orchestrator.sweepDeadlines();
    const events = await events2(at.run_id);
    const rerouted = events.filter((e) => e.type === "routing.decision").at(-1)!;
    // Named by its card's display name (the test cards' names are their bare ids).
    expect(String(rerouted.payload.reason)).toContain(`${first.slice("agent:".length)} did not accept the task within 60 s`);
    const second = events.filter((e) => e.type === "task.request").at(-1)!;
    expect(second).toMatchObject({ to: [{ agent_id: first === a ? b : a }], attempt: 2 });
    await rt2.orchestrator.sweepDeadlines();
    const error = (await events2(at.run_id)).find((e) => e.type === "task.error")!;
    expect(error.payload).toMatchObject({ code: "NOT_ACCEPTED", retryable: true });
    expect(await taskRow(rt2, at.task_id)).toMatchObject({ state: "failed", attempts: 2 });
  });

  it("fail the task of an agent that went offline when no other agent can take it", async () => {
    offset = 0;
    const agent = `agent:lc-gone-${newId("task").slice(-6).toLowerCase()}`;
    await registerAgent(rt2.store, rt2.registry, card(agent, { capabilities: [{ id: `${skill}-solo`, version: "1.0" }] }));
    const at = await request("agent:orchestrator", [`${skill}-solo`]);
    await accept(at, agent);
    offset = 100_000; // three missed heartbeats of 30 s
    rt2.registry.tick();
    await rt2.orchestrator.sweepDeadlines();
    const error = (await events2(at.run_id)).find((e) => e.type === "task.error")!;
    expect(error.payload).toMatchObject({ code: "AGENT_OFFLINE", retryable: true });
    expect(String(error.payload.message)).toContain(`${agent.slice("agent:".length)} went offline with the task in hand`);
  });

  it("time out a whole run over run_timeout_sec", async () => {
    offset = 0;
    const agent = `agent:lc-long-${newId("task").slice(-6).toLowerCase()}`;
    await registerAgent(rt2.store, rt2.registry, card(agent, { capabilities: [{ id: `${skill}-long`, version: "1.0" }] }));
    const at = await request(agent);
    await accept(at, agent);
    const sub = { ...at, task_id: newId("task") };
    await rt2.store.append(makeMessage({ type: "task.request", ...sub, parent_task_id: at.task_id, from: { agent_id: agent, role: "worker" }, to: [{ agent_id: "agent:lc-nobody" }], payload: { title: "Part" } }));
    offset = 601_000;
    await rt2.orchestrator.sweepDeadlines();
    const timeouts = (await events2(at.run_id)).filter((e) => e.type === "task.timeout");
    expect(timeouts.map((e) => e.task_id)).toEqual([sub.task_id, at.task_id]);
    expect(String(timeouts[1]!.payload.message)).toContain("lifecycle.run_timeout_sec");
    expect((await runRow(rt2, at.run_id)).state).toBe("timed_out");
  });
});
