/**
 * The one-line summaries of the run view's event list (event-summary.ts): a decision names the
 * person who made it, as people know them, not by their account id; agents read by their cards'
 * display names (docs/channels.md "One name per agent").
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type StoredEvent } from "@/lib/protocol";
import { bareId } from "@/components/events/participant";
import { summarize } from "./event-summary";

const stored = (m: ReturnType<typeof makeMessage>, seq: number): StoredEvent => ({ ...m, seq, stored_at: m.ts }) as StoredEvent;
const at = { thread_id: "thr_1", run_id: "run_1", task_id: "task_1" };
const CARDS: Record<string, string> = { "agent:pm-1": "Project Manager", "agent:analyst-1": "Analyst Agent" };
/** As `useNameOf` names them: an agent by its card, anyone else by the bare id. */
const nameOf = (id: string) => CARDS[id] ?? bareId(id);

describe("event summaries", () => {
  it("names the person who decided an approval by their name", () => {
    const granted = makeMessage({ type: "approval.granted", ...at, from: { agent_id: "user:usr_01ABC", role: "human", display_name: "Dana Whitfield" }, to: [], payload: { approval_id: "apr_1", by: "user:usr_01ABC" } });
    expect(summarize(stored(granted, 1), nameOf)).toBe("granted by Dana Whitfield");
    const rejected = makeMessage({ type: "approval.rejected", ...at, from: { agent_id: "user:usr_01ABC", role: "human", display_name: "Dana Whitfield" }, to: [], payload: { approval_id: "apr_1", by: "user:usr_01ABC", comment: "over budget" } });
    expect(summarize(stored(rejected, 2), nameOf)).toBe("rejected by Dana Whitfield: over budget");
  });

  it("falls back to the id when the decision came from someone else's hand", () => {
    const granted = makeMessage({ type: "approval.granted", ...at, from: { agent_id: "agent:policy", role: "system" }, to: [], payload: { approval_id: "apr_1", by: "user:lee" } });
    expect(summarize(stored(granted, 3), nameOf)).toBe("granted by lee");
  });

  it("names agents by their cards' display names, not their ids", () => {
    const request = makeMessage({ type: "task.request", ...at, from: { agent_id: "agent:pm-1", role: "worker" }, to: [{ agent_id: "agent:analyst-1" }], payload: { title: "Analyze sales" } });
    expect(summarize(stored(request, 4), nameOf)).toBe("Analyze sales → Analyst Agent");
    const accept = makeMessage({ type: "task.accept", ...at, from: { agent_id: "agent:analyst-1", role: "worker" }, to: [], payload: { agent_id: "agent:analyst-1" } });
    expect(summarize(stored(accept, 5), nameOf)).toBe("accepted by Analyst Agent");
    const routed = makeMessage({ type: "routing.decision", ...at, from: { agent_id: "agent:orchestrator", role: "orchestrator" }, to: [], payload: { selected: "agent:pm-1", candidates: ["agent:pm-1"], scores: {}, reason: "Project Manager is the entry agent of #sales" } });
    expect(summarize(stored(routed, 6), nameOf)).toBe("→ Project Manager: Project Manager is the entry agent of #sales");
  });
});
