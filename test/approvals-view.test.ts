/**
 * The browser's view of approvals and policy decisions, pure functions only: approvals folded
 * from a channel's events (lib/fold/approvals.ts), the card's helpers
 * (components/events/approval-model.ts), the inbox's filters (components/approvals/model.ts),
 * and the channel's rows (components/thread/rows.ts): allow decisions
 * folded into one quiet row without breaking a sender's group, cards with their outcome, a
 * held tool call linked to its approval, and a run header that says it waits for one.
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type ClutchMessage, type MessageType, type StoredEvent } from "@/lib/protocol";
import type { ApprovalSummary, RunSummary } from "@/lib/api/types";
import { approvalChannel, filterApprovals, NO_FILTERS, type ApprovalNames } from "@/components/approvals/model";
import { argumentsForDisplay, parseArguments, subjectLabel, timeLeft } from "@/components/events/approval-model";
import { mayDecide } from "@/lib/approvers";
import { foldApprovals } from "@/lib/fold/approvals";
import { buildRows, type Row } from "@/components/thread/rows";

const T = "thr_test";
const RUN = "run_test";
let seq = 0;
const t0 = Date.parse("2026-11-21T10:00:00.000Z");

function ev(type: MessageType, payload: Record<string, unknown>, extra: Partial<ClutchMessage> = {}): StoredEvent {
  seq++;
  const msg = makeMessage({
    type,
    thread_id: T,
    run_id: RUN,
    task_id: extra.task_id ?? "task_1",
    from: extra.from ?? { agent_id: "agent:policy", role: "system" },
    to: extra.to ?? [],
    ts: new Date(t0 + seq * 1000).toISOString(),
    payload: payload as never,
    ...extra,
  });
  return { ...msg, seq };
}

const pm = { agent_id: "agent:pm-1", role: "worker" };
const subject = { kind: "tool_call", agent: "agent:pm-1", tool: "reply", recipient: "user" };
const requested = (id: string, extra: Record<string, unknown> = {}) =>
  ev("approval.requested", {
    approval_id: id,
    subject,
    approvers: "any",
    summary: "pm-1 will send the people in the channel a message",
    arguments: { to: "user", text: "# Report\n\nAll regions grew; the West led the quarter by a wide margin this time." },
    preview: "# Report\n\nAll regions grew; the West led the quarter by a wide margin this time.",
    expires_at: new Date(t0 + 3_600_000).toISOString(),
    ...extra,
  });
const allow = (tool: string, agent = "agent:pm-1") =>
  ev("policy.decision", { subject: { kind: "tool_call", agent, server_id: "DataServer", tool }, decision: "allow", rule: null, reason: "default" });

describe("foldApprovals", () => {
  it("follows an approval from requested to its first decision; later decisions do not change it", () => {
    const r = requested("apr_1");
    const g = ev("approval.granted", { approval_id: "apr_1", by: "user:dana", display_name: "Dana", comment: "ok" });
    const late = ev("approval.rejected", { approval_id: "apr_1", by: "user:lee" });
    expect(foldApprovals([r]).get("apr_1")).toMatchObject({ state: "pending", outcome: null, approvers: "any" });
    const a = foldApprovals([r, g, late]).get("apr_1")!;
    expect(a.state).toBe("granted");
    expect(a.outcome).toBe(g);
    expect(a.history).toEqual([g, late]);
  });

  it("an expiry that escalates keeps it pending for the new approvers and deadline; one that rejects ends it", () => {
    const r = requested("apr_2", { approvers: ["user:dana"] });
    const esc = ev("approval.expired", { approval_id: "apr_2", outcome: "escalated", escalated_to: ["user:boss"], expires_at: "2026-11-22T10:00:00.000Z" });
    const a = foldApprovals([r, esc]).get("apr_2")!;
    expect(a).toMatchObject({ state: "pending", approvers: ["user:boss"], expires_at: "2026-11-22T10:00:00.000Z", escalation: esc });
    const end = ev("approval.expired", { approval_id: "apr_2", outcome: "rejected" });
    expect(foldApprovals([r, esc, end]).get("apr_2")).toMatchObject({ state: "expired", outcome: end, escalation: null });
  });

  it("ignores outcomes whose request is not loaded", () => {
    expect(foldApprovals([ev("approval.granted", { approval_id: "apr_x", by: "user:dana" })]).size).toBe(0);
  });
});

describe("approval helpers", () => {
  it("accepts only a JSON object as edited arguments, and says why not", () => {
    expect(parseArguments('{ "a": 1 }')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseArguments("[1, 2]")).toMatchObject({ ok: false, error: expect.stringContaining("not an array") });
    expect(parseArguments("null")).toMatchObject({ ok: false, error: expect.stringContaining("not null") });
    expect(parseArguments('"text"')).toMatchObject({ ok: false, error: expect.stringContaining("not a string") });
    expect(parseArguments("{ oops")).toMatchObject({ ok: false, error: expect.stringMatching(/^Not valid JSON/) });
    expect(parseArguments("  ")).toMatchObject({ ok: false });
  });

  it("names subjects in one short phrase", () => {
    expect(subjectLabel({ kind: "tool_call", agent: "agent:analyst-1", server_id: "DataServer", tool: "process_data" })).toBe("analyst-1 → DataServer.process_data");
    expect(subjectLabel({ kind: "tool_call", agent: "agent:pm-1", tool: "reply", recipient: "user" })).toBe("pm-1 → reply to people");
    expect(subjectLabel({ kind: "dispatch", agent: "agent:analyst-1" })).toBe("task → analyst-1");
  });

  it("knows who may approve: anyone, a person by id or email, a role; never the requester when the rule forbids it", () => {
    const dana = { agent_id: "user:usr_dana", role: "member" as const, email: "Dana@Example.com" };
    expect(mayDecide("any", dana)).toBe(true);
    expect(mayDecide(["user:usr_dana"], dana)).toBe(true);
    expect(mayDecide(["user:usr_lee"], dana)).toBe(false);
    expect(mayDecide(["dana@example.com"], dana)).toBe(true);
    expect(mayDecide(["role:admin"], dana)).toBe(false);
    expect(mayDecide(["role:member"], dana)).toBe(true);
    expect(mayDecide("any", dana, { requesters: ["user:usr_dana"], forbidSelf: true })).toBe(false);
    expect(mayDecide("any", dana, { requesters: ["user:usr_lee", "user:usr_dana"], forbidSelf: true })).toBe(false);
    expect(mayDecide("any", dana, { requesters: ["user:usr_lee"], forbidSelf: true })).toBe(true);
    expect(mayDecide("any", dana, { requesters: ["user:usr_dana"], forbidSelf: false })).toBe(true);
  });

  it("counts down, urgent in the last five minutes, over at the deadline", () => {
    const at = "2026-11-21T11:00:00.000Z";
    expect(timeLeft(at, Date.parse(at) - 3_600_000 - 1)).toMatchObject({ text: "1 h 0 min", urgent: false });
    expect(timeLeft(at, Date.parse(at) - 90_000)).toMatchObject({ text: "1 min 30 s", urgent: true, over: false });
    expect(timeLeft(at, Date.parse(at) + 1)).toMatchObject({ over: true });
  });

  it("names a text argument that is the preview instead of repeating it", () => {
    const text = "x".repeat(200);
    expect(argumentsForDisplay({ to: "user", text }, text)).toEqual({ to: "user", text: "‹shown rendered beside these arguments · 200 characters›" });
    expect(argumentsForDisplay({ to: "user", text: "short" }, "short")).toEqual({ to: "user", text: "short" });
  });

  it("filters the inbox by channel, agent, kind and text", () => {
    const base = {
      state: "pending", run_id: RUN, task_id: "task_1", preview: null, recommendation: null, approvers: "any", requester: null, requesters: [] as string[], forbid_self_approval: false, rule: null,
      requested_at: "2026-11-21T10:00:00.000Z", expires_at: "2026-11-21T11:00:00.000Z", decided_at: null, decided_by: null, comment: null, request_seq: 1,
      arguments: null, run_title: null,
    } as const;
    const list: ApprovalSummary[] = [
      { ...base, approval_id: "a", thread_id: "t1", thread_name: "sales", agent_id: "agent:pm-1", kind: "tool_call", summary: "Project Manager will send a message", subject },
      { ...base, approval_id: "b", thread_id: "t2", thread_name: "ops", agent_id: "agent:analyst-1", kind: "dispatch", summary: "Analyst gets a task", subject: { kind: "dispatch", agent: "agent:analyst-1" } },
      { ...base, approval_id: "c", thread_id: "t3", thread_name: "dm-35f747arcpbw", agent_id: "agent:qa-1", kind: "dispatch", summary: "QA Agent gets a task", subject: { kind: "dispatch", agent: "agent:qa-1" } },
    ];
    // As the inbox names them (components/approvals/names.ts): agents by their cards, the DM by its other party.
    const cards: Record<string, string> = { "agent:pm-1": "Project Manager", "agent:analyst-1": "Analyst", "agent:qa-1": "QA Agent" };
    const names: ApprovalNames = {
      nameOf: (id) => cards[id] ?? id,
      channel: (a) => approvalChannel(a, (ref) => (ref.thread_id === "t3" ? "Ada Lovelace" : `#${ref.thread_name}`)),
    };
    const ids = (f: Partial<typeof NO_FILTERS>) => filterApprovals(list, { ...NO_FILTERS, ...f }, names).map((a) => a.approval_id);
    expect(ids({})).toEqual(["a", "b", "c"]);
    expect(ids({ channel: "t2" })).toEqual(["b"]);
    expect(ids({ agent: "agent:pm-1" })).toEqual(["a"]);
    expect(ids({ kind: "dispatch" })).toEqual(["b", "c"]);
    expect(ids({ text: "#SALES" })).toEqual(["a"]);
    expect(ids({ text: "project manager → reply to people" })).toEqual(["a"]);
    expect(ids({ text: "pm-1" })).toEqual(["a"]);
    expect(ids({ text: "ada lovelace" })).toEqual(["c"]);
  });

  it("names the channel of an approval as a person reads it", () => {
    const label = (ref: { thread_id: string; thread_name?: string | null }) => (ref.thread_id === "t3" ? "Ada Lovelace" : `#${ref.thread_name}`);
    expect(approvalChannel({ thread_id: "t1", thread_name: "sales" }, label)).toBe("#sales");
    expect(approvalChannel({ thread_id: "t3", thread_name: "dm-35f747arcpbw" }, label)).toBe("Ada Lovelace");
    expect(approvalChannel({ thread_id: "t3", thread_name: null, outside_dm: true }, label)).toBe("A direct message");
  });
});

describe("channel rows with policy decisions and approvals", () => {
  const kinds = (rows: Row[]) => rows.filter((r) => r.kind !== "day").map((r) => (r.kind === "event" ? r.event.type : r.kind));

  it("folds consecutive allows into one quiet row, and an allow does not break the sender's group", () => {
    const call1 = ev("tool.call", { call_id: "c1", tool: "query_data", server_id: "DataServer" }, { from: pm });
    const a1 = allow("query_data");
    const a2 = allow("describe_table");
    const call2 = ev("tool.call", { call_id: "c2", tool: "query_data", server_id: "DataServer" }, { from: pm });
    const deny = ev("policy.decision", { subject: { kind: "tool_call", agent: "agent:pm-1", tool: "x" }, decision: "deny", rule: "no", reason: "no" });
    const rows = buildRows([call1, a1, a2, call2, deny], [], { view: "all" });
    expect(kinds(rows)).toEqual(["tool.call", "policy-group", "tool.call", "policy.decision"]);
    const group = rows.find((r) => r.kind === "policy-group");
    expect(group?.kind === "policy-group" && group.events).toEqual([a1, a2]);
    const second = rows.find((r) => r.kind === "event" && r.event === call2);
    expect(second?.kind === "event" && second.ctx.continued).toBe(true);
  });

  it("gives cards, outcome lines and the held tool call their approval, and puts the run card where the run starts", () => {
    const decision = ev("policy.decision", { subject, decision: "require_approval", rule: "approve-final-report", reason: "r", approval_id: "apr_9" });
    const r = requested("apr_9");
    const call = ev("tool.call", { call_id: "c9", tool: "reply", arguments: { to: "user" } }, { from: pm });
    const run: RunSummary = {
      run_id: RUN, thread_id: T, run_number: 1, requester: null, agents: [], state: "running", status: "running", waiting_on: [], cancelled_by: null, title: "Report", started_at: decision.ts, updated_at: call.ts, ended_at: null,
      task_total: 1, task_done: 0, task_succeeded: 0, event_count: 3, first_seq: decision.seq, last_seq: call.seq, forked_from: null,
      active: [], questions: [], approvals: [], outcome: null, usage: [],
    };
    let rows = buildRows([decision, r, call], [run], { view: "all" });
    const at = (e: StoredEvent) => rows.find((x) => x.kind === "event" && x.event === e) as Extract<Row, { kind: "event" }>;
    expect(at(decision).ctx.approval?.approval_id).toBe("apr_9");
    expect(at(r).ctx.approval?.state).toBe("pending");
    expect(at(call).ctx.approval?.state).toBe("pending");
    expect(rows.filter((x) => x.kind !== "day")[0]).toMatchObject({ kind: "run", run: { run_id: RUN } });

    const rejected = ev("approval.rejected", { approval_id: "apr_9", by: "user:dana", comment: "too long" });
    const refused = ev("tool.error", { call_id: "c9", tool: "reply", code: "PERMISSION_DENIED", message: "rejected by user:dana: too long" }, { from: pm });
    rows = buildRows([decision, r, call, rejected, refused], [run], { view: "all" });
    expect(at(r).ctx.approval?.state).toBe("rejected");
    expect(at(rejected).ctx.approval?.state).toBe("rejected");
    expect(at(refused).ctx.approval?.approval_id).toBe("apr_9");

    // The conversation shows the run card and the approval's card; the machinery is in the run's thread.
    const conversation = buildRows([decision, r, call, rejected, refused], [run]);
    expect(kinds(conversation)).toEqual(["run", "approval.requested"]);
  });
});
