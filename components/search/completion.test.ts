/**
 * Completion of the search operators (components/search/completion.ts): what the list offers
 * after `in:#`, `from:`, `from:@`, `is:` and `on:`, and what taking one puts in the box.
 */
import { describe, expect, it } from "vitest";
import { acceptCompletion, completions } from "./completion";

const src = {
  channels: [{ name: "sales", topic: "Revenue" }, { name: "presales" }, { name: "support" }, { name: "dm-35f747arcpbw", label: "Project Manager" }],
  agents: [{ agent_id: "agent:pm-1", name: "Planner" }, { agent_id: "agent:analyst-1", name: "Ana Lyst" }],
  people: [{ agent_id: "user:u1", name: "Dana Scully" }],
};
const labels = (text: string) => completions(text, text.length, src).map((c) => c.label);

describe("completions", () => {
  it("offers channels after in:#, names that start with the text first", () => {
    expect(labels("profit in:#sa")).toEqual(["#sales", "#presales"]);
    expect(labels("in:")).toEqual(["#sales", "#presales", "#support", "Project Manager"]);
  });

  it("offers a direct message by its other party's name, found by that name", () => {
    const [dm] = completions("in:#proj", 8, src);
    expect(dm).toMatchObject({ label: "Project Manager", insert: "in:#dm-35f747arcpbw" });
  });

  it("offers agents by id or display name and people after from:, only people after from:@", () => {
    expect(labels("from:pl")).toEqual(["Planner"]);
    expect(labels("from:ana")).toEqual(["Ana Lyst", "Dana Scully"]);
    expect(labels("from:da")).toEqual(["Dana Scully"]);
    expect(labels("from:@")).toEqual(["Dana Scully"]);
  });

  it("offers kinds after is: and days after on:, and nothing for plain words or a finished value", () => {
    expect(labels("is:re")).toEqual(["is:result", "is:request"]);
    expect(labels("on:ye")).toEqual(["on:yesterday"]);
    expect(labels("profit")).toEqual([]);
    expect(labels("is:result")).toEqual([]);
  });

  it("puts the chosen one in place of the token, with a space after it", () => {
    const text = "in:#sa profit";
    const [c] = completions(text, 6, src);
    expect(acceptCompletion(text, c!)).toEqual({ text: "in:#sales profit", caret: 10 });
    const [p] = completions("from:@d", 7, src);
    expect(acceptCompletion("from:@d", p!)).toEqual({ text: "from:@Dana_Scully ", caret: 18 });
  });
});
