/** The extractive summarizer behind DocsServer's and SummaryServer's `create_summary`. */
import { describe, expect, it } from "vitest";
import { formatNumber, summarizeText } from "./summarize";

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
