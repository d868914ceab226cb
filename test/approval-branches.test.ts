/**
 * A held branch does not hold the run (server/policy): of two subtasks of one run, the
 * one whose dispatch needs approval waits (approval_required) while the other is dispatched and
 * finishes; approving the held one resumes it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeMessage, newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { startAgents, waitFor } from "./agents";
import { taskRow, approver } from "./helpers";

let rt: Clutch;

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  for (const id of ["worker-a", "worker-b"]) {
    fs.writeFileSync(
      path.join(dir, "agents", `${id}.json`),
      JSON.stringify({ id, system_prompt: `You are ${id}, a helper.`, allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [] }),
    );
  }
  fs.writeFileSync(
    path.join(dir, "workspace.json"),
    JSON.stringify({ mcp: path.resolve("examples/sales-analysis/mcp.json"), channels: [{ name: `branches-${newId("thread").slice(-8).toLowerCase()}`, entry_agent: "worker-a", answers: "every_message" }] }),
  );
  fs.writeFileSync(path.join(dir, "clutch.policy.yaml"), "version: 1\nrules:\n  - id: hold-a\n    match: { kind: dispatch, agent: worker-a }\n    decision: require_approval\n");
  rt = await startAgents(dir);
});
afterAll(async () => {
  await rt?.stop();
});

describe("a held branch", () => {
  it("waits for its approval while its sibling runs and finishes; approval resumes it", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    const run_id = newId("run");
    const [root, a, b] = [newId("task"), newId("task"), newId("task")];
    const base = { thread_id, run_id, from: { agent_id: "agent:planner", role: "orchestrator" } };
    await rt.store.append([
      makeMessage({ ...base, type: "task.request", task_id: root, to: [{ agent_id: "agent:planner" }], payload: { title: "Plan" } }),
      makeMessage({ ...base, type: "task.request", task_id: a, parent_task_id: root, to: [{ agent_id: "agent:worker-a" }], payload: { title: "Branch A" } }),
      makeMessage({ ...base, type: "task.request", task_id: b, parent_task_id: root, to: [{ agent_id: "agent:worker-b" }], payload: { title: "Branch B" } }),
    ]);
    const held = await waitFor(rt, thread_id, "branch A held", (evs) => evs.find((e) => e.type === "approval.requested" && e.task_id === a));
    // On the built-in model an agent without a playbook declines its task (task.error CANNOT_ANSWER): it ran and ended.
    const ended = (task: string) => (evs: { type: string; task_id: string }[]) => evs.find((e) => (e.type === "task.result" || e.type === "task.error") && e.task_id === task);
    await waitFor(rt, thread_id, "branch B finished", ended(b));
    expect((await taskRow(rt, a)).state).toBe("approval_required");
    expect((await rt.store.read({ run_id })).events.some((e) => e.type === "task.accept" && e.task_id === a)).toBe(false);

    await rt.approvals.decide(String(held.payload.approval_id), { decision: "approve" }, approver("Ana"));
    await waitFor(rt, thread_id, "branch A finished after approval", ended(a));
    expect((await rt.store.read({ run_id })).events.some((e) => e.type === "task.accept" && e.task_id === a)).toBe(true);
    expect((await taskRow(rt, a)).state).toBe("failed");
  });
});
