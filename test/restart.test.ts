/**
 * Restart: the agent process is killed hard (SIGKILL) right after analyst-1 has been
 * delegated to; a new process picks the run up from its events and finishes it, with no event
 * lost or stored twice.
 *
 * Needs a real PostgreSQL (two processes share the database); on the embedded database,
 * which serves one client safely, it is skipped.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { runRow, testClutch } from "./helpers";
import { say, scratchWorkspace, threadEvents, waitFor, answer } from "./agents";

let rt: Clutch;
const children: ChildProcess[] = [];

function startAgentProcess(workspaceDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/agent-process.ts", workspaceDir], {
    env: { ...process.env, DATABASE_URL: inject("databaseUrl"), LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.on("exit", (code) => reject(new Error(`agent process exited with ${code} before it was ready`)));
  });
}

beforeAll(async () => {
  rt = await testClutch();
});
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rt?.stop();
});

describe.skipIf(inject("embeddedDatabase"))("restart", () => {
  it("finishes the run after a hard stop, with no event lost or stored twice", async () => {
    const ws = scratchWorkspace();
    const first = await startAgentProcess(ws.dir);
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

    await startAgentProcess(ws.dir);
    await waitFor(rt, thread_id, "pm-1's result after the restart", (evs) =>
      evs.find((e) => e.type === "task.result" && e.run_id === question.run_id && e.from.agent_id === "agent:pm-1"),
    );
    const run = await runRow(rt, question.run_id);
    expect(run).toMatchObject({ state: "succeeded", task_total: 3, task_done: 3 });

    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === question.run_id);
    // No agent action stored twice: one event per (instance, step, call, type).
    const actionKey = (e: StoredEvent) => {
      const a = e.meta?.agent as { instance_id: string; step: number; call_id?: string } | undefined;
      return a ? `${e.type}|${a.instance_id}|${a.step}|${a.call_id ?? ""}` : null;
    };
    const keys = events.map(actionKey).filter(Boolean);
    expect(keys.length).toBeGreaterThan(20);
    expect(new Set(keys).size).toBe(keys.length);
    // Every task ends once, every tool call has exactly one outcome.
    for (const type of ["task.accept", "task.result"]) {
      const tasks = events.filter((e) => e.type === type).map((e) => e.task_id);
      expect(new Set(tasks).size, type).toBe(tasks.length);
    }
    const calls = events.filter((e) => e.type === "tool.call").map((e) => e.payload.call_id);
    const outcomes = events.filter((e) => e.type === "tool.result" || e.type === "tool.error").map((e) => e.payload.call_id);
    expect([...outcomes].sort()).toEqual([...calls].sort());
    // The whole story is there: the report reached the person after qa's approval.
    expect(events.some((e) => e.type === "task.result" && e.payload_type === "review.feedback.v1" && e.payload.decision === "approved")).toBe(true);
    expect(events.some((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user" && /Q4 2017/.test(String(e.payload.text)))).toBe(true);
  });
});
