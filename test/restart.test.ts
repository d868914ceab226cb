/**
 * Restart: the agent process is killed hard (SIGKILL) right after analyst-1 has been delegated
 * to; a new process picks the run up from its events and finishes it, with no event lost or
 * stored twice. Failover between nodes that share the agents' turns: test/agent-nodes.test.ts.
 *
 * Needs a real PostgreSQL (two processes share the database); on the embedded database,
 * which serves one client safely, it is skipped.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { runRow, testClutch } from "./helpers";
import { answer, expectSalesRunOnce, say, scratchWorkspace, startAgentNode, threadEvents, waitFor } from "./agents";

let rt: Clutch;
const children: ChildProcess[] = [];
const deployment = `test.${newId("task")}`;

beforeAll(async () => {
  rt = await testClutch();
});
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rt?.stop();
});

/**
 * Each test starts two or three agent processes (Node and tsx compiling the server, about 10 s of
 * CPU each on this 2-core machine) beside the suite's other files: more than the default 60 s.
 */
const NODE_TEST_MS = 360_000;
/** How long a step of the built-in team may take here while the suite's other files run beside it (ms). */
const STEP_MS = 150_000;

describe.skipIf(inject("embeddedDatabase"))("restart and failover", () => {
  it("finishes the run after a hard stop, with no event lost or stored twice", async () => {
    const ws = scratchWorkspace();
    const first = (await startAgentNode(ws.dir, deployment, children)).process;
    const channel = await rt.store.queries.threadByName(ws.channel);
    const thread_id = channel!.id;

    await say(rt, thread_id, "Analyze last quarter's sales trends");
    const question = await waitFor(rt, thread_id, "pm-1's question", (evs) => evs.find((e) => e.from.agent_id === "agent:pm-1" && e.payload.expects_reply));
    await answer(rt, thread_id, "Regional breakdown by major market");
    await waitFor(rt, thread_id, "the delegation to analyst-1", (evs) => evs.find((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:analyst-1"));
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const atKill = (await threadEvents(rt, thread_id)).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect((await threadEvents(rt, thread_id)).length).toBe(atKill); // nothing moves while it is down

    await startAgentNode(ws.dir, deployment, children);
    await waitFor(
      rt,
      thread_id,
      "pm-1's result after the restart",
      (evs) => evs.find((e) => e.type === "task.result" && e.run_id === question.run_id && e.from.agent_id === "agent:pm-1"),
      STEP_MS,
    );
    const run = await runRow(rt, question.run_id);
    expect(run).toMatchObject({ state: "succeeded", task_total: 3, task_done: 3 });

    expectSalesRunOnce((await threadEvents(rt, thread_id)).filter((e) => e.run_id === question.run_id));
  }, NODE_TEST_MS);
});
