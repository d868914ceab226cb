/**
 * Agents' turns on every node (docs/deploy.md "Where agents run"; server/dispatch/turns.ts): two
 * nodes of one deployment, each in a process of its own with one pass at a time
 * (CLUTCH_AGENT_CONCURRENCY=1) and a model that takes 300 ms a call, share the turns of one
 * workspace's runs: each node's name is on part of the agents' events (`meta.node`, what the run
 * view's Details show). Then the node that leads is killed in the middle of a model call, holding
 * that turn: the other node takes its turns over (and the lead), and every run ends once, each
 * task accepted and ended once and each tool call with one outcome.
 *
 * Needs a real PostgreSQL (processes share the database); skipped on the embedded database.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import { indexQuestions } from "@/lib/fold/questions";
import type { Clutch } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { WORKER_SPACE } from "@/server/dispatch/turns";
import { runRow, testClutch } from "./helpers";
import pg from "pg";
import { expectSalesRunOnce, say, scratchWorkspace, startAgentNode, startAgents, threadEvents, type AgentNode } from "./agents";
import * as healthRoute from "@/app/api/health/route";

let rt: Clutch;
const children: ChildProcess[] = [];

beforeAll(async () => {
  rt = await testClutch();
});
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rt?.stop();
});

/** Two agent processes and their tsx compile take about 10 s of CPU each beside the suite's other files. */
const NODE_TEST_MS = 360_000;
const REQUEST = "Analyze last quarter's sales trends";

/** The runs people's requests started in the thread: the root tasks requested of pm-1. */
function runsOf(events: StoredEvent[]): string[] {
  return [...new Set(events.filter((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:pm-1" && !e.parent_task_id).map((e) => e.run_id))];
}

/**
 * Answer every question pm-1 puts to people in the thread, until `count` runs have started there
 * and ended; resolves with the runs' ids.
 */
async function answerUntilDone(thread_id: string, count: number, ms = 240_000): Promise<string[]> {
  const end = Date.now() + ms;
  const answered = new Set<string>();
  for (;;) {
    const events = await threadEvents(rt, thread_id);
    for (const q of indexQuestions(events).openToPeople) {
      if (answered.has(q.id)) continue;
      answered.add(q.id);
      await rt.store.append(await personMessage(rt.store.queries, thread_id, { text: "Regional breakdown by major market", reply_to: q.id }, { agent_id: "user:dana", display_name: "Dana" }));
    }
    const runs = runsOf(events);
    const rows = await Promise.all(runs.map((id) => runRow(rt, id)));
    if (runs.length === count && rows.every((r) => r && r.state !== "running")) return runs;
    if (Date.now() > end) throw new Error(`runs not finished: ${JSON.stringify(rows.map((r) => r && { run_id: r.id, state: r.state }))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** How many model calls of `run_ids` each node made, by the node's name on their model.usage (`meta.node`). */
function callsByNode(events: StoredEvent[], run_ids: string[]): Record<string, number> {
  const n: Record<string, number> = {};
  for (const e of events) {
    const node = e.meta?.node;
    if (e.type === "model.usage" && typeof node === "string" && run_ids.includes(e.run_id)) n[node] = (n[node] ?? 0) + 1;
  }
  return n;
}

/** Resolves as soon as `node` starts its next model call (it prints it, then the call takes 300 ms). */
async function nextCall(node: AgentNode): Promise<void> {
  const before = node.modelCalls();
  const end = Date.now() + 120_000;
  while (node.modelCalls() === before) {
    if (Date.now() > end) throw new Error("the node made no model call in 120 s");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.skipIf(inject("embeddedDatabase"))("agents' turns on every node", () => {
  it("GET /api/health says this node's name, its agent concurrency and the passes it runs", async () => {
    const node = await startAgents(scratchWorkspace().dir, { nodeName: "node-h", agentConcurrency: 2 });
    try {
      const res = await healthRoute.GET(new Request("http://test/api/health"), undefined as never);
      expect(await res.json()).toMatchObject({ ok: true, agents: "here", node: { name: "node-h", agent_concurrency: 2, running: 0 } });
    } finally {
      await node.stop();
    }
  });

  it("two nodes each work part of one workspace's runs; the leader killed mid-call, the other takes its turns over and every run ends once", async () => {
    const ws = scratchWorkspace();
    const deployment = `test.${newId("task")}`;
    const env = (name: string) => ({ CLUTCH_NODE_NAME: name, CLUTCH_AGENT_CONCURRENCY: "1", CLUTCH_TEST_MODEL_DELAY_MS: "300" });
    const a: AgentNode = await startAgentNode(ws.dir, deployment, children, env("node-a"));
    const b: AgentNode = await startAgentNode(ws.dir, deployment, children, env("node-b"));
    expect([a.agents, b.agents]).toEqual(["here", "standby"]);
    const thread_id = (await rt.store.queries.threadByName(ws.channel))!.id;

    // Three runs at once: the turns go to both nodes.
    for (let i = 0; i < 3; i++) await say(rt, thread_id, `${REQUEST} (${i + 1})`);
    const first = await answerUntilDone(thread_id, 3);
    let events = await threadEvents(rt, thread_id);
    for (const run_id of first) {
      expect(await runRow(rt, run_id)).toMatchObject({ state: "succeeded", task_total: 3, task_done: 3 });
      expectSalesRunOnce(events.filter((e) => e.run_id === run_id));
    }
    const shared = callsByNode(events, first);
    expect(Object.keys(shared).sort()).toEqual(["node-a", "node-b"]);
    expect(Math.min(...Object.values(shared))).toBeGreaterThan(0);

    // Three more runs; the leader dies in the middle of a model call, holding that turn's claim.
    for (let i = 3; i < 6; i++) await say(rt, thread_id, `${REQUEST} (${i + 1})`);
    const finished = answerUntilDone(thread_id, 6);
    await nextCall(a);
    a.process.kill("SIGKILL");
    await new Promise((r) => a.process.once("exit", r));
    // It died holding a claim: a turn locked by a worker whose liveness lock is free.
    const db = new pg.Client({ connectionString: inject("databaseUrl") });
    await db.connect();
    const held = await db.query(
      `SELECT j.locked_by FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier = $1 AND j.locked_by IS NOT NULL AND pg_try_advisory_lock($2, hashtext(j.locked_by))`,
      [`${deployment}.turn`, WORKER_SPACE],
    );
    await db.end();
    expect(held.rowCount).toBeGreaterThan(0);
    const all = await finished;
    const second = all.filter((id) => !first.includes(id));
    events = await threadEvents(rt, thread_id);
    for (const run_id of second) {
      expect(await runRow(rt, run_id)).toMatchObject({ state: "succeeded", task_total: 3, task_done: 3 });
      expectSalesRunOnce(events.filter((e) => e.run_id === run_id));
    }
    // The node that lived did the rest, the lead included, and no turn is left.
    expect(callsByNode(events, second)["node-b"]).toBeGreaterThan(0);
    const left = new pg.Client({ connectionString: inject("databaseUrl") });
    await left.connect();
    const pending = () =>
      left
        .query(`SELECT j.payload, j.attempts, j.last_error, j.locked_by, j.run_at FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = $1`, [`${deployment}.turn`])
        .then((r) => r.rows);
    await expect.poll(pending, { timeout: 15_000 }).toEqual([]);
    await left.end();
  }, NODE_TEST_MS);
});
