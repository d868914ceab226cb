/**
 * The one-line summaries of the run view's event list (event-summary.ts): a decision names the
 * person who made it, as people know them, not by their account id.
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type StoredEvent } from "@/lib/protocol";
import { summarize } from "./event-summary";

const stored = (m: ReturnType<typeof makeMessage>, seq: number): StoredEvent => ({ ...m, seq, stored_at: m.ts }) as StoredEvent;
const at = { thread_id: "thr_1", run_id: "run_1", task_id: "task_1" };

describe("event summaries", () => {
  it("names the person who decided an approval by their name", () => {
    const granted = makeMessage({ type: "approval.granted", ...at, from: { agent_id: "user:usr_01ABC", role: "human", display_name: "Dana Whitfield" }, to: [], payload: { approval_id: "apr_1", by: "user:usr_01ABC" } });
    expect(summarize(stored(granted, 1))).toBe("granted by Dana Whitfield");
    const rejected = makeMessage({ type: "approval.rejected", ...at, from: { agent_id: "user:usr_01ABC", role: "human", display_name: "Dana Whitfield" }, to: [], payload: { approval_id: "apr_1", by: "user:usr_01ABC", comment: "over budget" } });
    expect(summarize(stored(rejected, 2))).toBe("rejected by Dana Whitfield: over budget");
  });

  it("falls back to the id when the decision came from someone else's hand", () => {
    const granted = makeMessage({ type: "approval.granted", ...at, from: { agent_id: "agent:policy", role: "system" }, to: [], payload: { approval_id: "apr_1", by: "user:lee" } });
    expect(summarize(stored(granted, 3))).toBe("granted by lee");
  });
});
