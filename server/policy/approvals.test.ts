/**
 * Gates and approvals against real PostgreSQL: every decision is an event; an approval is
 * pending until decided, then the gate answers go (with edited arguments) or refused;
 * approvals expire as configured (rejected or escalated); throttled calls wait.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { newThread, testClutch, approver } from "@/test/helpers";
import { Approvals, type Gate } from "./approvals";
import { PolicyKernel } from "./kernel";

let rt: Clutch;
let thread_id: string;

function approvalsWith(policy: string) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "clutch-policy-")), "clutch.policy.yaml");
  fs.writeFileSync(file, policy);
  return new Approvals(rt.store, new PolicyKernel(file));
}
/** The approvals projection's row of approval `id`; throws when there is none. */
async function approvalRow(id: string) {
  const row = await rt.store.queries.approval(id);
  if (!row) throw new Error(`no approval ${id}`);
  return row;
}
const gateFor = (subject: Gate["subject"], extra: Partial<Gate> = {}): Gate => ({
  key: `test:${newId("call")}`,
  subject,
  at: { thread_id, run_id: newId("run"), task_id: newId("task"), parent_task_id: null },
  summary: "agent will do a thing",
  ...extra,
});

beforeAll(async () => {
  rt = await testClutch();
  thread_id = await newThread(rt, "approvals");
});
afterAll(() => rt.stop());

describe("gate", () => {
  it("holds a dispatch for approval, then lets it go with the approver's edited arguments", async () => {
    const approvals = approvalsWith("version: 1\nrules: [{ id: risky, match: { kind: dispatch, risk_tags: [payments] }, decision: require_approval }]");
    const g = gateFor({ kind: "dispatch", agent: "agent:payer-1", risk_tags: ["payments"] }, { arguments: { amount: 100 } });
    const first = await approvals.gate(g);
    expect(first.status).toBe("wait");
    const id = (first as { approval_id: string }).approval_id;
    expect(await approvals.gate(g)).toEqual({ status: "wait", approval_id: id }); // asked again (a restart): the same approval
    const listed = await approvalRow(id);
    expect(listed).toMatchObject({ state: "pending", kind: "dispatch", agent_id: "agent:payer-1" });
    await approvals.decide(id, { decision: "approve", arguments: { amount: 50 } }, approver("Ana"));
    expect(await approvals.gate(g)).toEqual({ status: "go", arguments: { amount: 50 } });
    const events = (await rt.store.read({ run_id: g.at.run_id })).events.map((e) => e.type);
    expect(events).toEqual(["policy.decision", "approval.requested", "approval.granted"]);
  });

  it("records allow and deny decisions with the rule and reason", async () => {
    const approvals = approvalsWith("version: 1\nrules: [{ id: no-drop, match: { tool: { tool: drop } }, decision: deny, reason: Never drop }]");
    const allowed = gateFor({ kind: "tool_call", agent: "agent:a", server_id: "S", tool: "read" });
    expect(await approvals.gate(allowed)).toEqual({ status: "go" });
    const denied = gateFor({ kind: "tool_call", agent: "agent:a", server_id: "S", tool: "drop" });
    expect(await approvals.gate(denied)).toMatchObject({ status: "refused", code: "POLICY_DENIED", message: expect.stringMatching(/rule no-drop.*Never drop/) });
    const ev = (await rt.store.read({ run_id: denied.at.run_id })).events[0]!;
    expect(ev).toMatchObject({ type: "policy.decision", payload: { decision: "deny", rule: "no-drop", reason: "Never drop" } });
  });

  it("delays a throttled call and lets it through: never lost", async () => {
    const approvals = approvalsWith("version: 1\nrules: [{ id: slow, match: { agent: a }, decision: throttle, rate: { max: 1, window_sec: 0.3 }, delay_ms: 100 }]");
    const s = { kind: "tool_call" as const, agent: "agent:a", server_id: "S", tool: "t" };
    const one = gateFor(s);
    expect(await approvals.gate(one)).toEqual({ status: "go" });
    const two = gateFor(s);
    const started = Date.now();
    expect(await approvals.gate(two)).toEqual({ status: "go" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const decisions = (await rt.store.read({ run_id: two.at.run_id })).events.map((e) => e.payload.decision);
    expect(decisions[0]).toBe("throttle");
    expect(decisions.at(-1)).toBe("allow");
  });

  it("expires a pending approval as rejected, or escalates it to other approvers", async () => {
    const rejecting = approvalsWith("version: 1\napprovals: { timeout_sec: 1 }\nrules: [{ id: r, decision: require_approval }]");
    const g1 = gateFor({ kind: "tool_call", agent: "agent:a", tool: "reply" });
    const w1 = (await rejecting.gate(g1)) as { approval_id: string };
    await rejecting.expireDue(new Date(Date.now() + 5000));
    expect(await rejecting.gate(g1)).toMatchObject({ status: "refused", code: "PERMISSION_DENIED", message: expect.stringMatching(/expired/) });
    expect((await approvalRow(w1.approval_id)).state).toBe("expired");

    const escalating = approvalsWith("version: 1\napprovals: { timeout_sec: 1, on_timeout: escalate, escalate_to: [user:boss] }\nrules: [{ id: r, decision: require_approval }]");
    const g2 = gateFor({ kind: "tool_call", agent: "agent:a", tool: "reply" });
    const w2 = (await escalating.gate(g2)) as { approval_id: string };
    await escalating.expireDue(new Date(Date.now() + 5000));
    const row = await approvalRow(w2.approval_id);
    expect(row).toMatchObject({ state: "pending", approvers: ["user:boss"] });
    await expect(escalating.decide(w2.approval_id, { decision: "approve" }, approver("Ana"))).rejects.toMatchObject({ code: "not_an_approver" });
    await escalating.decide(w2.approval_id, { decision: "approve" }, approver("Boss"));
    expect(await escalating.gate(g2)).toEqual({ status: "go" });
  });
});
