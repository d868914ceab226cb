/**
 * A fork beside the run it was forked from (Clutch Protocol §8.3 replay and fork; docs/channels.md
 * "Forks"): what each said after the fork point, and the figures that differ.
 *
 * - `said(events)`: what a run told people, in order: agents' messages to people or to the whole
 *   channel, task results with text (lib/run-title.ts `resultText`) and task errors. Messages
 *   between agents, tool traffic and the machinery are left out; so are a fork's copies.
 * - `figures(text)`: the labelled numbers of a text. A markdown table cell is labelled by its
 *   row's first cell and its column's header ("West · Sales"); a number in prose by up to four
 *   words before it in its sentence ("Total revenue"), years and the digits of names
 *   ("analyst-1", "Q4") left out. The first occurrence of a label wins.
 * - `untilFirstResult(events)`: a side's events up to its first root result (the answer to the
 *   request; later follow-ups are another question), the scope both sides are compared in.
 * - `compareFork(parentAfter, forkEvents)`: both sides, each up to its first root result, and,
 *   once both have reported figures, the figures that differ (the same label with another
 *   value, or a label only one side has) and those that stayed the same, in the order they
 *   first appear.
 *
 * Pure: the same events always give the same comparison.
 */
import { isForkCopy } from "../conversation";
import { isEvent, type Participant, type StoredEvent } from "../protocol";
import { resultText } from "../run-title";
import { isPeopleRecipient } from "./questions";

/** One thing a run told people. */
export interface Said {
  kind: "message" | "result" | "error";
  seq: number;
  ts: string;
  from: Participant;
  task_id: string;
  /** The message or result text (markdown), or the error's code and message. */
  text: string;
}

/** A figure that differs between the two sides; null where that side does not have it. */
export interface FigureDiff {
  label: string;
  parent: string | null;
  fork: string | null;
}

export interface ForkComparison {
  /** What each side told people after the fork point. */
  said: { parent: Said[]; fork: Said[] };
  /** How many labelled figures each side reported. */
  reported: { parent: number; fork: number };
  /** Figures whose values differ, or that only one side has; empty until both sides reported figures. */
  figures: FigureDiff[];
  /** How many labelled figures both sides have with the same value. */
  same: number;
  /** The figures both sides have with the same value (at most MAX_FIGURES). */
  unchanged: { label: string; value: string }[];
}

/** At most this many differing figures are listed. */
export const MAX_FIGURES = 200;

/** What `events` told people (see the file comment), in seq order. */
export function said(events: readonly StoredEvent[]): Said[] {
  const out: Said[] = [];
  for (const ev of events) {
    if (isForkCopy(ev)) continue;
    const base = { seq: ev.seq, ts: ev.ts, from: ev.from, task_id: ev.task_id };
    if (isEvent(ev, "chat.message")) {
      if (isPeopleRecipient(ev.from)) continue;
      const to = Array.isArray(ev.to) ? ev.to : [];
      if (to.length && !to.some(isPeopleRecipient)) continue;
      if (typeof ev.payload?.text === "string" && ev.payload.text.trim()) out.push({ ...base, kind: "message", text: ev.payload.text });
    } else if (isEvent(ev, "task.result")) {
      const text = resultText(ev.payload);
      if (text) out.push({ ...base, kind: "result", text });
    } else if (isEvent(ev, "task.error")) {
      out.push({ ...base, kind: "error", text: [ev.payload.code, ev.payload.message].filter((x) => typeof x === "string" && x).join(": ") || "error" });
    }
  }
  return out;
}

/** A number a person reads as a figure; not the digits inside a word ("Q4", "gpt-4o"). */
const NUMBER = /(?<![A-Za-z\d.]|[A-Za-z]-)[-+−]?[$€£]?\d[\d,]*(?:\.\d+)?%?(?![A-Za-z])/g;

const YEAR = /^(?:19|20)\d\d$/;

/** A cell or a line without markdown emphasis, code ticks and link syntax. */
function plain(s: string): string {
  return s
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`~]+/g, "")
    .replace(/^#+\s*/, "")
    .replace(/^\s*(?:[-+>]|\d+\.)\s+/, "")
    .trim();
}

function cells(line: string): string[] {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => plain(c));
}

const SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** The labelled numbers of a markdown text, in order (see the file comment). */
export function figures(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const put = (label: string, value: string) => {
    const key = label.replace(/\s+/g, " ").trim();
    if (key && !out.has(key)) out.set(key, value);
  };
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // A table: its header, a separator, then rows.
    if (line.includes("|") && i + 1 < lines.length && SEPARATOR.test(lines[i + 1]!)) {
      const header = cells(line);
      i += 2;
      for (; i < lines.length && lines[i]!.includes("|"); i++) {
        const row = cells(lines[i]!);
        const name = row[0] ?? "";
        row.slice(1).forEach((cell, c) => {
          const n = cell.match(NUMBER);
          if (n && name) put(`${name} · ${header[c + 1] ?? `column ${c + 2}`}`, n[0]);
        });
      }
      i--;
      continue;
    }
    const flat = plain(line);
    let last = 0;
    for (const m of flat.matchAll(NUMBER)) {
      const sentence = flat.slice(last, m.index).split(/[.!?"“”]\s/).at(-1)!;
      last = m.index + m[0].length;
      if (YEAR.test(m[0])) continue;
      const words = sentence.replace(/[:=(),;]+/g, " ").trim().split(/\s+/).filter((w) => /[A-Za-z]/.test(w));
      if (words.length) put(words.slice(-4).join(" "), m[0]);
    }
  }
  return out;
}

/** A figure's value for comparison: "$1,234.50" and "1234.5" are the same number. */
function numeric(v: string): string {
  const n = Number(v.replace(/[$€£,%+]/g, "").replace("−", "-"));
  return Number.isFinite(n) ? String(n) + (v.endsWith("%") ? "%" : "") : v;
}

/** `events` (seq order) up to and with the first result of a root task; all of them when there is none. */
export function untilFirstResult(events: readonly StoredEvent[]): StoredEvent[] {
  const end = events.findIndex((e) => e.type === "task.result" && !e.parent_task_id && !isForkCopy(e));
  return end < 0 ? [...events] : events.slice(0, end + 1);
}

/**
 * The comparison of a fork with its parent: `parentAfter` is the parent's events after the fork
 * point, `forkEvents` the fork's events (its copies are skipped); each side up to its first
 * root result (`untilFirstResult`), so a follow-up one side had is not read as a difference.
 */
export function compareFork(parentAfter: readonly StoredEvent[], forkEvents: readonly StoredEvent[]): ForkComparison {
  const parent = said(untilFirstResult(parentAfter));
  const fork = said(untilFirstResult(forkEvents));
  const collect = (items: Said[]) => {
    const all = new Map<string, string>();
    for (const s of items) if (s.kind !== "error") for (const [k, v] of figures(s.text)) if (!all.has(k)) all.set(k, v);
    return all;
  };
  const a = collect(parent);
  const b = collect(fork);
  const diffs: FigureDiff[] = [];
  const unchanged: { label: string; value: string }[] = [];
  let same = 0;
  const reported = { parent: a.size, fork: b.size };
  if (!a.size || !b.size) return { said: { parent, fork }, reported, figures: diffs, same, unchanged };
  for (const label of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(label) ?? null;
    const y = b.get(label) ?? null;
    if (x !== null && y !== null && numeric(x) === numeric(y)) {
      same++;
      if (unchanged.length < MAX_FIGURES) unchanged.push({ label, value: y });
    } else if (diffs.length < MAX_FIGURES) diffs.push({ label, parent: x, fork: y });
  }
  return { said: { parent, fork }, reported, figures: diffs, same, unchanged };
}
