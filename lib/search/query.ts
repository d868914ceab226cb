/**
 * The search box's language (docs/channels.md "Search"): words and "quoted phrases" as web search
 * has them (`-word` leaves a word out, `or` between words), and Slack-style operators that
 * narrow where the words are looked for:
 *
 *   in:#sales            in that channel (several `in:` widen to any of them)
 *   from:pm-1            sent by that agent: its id (`pm-1`, `agent:pm-1`) or its display name
 *   from:@dana           sent by that person: their handle (`Dana_Scully`), first name or `user:<id>`
 *   after:2026-11-20     on or after that day        before:2026-11-24   before that day
 *   on:2026-11-24        on that day (`on:today`, `on:yesterday`, and the same for after/before)
 *   is:result            a kind: result, message, question, request, error, approval, tool
 *
 * A value with spaces is quoted (`from:"Dana Scully"`). Days are UTC calendar days. Pure, for
 * the browser (completion, the error under the box) and the server (`GET /api/search`), which
 * resolves the names to ids.
 *
 * `parseSearch(text, now?)` → `{ ok: true, query: ParsedSearch }` or `{ ok: false, error }`
 * naming the operator and what it takes; it never throws.
 */
import { z } from "zod";

/** The kinds `is:` takes, and what each finds. */
export const SEARCH_KINDS = {
  result: "results and reports",
  message: "messages",
  question: "questions to people",
  request: "requests and run titles",
  error: "errors",
  approval: "approval requests",
  tool: "tool results",
} as const;
export type SearchKind = keyof typeof SEARCH_KINDS;

/** The operators the box knows, in the order completion offers them. */
export const SEARCH_OPERATORS = ["in", "from", "is", "on", "after", "before"] as const;
export type SearchOperator = (typeof SEARCH_OPERATORS)[number];

/** Who `from:` names: a person (`@dana`) or an agent (`pm-1`), as typed (the server resolves it). */
export const FromName = z.object({ person: z.boolean(), name: z.string().min(1).max(100) });
export type FromName = z.infer<typeof FromName>;

const Day = z.iso.date();

/** A parsed search: what to look for and the operators' values, validated. */
export const ParsedSearch = z.object({
  /** The words and phrases left once the operators are taken out (web-search syntax); may be empty. */
  text: z.string().max(200),
  /** Channel names without `#`. */
  in: z.array(z.string().regex(/^[\p{L}\p{N}][\p{L}\p{N}_.-]*$/u).max(80)),
  from: z.array(FromName),
  /** YYYY-MM-DD (UTC days): on or after `after`, before `before` (`on:` sets both). */
  after: Day.optional(),
  before: Day.optional(),
  is: z.array(z.enum(Object.keys(SEARCH_KINDS) as [SearchKind, ...SearchKind[]])),
});
export type ParsedSearch = z.infer<typeof ParsedSearch>;

/** Why a search cannot run: the operator (or "text") and a sentence that says what it takes. */
export interface SearchSyntaxError {
  operator: SearchOperator | "text";
  value: string;
  message: string;
}

export type ParseResult = { ok: true; query: ParsedSearch } | { ok: false; error: SearchSyntaxError };

/** One token of the box: `key:value` (value unquoted) or a word/phrase kept as typed. */
export interface SearchToken {
  /** Where it starts and ends in the text. */
  start: number;
  end: number;
  raw: string;
  operator?: SearchOperator;
  value?: string;
}

const OPERATOR_RE = new RegExp(`^(${SEARCH_OPERATORS.join("|")}):`, "i");

/** Splits the box's text into tokens at spaces outside quotes. */
export function tokenize(text: string): SearchToken[] {
  const out: SearchToken[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    const start = i;
    let quoted = false;
    while (i < text.length && (quoted || !/\s/.test(text[i]!))) {
      if (text[i] === '"') quoted = !quoted;
      i++;
    }
    const raw = text.slice(start, i);
    const m = OPERATOR_RE.exec(raw);
    if (m) {
      const rest = raw.slice(m[0].length);
      const value = rest.startsWith('"') ? rest.slice(1).replace(/"$/, "") : rest;
      out.push({ start, end: i, raw, operator: m[1]!.toLowerCase() as SearchOperator, value });
    } else out.push({ start, end: i, raw });
  }
  return out;
}

/** `YYYY-MM-DD` of a UTC day, `offset` days from `now`. */
function utcDay(now: Date, offset = 0): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset));
  return d.toISOString().slice(0, 10);
}

/** The day after `day` (YYYY-MM-DD). */
function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

const DATE_HELP = "takes a day as YYYY-MM-DD (e.g. 2026-11-24), today or yesterday";

/** A day operator's value as YYYY-MM-DD, or null when it is none. */
function dayOf(value: string, now: Date): string | null {
  const v = value.toLowerCase();
  if (v === "today") return utcDay(now);
  if (v === "yesterday") return utcDay(now, -1);
  return Day.safeParse(value).success ? value : null;
}

/** Parses the search box (see the file comment); `now` resolves today/yesterday. */
export function parseSearch(text: string, now: Date = new Date()): ParseResult {
  const q: ParsedSearch = { text: "", in: [], from: [], is: [] };
  const words: string[] = [];
  const fail = (operator: SearchSyntaxError["operator"], value: string, message: string): ParseResult => ({ ok: false, error: { operator, value, message } });
  for (const t of tokenize(text)) {
    if (!t.operator) {
      words.push(t.raw);
      continue;
    }
    const value = t.value ?? "";
    const op = t.operator;
    if (!value) return fail(op, value, `${op}: needs a value, e.g. ${EXAMPLES[op]}`);
    switch (op) {
      case "in": {
        const name = value.replace(/^#/, "");
        if (!ParsedSearch.shape.in.element.safeParse(name).success) return fail(op, value, `in: takes a channel name, e.g. in:#sales; “${value}” is none`);
        q.in.push(name.toLowerCase());
        break;
      }
      case "from": {
        const person = value.startsWith("@");
        const name = person ? value.slice(1) : value;
        if (!FromName.safeParse({ person, name }).success) return fail(op, value, "from: takes an agent (from:pm-1) or a person (from:@dana)");
        q.from.push({ person, name });
        break;
      }
      case "is": {
        const kind = value.toLowerCase();
        if (!(kind in SEARCH_KINDS)) return fail(op, value, `is: takes one of ${Object.keys(SEARCH_KINDS).join(", ")}; “${value}” is none`);
        if (!q.is.includes(kind as SearchKind)) q.is.push(kind as SearchKind);
        break;
      }
      case "on":
      case "after":
      case "before": {
        const day = dayOf(value, now);
        if (!day) return fail(op, value, `${op}: ${DATE_HELP}; “${value}” is none`);
        if (op === "on" || op === "after") q.after = q.after && q.after > day ? q.after : day;
        if (op === "on") q.before = q.before && q.before < nextDay(day) ? q.before : nextDay(day);
        if (op === "before") q.before = q.before && q.before < day ? q.before : day;
        break;
      }
    }
  }
  q.text = words.join(" ");
  if (q.text.length > 200) return fail("text", q.text, "a search is at most 200 characters");
  if (q.after && q.before && q.after >= q.before) return fail("before", q.before, `nothing is both on or after ${q.after} and before ${q.before}`);
  if (!q.text.trim() && !q.in.length && !q.from.length && !q.is.length && !q.after && !q.before) return fail("text", "", "type something to search for");
  return { ok: true, query: ParsedSearch.parse(q) };
}

const EXAMPLES: Record<SearchOperator, string> = {
  in: "in:#sales",
  from: "from:pm-1 or from:@dana",
  is: "is:result",
  on: "on:2026-11-24",
  after: "after:2026-11-20",
  before: "before:2026-11-24",
};

/** What each operator does, for the completion list and the help line. */
export const OPERATOR_HELP: Record<SearchOperator, string> = {
  in: "in a channel",
  from: "from an agent or @person",
  is: "a kind: result, message, question…",
  on: "on a day (YYYY-MM-DD, today)",
  after: "on or after a day",
  before: "before a day",
};

/**
 * The operator token the caret is in, for completion: its operator (undefined while a bare
 * word is typed, which may become one) and the value typed so far. Null when the caret is in
 * a quoted phrase or between tokens.
 */
export function tokenAtCaret(text: string, caret: number): SearchToken | null {
  const t = tokenize(text).find((x) => caret > x.start && caret <= x.end);
  if (!t || t.raw.startsWith('"')) return null;
  return t;
}

/** `text` with the token at [start, end) replaced by `insert` (and a space after when `done`). */
export function replaceToken(text: string, start: number, end: number, insert: string, done: boolean): { text: string; caret: number } {
  const after = text.slice(end);
  const spacer = done && !after.startsWith(" ") ? " " : "";
  const next = text.slice(0, start) + insert + spacer + after;
  return { text: next, caret: start + insert.length + (done ? 1 : 0) };
}
