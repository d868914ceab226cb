/** The approvals fold (lib/fold/approvals.ts): the transition of one approval, and the fold over a list. */
import { describe, expect, it } from "vitest";
import { makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { foldApproval, foldApprovals, type ApprovalView } from "./approvals";

let seq = 0;
const ev = (m: Pick<ClutchMessage, "type" | "payload">): StoredEvent => ({
  ...makeMessage({ thread_id: "thr_1", run_id: "run_1", task_id: "task_1", from: { agent_id: "agent:policy", role: "system" }, to: [], ...m } as never),
  seq: ++seq,
});
const requested = (approval_id = "apr_1") =>
  ev({
    type: "approval.requested",
    payload: {
      approval_id,
      subject: { kind: "tool_call", agent: "agent:pm-1", tool: "reply" },
      approvers: ["user:dana"],
      summary: "pm-1 will reply",
      expires_at: "2026-11-21T11:00:00.000Z",
    },
  });
const granted = (approval_id = "apr_1") => ev({ type: "approval.granted", payload: { approval_id, by: "user:dana", comment: "ok" } });
const rejected = (approval_id = "apr_1") => ev({ type: "approval.rejected", payload: { approval_id, by: "user:lee" } });
const fold = (events: StoredEvent[]) => events.reduce<ApprovalView | undefined>((a, e) => foldApproval(a, e), undefined);

describe("foldApproval", () => {
  it("opens a pending approval on its request, for its approvers until its deadline", () => {
    const r = requested();
    expect(foldApproval(undefined, r)).toMatchObject({
      approval_id: "apr_1",
      request: r,
      state: "pending",
      approvers: ["user:dana"],
      expires_at: "2026-11-21T11:00:00.000Z",
      outcome: null,
      escalation: null,
      history: [],
    });
  });

  it("is decided by a grant, a rejection or an expiry that rejects", () => {
    const g = granted();
    expect(fold([requested(), g])).toMatchObject({ state: "granted", outcome: g });
    const r = rejected();
    expect(fold([requested(), r])).toMatchObject({ state: "rejected", outcome: r });
    const x = ev({ type: "approval.expired", payload: { approval_id: "apr_1", outcome: "rejected" } });
    expect(fold([requested(), x])).toMatchObject({ state: "expired", outcome: x });
  });

  it("stays pending when escalated, for the new approvers and deadline, until someone decides", () => {
    const esc = ev({ type: "approval.expired", payload: { approval_id: "apr_1", outcome: "escalated", escalated_to: ["user:boss"], expires_at: "2026-11-22T10:00:00.000Z" } });
    const a = fold([requested(), esc]);
    expect(a).toMatchObject({ state: "pending", approvers: ["user:boss"], expires_at: "2026-11-22T10:00:00.000Z", escalation: esc, outcome: null });
    expect(foldApproval(a, granted())).toMatchObject({ state: "granted", escalation: null, approvers: ["user:boss"] });
  });

  it("keeps the first decision; later ones only join the history", () => {
    const g = granted();
    const late = rejected();
    const a = fold([requested(), g, late]);
    expect(a).toMatchObject({ state: "granted", outcome: g, history: [g, late] });
  });

  it("ignores a repeated request and the events of other approvals", () => {
    const a = fold([requested()]);
    expect(foldApproval(a, requested())).toBe(a);
    expect(foldApproval(a, granted("apr_2"))).toBe(a);
    expect(foldApproval(a, ev({ type: "chat.message", payload: { text: "hi" } }))).toBe(a);
  });

  it("ignores decisions about an approval whose request is unknown", () => {
    expect(foldApproval(undefined, granted())).toBeUndefined();
    expect(foldApproval(undefined, ev({ type: "approval.expired", payload: { approval_id: "apr_1", outcome: "rejected" } }))).toBeUndefined();
  });
});

describe("foldApprovals", () => {
  it("folds each approval of a channel by its id", () => {
    const all = foldApprovals([requested("apr_1"), requested("apr_2"), granted("apr_2"), granted("apr_3")]);
    expect([...all.keys()]).toEqual(["apr_1", "apr_2"]);
    expect(all.get("apr_1")?.state).toBe("pending");
    expect(all.get("apr_2")?.state).toBe("granted");
  });
});
