/**
 * What a person reads of an event, as plain text (docs/channels.md "Search"): the words a
 * search excerpt is cut from. `saidText` is what the event says itself (the same fields the
 * index weighs A, migration event_search_said), rendered from markdown; `dataText` is every
 * string and number of its payload (what the index weighs D: data, a quoted report, a preview),
 * for a hit that matched only there.
 */
import type { StoredEvent } from "@/lib/protocol";
import { markdownToText } from "./plain-text";

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The fields of each indexed type that the event says itself (kept in step with the migration). */
const SAID: Record<string, readonly string[]> = {
  "chat.message": ["text"],
  /** An edit's new text (docs/protocol.md "Message actions"): search finds a message by its current text. */
  "chat.edit": ["text"],
  "task.request": ["title", "instructions"],
  "task.result": ["summary", "report_markdown", "text", "answer"],
  "task.error": ["code", "message"],
  "approval.requested": ["summary"],
};

/** The event's own words as plain text, one line per block; "" when it says nothing itself. */
export function saidText(ev: Pick<StoredEvent, "type" | "payload">): string {
  const p = (ev.payload ?? {}) as Record<string, unknown>;
  const parts = (SAID[ev.type] ?? []).map((k) => str(p[k]).trim()).filter(Boolean);
  // A result's summary is often the first line of its report: say it once.
  const unique = parts.filter((t, i) => !parts.some((o, j) => j !== i && o.includes(t) && (o.length > t.length || j < i)));
  return markdownToText(unique.join("\n\n"));
}

/**
 * Every string and number of the payload, in order, joined by " · " (markdown strings rendered),
 * at most `max` characters: what a hit shows when its match is only in data or quoted text.
 */
export function dataText(payload: unknown, max = 20_000): string {
  const out: string[] = [];
  let size = 0;
  const walk = (v: unknown) => {
    if (size > max) return;
    if (typeof v === "string") {
      const t = v.includes("\n") || /[*|#`[]/.test(v) ? markdownToText(v, max).replace(/\n/g, " · ") : v;
      if (t.trim()) {
        out.push(t.trim());
        size += t.length;
      }
    } else if (typeof v === "number") {
      out.push(String(v));
      size += 8;
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(payload);
  return out.join(" · ").slice(0, max);
}
