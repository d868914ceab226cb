/**
 * `SqlBlock`: a SQL query (a tool call's `sql` argument) as a formatted code block: common
 * indentation removed, keywords, functions, strings, numbers and
 * comments lightly coloured. Rendered as React text only, so nothing in the query can run.
 */
import { useMemo } from "react";

const KEYWORDS = new Set(
  (
    "select from where group by order limit offset with as and or not in is null between date " +
    "case when then else end join left right inner outer full cross on using having distinct union all " +
    "except intersect asc desc nulls first last filter over partition rollup cube grouping sets " +
    "interval true false like ilike exists any some values insert update delete into set create table view"
  ).split(" "),
);
const TOKEN = /(--[^\n]*)|('(?:''|[^'])*')|("(?:""|[^"])*")|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)(\s*\()?/g;

/** `text` without the indentation its non-empty lines share, trimmed of blank edges. */
export function dedent(text: string): string {
  const lines = text.replace(/\t/g, "  ").split(/\r?\n/);
  while (lines.length && !lines[0].trim()) lines.shift();
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  // The first line often starts right after the opening quote; ignore it when measuring.
  const rest = lines.slice(1).filter((l) => l.trim());
  const indent = rest.length ? Math.min(...rest.map((l) => l.length - l.trimStart().length)) : 0;
  return lines.map((l, i) => (i === 0 ? l.trimStart() : l.slice(Math.min(indent, l.length - l.trimStart().length)))).join("\n");
}

function highlight(sql: string) {
  const out: React.ReactNode[] = [];
  let last = 0;
  let i = 0;
  for (const m of sql.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    if (at > last) out.push(sql.slice(last, at));
    const [whole, comment, str, quoted, num, word, call] = m;
    if (comment) out.push(<span key={i++} className="italic text-fg-subtle">{comment}</span>);
    else if (str) out.push(<span key={i++} className="text-success">{str}</span>);
    else if (quoted) out.push(<span key={i++} className="text-info">{quoted}</span>);
    else if (num) out.push(<span key={i++} className="text-warning">{num}</span>);
    else if (word && KEYWORDS.has(word.toLowerCase())) {
      out.push(<span key={i++} className="font-semibold text-agent">{word}</span>);
      if (call) out.push(call);
    } else if (word && call) {
      out.push(<span key={i++} className="text-info">{word}</span>, call);
    } else out.push(whole);
    last = at + whole.length;
  }
  if (last < sql.length) out.push(sql.slice(last));
  return out;
}

/** A SQL query as a code block; `label` names it for assistive tech and tests. */
export function SqlBlock({ sql, label = "SQL" }: { sql: string; label?: string }) {
  const text = useMemo(() => dedent(sql), [sql]);
  const body = useMemo(() => highlight(text), [text]);
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      className="scroll-slim max-h-80 overflow-auto rounded-md border border-line bg-sunken px-3 py-2 font-mono text-[12px] leading-[1.6] text-fg"
    >
      <code>{body}</code>
    </pre>
  );
}

/** The query on one line, for a collapsed preview. */
export function sqlPreview(sql: string, max = 110): string {
  const flat = sql.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
