"use client";
/**
 * `RowsResult`: a tool result that holds rows (DataServer `query_data`: `{ columns, rows,
 * row_count, truncated }`) as a small table of its first rows, with a Table / JSON toggle.
 * Numeric columns are right-aligned with tabular figures; long values are cut with the whole
 * value on hover.
 */
import { useState } from "react";
import { JsonView } from "@/components/ui/json-view";

/** Rows shown before "N more rows". */
export const FIRST_ROWS = 10;
const NUMERIC_TYPE = /INT|DOUBLE|FLOAT|REAL|DECIMAL|NUMERIC/i;

/** A result's rows and columns, when it has that shape. */
export interface RowsShape {
  columns: { name: string; numeric: boolean }[];
  rows: Record<string, unknown>[];
  /** Rows the query returned (may exceed `rows.length` when the result was cut). */
  total: number;
  /** The data server stopped at its row limit. */
  limited: boolean;
}

/** True for a JSON object (not null, not an array). */
function isObject(v: unknown): v is Record<string, unknown> {
  return Boolean(v) && typeof v === "object" && !Array.isArray(v);
}

/** `{ rows: [{…}], columns?: [{ name, type }], row_count?, truncated? }` → its shape; null otherwise. */
export function rowsShape(result: unknown): RowsShape | null {
  if (!isObject(result)) return null;
  const { rows, row_count, truncated } = result;
  if (!Array.isArray(rows) || !rows.every(isObject)) return null;
  const declared = Array.isArray(result.columns)
    ? result.columns.flatMap((c: unknown) => (isObject(c) && typeof c.name === "string" ? [{ name: c.name, type: String(c.type ?? "") }] : []))
    : [];
  const names = declared.length ? declared.map((c) => c.name) : [...new Set(rows.slice(0, 50).flatMap((x) => Object.keys(x)))];
  const columns = names.map((name) => {
    const type = declared.find((c) => c.name === name)?.type ?? "";
    const values = rows.map((x) => x[name]).filter((v) => v !== null && v !== undefined);
    const numeric = type ? NUMERIC_TYPE.test(type) : values.length > 0 && values.every((v) => typeof v === "number");
    return { name, numeric };
  });
  return {
    columns,
    rows,
    total: typeof row_count === "number" ? Math.max(row_count, rows.length) : rows.length,
    limited: truncated === true,
  };
}

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A cell value as text: fractions with 2 decimals, integers grouped (years and small integers as typed). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number") {
    if (!Number.isInteger(v)) return decimal.format(v);
    return Math.abs(v) < 10_000 ? String(v) : integer.format(v);
  }
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** "8 rows · year, quarter, sales, …" */
export function rowsSummary(shape: RowsShape): string {
  const cols = shape.columns.map((c) => c.name);
  const list = cols.length > 4 ? `${cols.slice(0, 4).join(", ")}, …` : cols.join(", ");
  return `${shape.total} row${shape.total === 1 ? "" : "s"} · ${list}`;
}

/** The first rows as a table, or the whole result as JSON. */
export function RowsResult({ shape, result, label }: { shape: RowsShape; result: unknown; label: string }) {
  const [view, setView] = useState<"table" | "json">("table");
  const shown = shape.rows.slice(0, FIRST_ROWS);
  return (
    <div>
      <div role="group" aria-label="Result view" className="mb-1 inline-flex rounded-md border border-line p-px text-[11px] font-medium">
        {(["table", "json"] as const).map((v) => (
          <button
            key={v}
            type="button"
            aria-pressed={view === v}
            onClick={() => setView(v)}
            className={`rounded px-2 py-0.5 ${view === v ? "bg-fg-muted/15 text-fg" : "text-fg-muted hover:text-fg"}`}
          >
            {v === "table" ? "Table" : "JSON"}
          </button>
        ))}
      </div>
      {view === "json" ? (
        <JsonView value={result} label={label} />
      ) : (
        <>
          <div className="scroll-slim max-w-full overflow-x-auto rounded-md border border-line" tabIndex={0} role="region" aria-label={`${label} table`}>
            <table className="w-max min-w-full border-collapse text-[12px] tabular-nums">
              <thead className="bg-sunken text-fg-muted">
                <tr>
                  {shape.columns.map((c) => (
                    <th key={c.name} scope="col" className={`whitespace-nowrap border-b border-line px-2 py-1 font-semibold ${c.numeric ? "text-right" : "text-left"}`}>
                      {c.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {shown.map((row, i) => (
                  <tr key={i} className="border-b border-line/60 last:border-0 even:bg-sunken/50">
                    {shape.columns.map((c) => {
                      const text = cellText(row[c.name]);
                      return (
                        <td
                          key={c.name}
                          title={text.length > 40 || typeof row[c.name] === "number" ? String(row[c.name]) : undefined}
                          className={`max-w-[18rem] truncate px-2 py-0.5 ${c.numeric ? "text-right" : "text-left"} text-fg`}
                        >
                          {text}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="mt-0.5 text-[11px] text-fg-subtle">
            {shape.total > shown.length ? `First ${shown.length} of ${shape.total} rows` : `${shape.total} row${shape.total === 1 ? "" : "s"}`}
            {shape.limited && " · the data server stopped at its row limit"}
          </p>
        </>
      )}
    </div>
  );
}
