/**
 * The routing table's rows and notes (Clutch Protocol §4.2–4.3): selected first, candidates by
 * rank, rejected last; old events without `ranked` still give a table; the tie-break line. Agents
 * read by their card's display name, with the handle only beside a name another agent of the
 * table shares (docs/channels.md "One name per agent").
 */
import { describe, expect, it } from "vitest";
import type { PayloadOf } from "@/lib/protocol";
import { bareId, listOf } from "./participant";
import { failureRows, formatLoad, formatSuccess, routingRows, tieBreakNote } from "./routing-rows";

type Decision = PayloadOf<"routing.decision">;

/** The example's cards; three analysts share a name; an unknown agent keeps its bare id. */
const CARDS: Record<string, string> = {
  "agent:pm-1": "Project Manager",
  "agent:analyst-1": "Analyst",
  "agent:analyst-2": "Analyst",
  "agent:analyst-3": "Analyst",
  "agent:qa-1": "QA Agent",
};
const nameOf = (id: string) => CARDS[id] ?? bareId(id);

const DECISION: Decision = {
  selected: "agent:analyst-1",
  candidates: ["agent:analyst-1", "agent:analyst-3", "agent:analyst-2"],
  reason: "matched requires[skill:data-analysis], tie on score settled by least loaded",
  scores: { "agent:analyst-1": 0.8, "agent:analyst-2": 0.4, "agent:analyst-3": 0.8 },
  requires: ["skill:data-analysis"],
  prefers: ["sales", "sql"],
  mode: "capability",
  ranked: [
    { agent_id: "agent:analyst-3", score: 0.8, matched: ["sales"], load: 2, max_concurrency: 2, success_rate: 0.5 },
    { agent_id: "agent:analyst-2", score: 0.4, matched: [], load: 0, max_concurrency: 1, success_rate: null },
    { agent_id: "agent:analyst-1", score: 0.8, matched: ["sales"], load: 1, max_concurrency: 2, success_rate: 0.92 },
  ],
  tie_break: { by: "least_loaded", among: ["agent:analyst-1", "agent:analyst-3"] },
  rejected: [
    { agent_id: "agent:pm-1", filter: "requires", reason: "lacks skill:data-analysis" },
    { agent_id: "agent:qa-1", filter: "offline", reason: "no heartbeat for 45 s" },
  ],
};

describe("routingRows", () => {
  it("puts the selected agent first, then candidates by score, then rejected agents with filter and reason", () => {
    const rows = routingRows(DECISION, nameOf);
    expect(rows.map((r) => [r.agent_id, r.kind])).toEqual([
      ["agent:analyst-1", "selected"],
      ["agent:analyst-3", "candidate"],
      ["agent:analyst-2", "candidate"],
      ["agent:pm-1", "rejected"],
      ["agent:qa-1", "rejected"],
    ]);
    expect(rows[0]).toMatchObject({ score: 0.8, load: 1, max_concurrency: 2, success_rate: 0.92, matched: ["sales"] });
    expect(rows[2]).toMatchObject({ score: 0.4, success_rate: null, matched: [] });
    expect(rows[3]).toMatchObject({ score: null, load: null, filter: "requires", reason: "lacks skill:data-analysis" });
  });

  it("names each agent by its card, the handle beside a name two agents share", () => {
    expect(routingRows(DECISION, nameOf).map((r) => r.name)).toEqual([
      "Analyst (analyst-1)",
      "Analyst (analyst-3)",
      "Analyst (analyst-2)",
      "Project Manager",
      "QA Agent",
    ]);
  });

  it("makes rows of an old event from candidates and scores; an agent both candidate and rejected shows as rejected", () => {
    const rows = routingRows({
      selected: "agent:pm-1",
      candidates: ["agent:pm-1", "agent:analyst-1", "agent:qa-1"],
      reason: "pm-1 is the entry agent of #sales",
      scores: { "agent:pm-1": 1, "agent:analyst-1": 0, "agent:qa-1": 0 },
      rejected: [{ agent_id: "agent:analyst-1", filter: "entry_agent", reason: "not the entry agent" }],
    }, nameOf);
    expect(rows.map((r) => [r.agent_id, r.kind, r.score])).toEqual([
      ["agent:pm-1", "selected", 1],
      ["agent:qa-1", "candidate", 0],
      ["agent:analyst-1", "rejected", null],
    ]);
    expect(rows[0]).toMatchObject({ load: null, max_concurrency: null, success_rate: null, matched: [] });
  });

  it("shows the selected agent even when it is in no list", () => {
    expect(routingRows({ selected: "agent:qa-1", candidates: [], reason: "overseer review", scores: {} }, nameOf).map((r) => [r.agent_id, r.name])).toEqual([
      ["agent:qa-1", "QA Agent"],
    ]);
  });

  it("makes a routing failure's rows of the agents a filter removed, by name", () => {
    const rows = failureRows(
      { reason: "no agent offers skill:forecasting", outcome: "waiting", rejected: [{ agent_id: "agent:pm-1", filter: "requires", reason: "lacks skill:forecasting" }, { agent_id: "agent:ken", filter: "offline", reason: "no recent heartbeat" }] },
      nameOf,
    );
    expect(rows.map((r) => [r.name, r.kind, r.filter, r.reason])).toEqual([
      ["Project Manager", "rejected", "requires", "lacks skill:forecasting"],
      ["ken", "rejected", "offline", "no recent heartbeat"],
    ]);
  });
});

describe("notes and formats", () => {
  it("says which tie-breaker settled a tie, and nothing without one", () => {
    expect(tieBreakNote(DECISION, nameOf)).toBe("Tie on score between Analyst (analyst-1) and Analyst (analyst-3), settled by least loaded");
    expect(tieBreakNote({ ...DECISION, tie_break: { by: "round_robin", among: ["agent:pm-1", "agent:qa-1", "agent:c"] } }, nameOf)).toBe(
      "Tie on score between Project Manager, QA Agent and c, settled by round robin",
    );
    expect(tieBreakNote({ ...DECISION, tie_break: null }, nameOf)).toBeNull();
    expect(tieBreakNote({ ...DECISION, tie_break: undefined }, nameOf)).toBeNull();
  });

  it("formats load and success rate", () => {
    expect(formatLoad({ load: 1, max_concurrency: 2 })).toBe("1/2");
    expect(formatLoad({ load: 3, max_concurrency: null })).toBe("3");
    expect(formatLoad({ load: null, max_concurrency: 2 })).toBe("—");
    expect(formatSuccess(0.916)).toBe("92%");
    expect(formatSuccess(null)).toBe("—");
    expect(listOf(["x"])).toBe("x");
  });
});
