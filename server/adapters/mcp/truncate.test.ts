import { describe, expect, it } from "vitest";
import { DEFAULT_EVENT_RESULT_BYTES, truncateForEvent } from "./truncate";

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
