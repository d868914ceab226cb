/**
 * The search box's language (lib/search/query.ts, docs/channels.md "Search"): operators are taken
 * out of the words and validated, a bad value says what the operator takes, and completion finds
 * the token under the caret.
 */
import { describe, expect, it } from "vitest";
import { parseSearch, replaceToken, tokenAtCaret } from "./query";
import { markdownToText } from "./plain-text";
import { saidText } from "./event-text";

const NOW = new Date("2026-11-24T15:00:00Z");

describe("parseSearch", () => {
  it("takes the operators out of the words and keeps phrases and -words as typed", () => {
    const r = parseSearch(`"280,054.07" in:#Sales from:pm-1 from:@dana -draft is:result after:2026-11-20 before:2026-11-25 profit`, NOW);
    expect(r).toEqual({
      ok: true,
      query: {
        text: `"280,054.07" -draft profit`,
        in: ["sales"],
        from: [
          { person: false, name: "pm-1" },
          { person: true, name: "dana" },
        ],
        is: ["result"],
        after: "2026-11-20",
        before: "2026-11-25",
      },
    });
  });

  it("reads on: as one UTC day, today and yesterday included, and quoted values with spaces", () => {
    expect(parseSearch("on:2026-11-24 x", NOW)).toMatchObject({ ok: true, query: { after: "2026-11-24", before: "2026-11-25" } });
    expect(parseSearch("on:today", NOW)).toMatchObject({ ok: true, query: { text: "", after: "2026-11-24", before: "2026-11-25" } });
    expect(parseSearch("after:yesterday x", NOW)).toMatchObject({ ok: true, query: { after: "2026-11-23" } });
    expect(parseSearch(`from:"Dana Scully" report`, NOW)).toMatchObject({ ok: true, query: { text: "report", from: [{ person: false, name: "Dana Scully" }] } });
  });

  it("leaves words with a colon that are no operator alone (a time, a URL)", () => {
    expect(parseSearch("meeting 4:12 https://x.io", NOW)).toMatchObject({ ok: true, query: { text: "meeting 4:12 https://x.io", in: [], from: [] } });
  });

  it("says what an operator takes when its value is wrong, instead of finding nothing", () => {
    const cases: [string, RegExp][] = [
      ["before:nextweek x", /^before: takes a day as YYYY-MM-DD .*“nextweek” is none$/],
      ["on:2026-13-40", /^on: takes a day/],
      ["is:banana", /^is: takes one of result, message, question, request, error, approval, tool; “banana” is none$/],
      ["in:# x", /^in: takes a channel name/],
      ["in: x", /^in: needs a value, e.g. in:#sales$/],
      ["from:@ x", /^from: takes an agent/],
      ["after:2026-11-24 before:2026-11-20 x", /^nothing is both on or after 2026-11-24 and before 2026-11-20$/],
      ["   ", /^type something to search for$/],
    ];
    for (const [text, message] of cases) {
      const r = parseSearch(text, NOW);
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.error.message, text).toMatch(message);
    }
  });
});

describe("completion helpers", () => {
  it("finds the operator token under the caret, and replaces it", () => {
    const text = "profit in:#sa";
    expect(tokenAtCaret(text, text.length)).toMatchObject({ operator: "in", value: "#sa", start: 7, end: 13 });
    expect(tokenAtCaret(text, 3)).toEqual({ raw: "profit", start: 0, end: 6 });
    expect(tokenAtCaret(`"a phrase"`, 4)).toBeNull();
    expect(replaceToken(text, 7, 13, "in:#sales", true)).toEqual({ text: "profit in:#sales ", caret: 17 });
  });
});

describe("the text a hit is cut from", () => {
  it("renders markdown to the words a person reads: no table pipes, stars or heading marks", () => {
    const text = markdownToText("### Profit\n\n| Region | Sales |\n| --- | ---: |\n| **Total** | **$280,054.07** |\n\nSee [the sheet](http://x) `now`.");
    expect(text).toBe("Profit\nRegion · Sales\nTotal · $280,054.07\nSee the sheet now.");
  });

  it("says a result's summary once when its report repeats it", () => {
    const ev = { type: "task.result", payload: { summary: "Revenue grew", report_markdown: "**Revenue grew** 12%\n\n- West" } } as const;
    expect(saidText(ev as never)).toBe("Revenue grew 12%\nWest");
  });
});
