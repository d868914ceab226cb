import { describe, expect, it } from "vitest";
import { DEFAULT_EVENT_RESULT_BYTES, truncateForEvent } from "./truncate";
import { formatNumber, summarizeText } from "./servers/summarize";

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe("truncateForEvent", () => {
  it("keeps a small result whole", () => {
    const result = { rows: [{ region: "West", sales: 1 }], row_count: 1 };
    const t = truncateForEvent(result);
    expect(t).toEqual({ preview: result, truncated: false, full: JSON.stringify(result), bytes: bytes(result), preview_bytes: bytes(result) });
  });

  it("keeps the first rows of a large query result within 16 KiB, and the whole in `full`", () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ row_id: i + 1, product_name: `Product ${i} with a fairly long name`, sales: i * 1.5 }));
    const result = { columns: [{ name: "row_id", type: "INTEGER" }], rows, row_count: rows.length, truncated: false };
    const t = truncateForEvent(result);
    expect(t.truncated).toBe(true);
    expect(t.preview_bytes).toBeLessThanOrEqual(DEFAULT_EVENT_RESULT_BYTES);
    expect(bytes(t.preview)).toBe(t.preview_bytes);
    const p = t.preview as typeof result;
    expect(p.columns).toEqual(result.columns);
    expect(p.row_count).toBe(2000);
    expect(p.rows.length).toBeGreaterThan(50);
    expect(p.rows.length).toBeLessThan(2000);
    expect(p.rows).toEqual(rows.slice(0, p.rows.length));
    expect(JSON.parse(t.full)).toEqual(result);
    expect(t.bytes).toBe(Buffer.byteLength(t.full));
  });

  it("cuts a long string on a character boundary and marks it", () => {
    const text = "é".repeat(10_000) + "😀".repeat(10_000);
    const t = truncateForEvent(text, 1000);
    expect(t.truncated).toBe(true);
    expect(bytes(t.preview)).toBeLessThanOrEqual(1000);
    expect(t.preview as string).toMatch(/^é+…\[truncated\]$/);
    const t2 = truncateForEvent("😀".repeat(10_000), 999);
    expect(t2.preview as string).toMatch(/^(😀)+…\[truncated\]$/u);
  });

  it("turns undefined into null", () => {
    expect(truncateForEvent(undefined)).toMatchObject({ preview: null, truncated: false, full: "null" });
  });
});

describe("summarizer", () => {
  it("keeps headings and picks informative sentences in source order", () => {
    const text = [
      "# Quarterly review",
      "",
      "## Sales",
      "Sales grew in the West region. The West region had the highest sales. Weather was nice.",
      "",
      "## Customers",
      "- Customers in the East region churned.",
      "- Sales to customers in the West region rose.",
    ].join("\n");
    const s = summarizeText(text, 2);
    expect(s.title).toBe("Quarterly review");
    expect(s.headings.map((h) => h.text)).toEqual(["Quarterly review", "Sales", "Customers"]);
    expect(s.sentences).toHaveLength(2);
    expect(s.sentences.map((x) => x.text)).not.toContain("Weather was nice.");
    expect(s.sentences[0].index).toBeLessThan(s.sentences[1].index);
    expect(summarizeText(text, 2)).toEqual(s);
    expect(s.summary.startsWith("# Quarterly review\n\nSections: Sales · Customers")).toBe(true);
  });

  it("does not split at abbreviations", () => {
    const s = summarizeText("Regions, e.g. West and East, grew. Profit fell.", 5);
    expect(s.sentences.map((x) => x.text)).toEqual(["Regions, e.g. West and East, grew.", "Profit fell."]);
    expect(summarizeText("We sold a piano. No. 5 sold best.", 5).sentences.map((x) => x.text)).toEqual(["We sold a piano.", "No. 5 sold best."]);
  });

  it("formats numbers without a locale", () => {
    expect(formatNumber(1234567.891)).toBe("1,234,567.89");
    expect(formatNumber(-2159.4501)).toBe("-2,159.45");
    expect(formatNumber(1000)).toBe("1,000");
    expect(formatNumber(0.5)).toBe("0.5");
  });
});
