/**
 * Defensive readers for what the built-in model finds in a prompt: tool outputs in any of the
 * shapes the runner or an MCP server may give them, query results with array or object rows,
 * numbers that arrive as strings, agent ids with or without the `agent:` prefix.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `v` as a string when it is one (else undefined). */
export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/**
 * A number from a JSON value: numbers, numeric strings (`"1,234.5"`, `"$12"`), bigints and
 * `{ value }` wrappers. Null for anything else, including NaN and ±Infinity.
 */
export function num(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") {
    const s = v.replace(/[$,\s]/g, "");
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return null;
    const n = Number(s);
    return Number.isFinite(n) ? n : null;
  }
  if (isRecord(v) && "value" in v) return num(v.value);
  return null;
}

/** {@link num} with 0 for a missing or unreadable value (SQL sums over no rows are 0 here). */
export function num0(v: unknown): number {
  return num(v) ?? 0;
}

function tryJson(s: string): unknown {
  const t = s.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return s;
  try {
    return JSON.parse(t);
  } catch {
    return s;
  }
}

/** The outcome of one tool call as the model reads it. */
export interface ToolOutcome {
  ok: boolean;
  /** The unwrapped value (MCP structured content, parsed JSON text, or the raw value). */
  value: unknown;
  /** The error message when !ok. */
  error?: string;
  /** True when the error says it may be retried (e.g. a crashed or timed-out server). */
  retryable?: boolean;
}

function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (isRecord(e)) {
    const code = str(e.code);
    const msg = str(e.message) ?? str(e.error) ?? JSON.stringify(e);
    return code ? `${code}: ${msg}` : msg;
  }
  return JSON.stringify(e);
}

function retryableOf(v: unknown): boolean | undefined {
  if (!isRecord(v)) return undefined;
  if (typeof v.retryable === "boolean") return v.retryable;
  if (isRecord(v.error) && typeof v.error.retryable === "boolean") return v.error.retryable;
  return undefined;
}

/** A plain-text tool output that reports a failure ("error: …", "PERMISSION_DENIED: …", "refused: …"). */
const ERROR_TEXT = /^\s*(error|failed|refused|denied|permission[_ ]denied|not permitted|forbidden)\b/i;

/**
 * Unwraps an MCP CallToolResult (`structuredContent`, else the JSON or text of its `content`)
 * and recognises error shapes (`isError`, `{ error }`, `{ ok: false }`).
 */
export function unwrapValue(v: unknown): ToolOutcome {
  if (typeof v === "string") {
    const parsed = tryJson(v);
    if (typeof parsed === "string" && ERROR_TEXT.test(parsed)) {
      return { ok: false, value: parsed, error: parsed, retryable: /retryable|time(d)? ?out|crash|unavailable/i.test(parsed) };
    }
    return typeof parsed === "string" ? { ok: true, value: parsed } : unwrapValue(parsed);
  }
  if (!isRecord(v)) return { ok: true, value: v };
  if (Array.isArray(v.content) && ("structuredContent" in v || "isError" in v || v.content.every((c) => isRecord(c) && typeof c.type === "string"))) {
    const text = v.content
      .filter((c): c is Record<string, unknown> => isRecord(c) && c.type === "text")
      .map((c) => String(c.text ?? ""))
      .join("\n");
    if (v.isError === true) return { ok: false, value: v, error: text || "the tool reported an error", retryable: retryableOf(v) };
    if (isRecord(v.structuredContent)) return { ok: true, value: v.structuredContent };
    return { ok: true, value: tryJson(text) };
  }
  const looksLikeError =
    v.ok === false ||
    v.isError === true ||
    ("error" in v && v.error != null && v.error !== false) ||
    (typeof v.status === "string" && /^(error|failed|refused|denied|rejected)$/i.test(v.status));
  if (looksLikeError) {
    if (typeof v.error === "string" && typeof v.message === "string") {
      return { ok: false, value: v, error: `${v.error}: ${v.message}`, retryable: retryableOf(v) };
    }
    const e = "error" in v && v.error != null ? v.error : v;
    return { ok: false, value: v, error: errorText(e), retryable: retryableOf(v) };
  }
  return { ok: true, value: v };
}

/**
 * The outcome of a tool-result part's `output` (LanguageModelV3ToolResultOutput: text, json,
 * content, error-text, error-json, execution-denied), unwrapped with {@link unwrapValue}.
 */
export function outcomeOf(output: unknown): ToolOutcome {
  if (!isRecord(output) || typeof output.type !== "string") return unwrapValue(output);
  switch (output.type) {
    case "text":
      return unwrapValue(output.value);
    case "json":
      return unwrapValue(output.value);
    case "content": {
      const parts = Array.isArray(output.value) ? output.value : [];
      const text = parts.filter((p): p is Record<string, unknown> => isRecord(p) && p.type === "text").map((p) => String(p.text ?? "")).join("\n");
      return unwrapValue(tryJson(text));
    }
    case "error-text":
      return { ok: false, value: output.value, error: String(output.value), retryable: /retryable|timed? ?out|crash|unavailable/i.test(String(output.value)) };
    case "error-json":
      return { ok: false, value: output.value, error: errorText(output.value), retryable: retryableOf(output.value) };
    case "execution-denied":
      return { ok: false, value: output, error: `denied${output.reason ? `: ${String(output.reason)}` : ""}`, retryable: false };
    default:
      return unwrapValue(output);
  }
}

/** A query result as row objects. */
export interface Table {
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
}

/**
 * The rows of a query result: `{ columns, rows }` with rows as arrays (zipped with column names,
 * which may be strings or `{ name }`) or as objects; a bare array of objects; or the same inside
 * `result` / `data`. Null when `v` holds no table.
 */
export function tableOf(v: unknown): Table | null {
  if (Array.isArray(v)) {
    const rows = v.filter(isRecord);
    return rows.length === v.length ? { columns: rows.length ? Object.keys(rows[0]) : [], rows, truncated: false } : null;
  }
  if (!isRecord(v)) return null;
  if (Array.isArray(v.rows)) {
    const columns = Array.isArray(v.columns)
      ? v.columns.map((c) => (typeof c === "string" ? c : isRecord(c) ? String(c.name ?? "") : String(c)))
      : [];
    const rows = v.rows.map((r) => {
      if (isRecord(r)) return r;
      if (Array.isArray(r)) return Object.fromEntries(r.map((cell, i) => [columns[i] ?? `col_${i}`, cell]));
      return { value: r };
    });
    return { columns: columns.length ? columns : rows.length ? Object.keys(rows[0]) : [], rows, truncated: v.truncated === true };
  }
  for (const k of ["result", "data", "structuredContent"]) if (k in v) {
    const t = tableOf(v[k]);
    if (t) return t;
  }
  return null;
}

/** The text of a document read through DocsServer's read_file (`{ text }`, `{ content }` or a string). */
export function documentText(v: unknown): string {
  if (typeof v === "string") return v;
  if (isRecord(v)) {
    for (const k of ["text", "content", "body"]) if (typeof v[k] === "string") return v[k] as string;
    if (isRecord(v.result)) return documentText(v.result);
  }
  return "";
}

/** `agent:pm-1` for `pm-1` or `agent:pm-1`; `user` stays `user`. */
export function agentRef(id: string): string {
  if (id === "user" || id.includes(":")) return id;
  return `agent:${id}`;
}

/** The bare id: `pm-1` for `agent:pm-1`. */
export function bareId(id: string): string {
  return id.startsWith("agent:") ? id.slice("agent:".length) : id;
}

/** True when two agent ids name the same agent (with or without `agent:`). */
export function sameAgent(a: string | undefined, b: string | undefined): boolean {
  return !!a && !!b && bareId(a) === bareId(b);
}

/** Every string leaf of `v` (depth-first), for searching loosely shaped results. */
export function stringLeaves(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8) return out;
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out, depth + 1);
  else if (isRecord(v)) for (const x of Object.values(v)) stringLeaves(x, out, depth + 1);
  return out;
}

/** Every numeric leaf of `v` (numbers and numeric strings). */
export function numberLeaves(v: unknown, out: number[] = [], depth = 0): number[] {
  if (depth > 8) return out;
  const n = typeof v === "number" || typeof v === "string" ? num(v) : null;
  if (n !== null) out.push(n);
  else if (Array.isArray(v)) for (const x of v) numberLeaves(x, out, depth + 1);
  else if (isRecord(v)) for (const x of Object.values(v)) numberLeaves(x, out, depth + 1);
  return out;
}
