/**
 * `JsonView`: any value as indented, lightly coloured JSON (payloads of unknown shape, tool
 * arguments and results, agent cards). Rendered as React text only, so nothing in the value can
 * run. Very long documents are cut with a "Show all" button.
 */
"use client";
import { useMemo, useState } from "react";

const LIMIT = 6000;
const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/** JSON.stringify that never throws (cycles, BigInt) and keeps `undefined` visible. */
export function safeStringify(value: unknown): string {
  try {
    const seen = new WeakSet<object>();
    const out = JSON.stringify(
      value,
      (_k, v: unknown) => {
        if (typeof v === "bigint") return v.toString();
        if (v && typeof v === "object") {
          if (seen.has(v)) return "[circular]";
          seen.add(v);
        }
        return v;
      },
      2,
    );
    return out ?? String(value);
  } catch {
    return String(value);
  }
}

function highlight(src: string) {
  const parts: React.ReactNode[] = [];
  let last = 0;
  let i = 0;
  for (const m of src.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(src.slice(last, at));
    if (m[1] !== undefined) {
      parts.push(
        <span key={i++} className={m[2] ? "text-info" : "text-success"}>
          {m[1]}
        </span>,
      );
      if (m[2]) parts.push(m[2]);
    } else if (m[3] !== undefined) {
      parts.push(
        <span key={i++} className="text-agent">
          {m[3]}
        </span>,
      );
    } else {
      parts.push(
        <span key={i++} className="text-warning">
          {m[4]}
        </span>,
      );
    }
    last = at + m[0].length;
  }
  if (last < src.length) parts.push(src.slice(last));
  return parts;
}

/** A value as formatted JSON; `label` names the block for assistive tech and tests. */
export function JsonView({
  value,
  label,
  className = "",
  maxHeight = "max-h-96",
  wrap = false,
}: {
  value: unknown;
  label?: string;
  className?: string;
  /** Tailwind max-height class of the scroll box. */
  maxHeight?: string;
  /** Wrap long lines instead of scrolling sideways. */
  wrap?: boolean;
}) {
  const text = useMemo(() => safeStringify(value), [value]);
  const [all, setAll] = useState(false);
  const shown = all || text.length <= LIMIT ? text : text.slice(0, LIMIT);
  const body = useMemo(() => highlight(shown), [shown]);
  return (
    <div className={className}>
      <pre
        aria-label={label}
        tabIndex={0}
        className={`scroll-slim ${maxHeight} ${wrap ? "whitespace-pre-wrap break-words" : ""} overflow-auto rounded-md border border-line bg-sunken px-3 py-2 font-mono text-[12px] leading-[1.55] text-fg`}
      >
        <code>{body}</code>
        {shown.length < text.length && <span className="text-fg-subtle">{"\n…"}</span>}
      </pre>
      {shown.length < text.length && (
        <button type="button" onClick={() => setAll(true)} className="mt-1 text-xs font-medium text-accent hover:underline">
          Show all ({Math.round(text.length / 1024)} KB)
        </button>
      )}
    </div>
  );
}
