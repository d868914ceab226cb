/**
 * A fork beside its parent (lib/fold/fork-compare.ts): what each side told people after the
 * fork point, and the figures a person would see differ.
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { compareFork, figures, said } from "./fork-compare";

let seq = 0;
const ev = (m: Partial<ClutchMessage> & Pick<ClutchMessage, "type" | "payload">): StoredEvent => ({
  ...makeMessage({ thread_id: "thr_1", run_id: "run_1", task_id: "task_T1", from: { agent_id: "agent:pm-1" }, to: [], ...m } as never),
  seq: ++seq,
});
const dana = { agent_id: "user:dana", role: "human" as const, display_name: "Dana" };

const REPORT = (west: string, total: string) => `# Q4 2017 sales by region

| Region | Sales | Profit |
| --- | ---: | ---: |
| **West** | ${west} | $10.00 |
| East | $2,000.00 | $20.00 |

**Total revenue:** ${total}, up 12% on Q3. Checked by analyst-1 in 2018.`;

describe("figures", () => {
  it("labels table cells by row and column, and prose numbers by the words before them", () => {
    const f = figures(REPORT("$1,000.00", "$3,000.00"));
    expect(Object.fromEntries(f)).toEqual({
      "West · Sales": "$1,000.00",
      "West · Profit": "$10.00",
      "East · Sales": "$2,000.00",
      "East · Profit": "$20.00",
      "Total revenue": "$3,000.00",
      "up": "12%",
    });
  });
});

describe("said and compareFork", () => {
  it("lists what each side told people and only the figures that differ", () => {
    seq = 0;
    const parent = [
      ev({ type: "chat.message", to: [{ agent_id: "agent:analyst-1" }], payload: { text: "between agents: West 5" } }),
      ev({ type: "chat.message", from: dana, payload: { text: "thanks" } }),
      ev({ type: "chat.message", to: [{ agent_id: "user" }], payload: { text: REPORT("$1,000.00", "$3,000.00") } }),
      ev({ type: "task.result", payload: { summary: "Total revenue: $3,000.00" } }),
    ];
    const copy = ev({ type: "chat.message", to: [{ agent_id: "user" }], payload: { text: "Total revenue: $1" }, meta: { forked_from: { run_id: "run_0", seq: 1, at_seq: 1 } } });
    const fork = [
      copy,
      ev({ type: "chat.message", to: [{ agent_id: "user" }], payload: { text: REPORT("$1000", "$3,100.00") } }),
      ev({ type: "task.error", payload: { code: "CANNOT_ANSWER", message: "no data for 2018", retryable: false } }),
    ];
    expect(said(parent).map((s) => s.kind)).toEqual(["message", "result"]);
    expect(said(fork).map((s) => [s.kind, s.text.slice(0, 13)])).toEqual([
      ["message", "# Q4 2017 sal"],
      ["error", "CANNOT_ANSWER"],
    ]);
    const c = compareFork(parent, fork);
    // $1,000.00 and $1000 are the same number; only the total differs.
    expect(c.figures).toEqual([{ label: "Total revenue", parent: "$3,000.00", fork: "$3,100.00" }]);
    expect(c.same).toBe(5);
    expect(c.unchanged.map((u) => u.label)).toEqual(["West · Sales", "West · Profit", "East · Sales", "East · Profit", "up"]);
    expect(c.reported).toEqual({ parent: 6, fork: 6 });
  });

  it("compares each side up to its first result: the original's later follow-ups are not differences", () => {
    seq = 0;
    const parent = [
      ev({ type: "task.result", payload: { summary: "Total revenue: $3,000.00" } }),
      // A follow-up asked of the original after its report: another question, out of scope.
      ev({ type: "chat.message", task_id: "task_F", from: dana, to: [{ agent_id: "agent:pm-1" }], payload: { text: "By segment?" }, meta: { follows: "x" } }),
      ev({ type: "chat.message", task_id: "task_F", to: [{ agent_id: "user" }], payload: { text: "Consumer: $1,500.00. Corporate: $900.00" } }),
      ev({ type: "task.result", task_id: "task_F", payload: { summary: "Consumer: $1,500.00" } }),
    ];
    const fork = [ev({ type: "task.result", payload: { summary: "Total revenue: $3,100.00" } })];
    const c = compareFork(parent, fork);
    expect(c.figures).toEqual([{ label: "Total revenue", parent: "$3,000.00", fork: "$3,100.00" }]);
    expect(c.said.parent.map((x) => x.text)).toEqual(["Total revenue: $3,000.00"]);
  });

  it("lists no differences while one side has reported no figure yet", () => {
    seq = 0;
    const c = compareFork([ev({ type: "task.result", payload: { summary: "Orders: 12" } })], [ev({ type: "chat.message", to: [{ agent_id: "user" }], payload: { text: "Working on it" } })]);
    expect(c.reported).toEqual({ parent: 1, fork: 0 });
    expect(c.figures).toEqual([]);
  });

  it("names figures only one side has", () => {
    seq = 0;
    const c = compareFork([ev({ type: "task.result", payload: { summary: "Orders: 12" } })], [ev({ type: "task.result", payload: { summary: "Customers: 4" } })]);
    expect(c.figures).toEqual([
      { label: "Orders", parent: "12", fork: null },
      { label: "Customers", parent: null, fork: "4" },
    ]);
  });
});
