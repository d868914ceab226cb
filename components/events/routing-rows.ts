/**
 * The rows of a routing decision's table (Clutch Protocol §4.2–4.3: every step of a routing as
 * recorded in its routing.decision event), as pure functions for routing-event.tsx:
 *
 *   routingRows(payload, nameOf)   one row per agent: the selected one, the other candidates by
 *                                  rank, then the agents a filter removed
 *   failureRows(payload, nameOf)   a routing.failure's rows: each agent a filter removed
 *   tieBreakNote(payload, nameOf)  "Tie on score between Analyst (analyst-1) and Analyst (analyst-3),
 *                                  settled by least loaded"
 *
 * Agents are named as a person reads them (docs/channels.md "One name per agent"): `nameOf` gives
 * the card's display name (components/events/use-sender-name.ts `useNameOf`), with the handle
 * beside it where two agents of the table share a name (participant.ts `distinctNames`).
 *
 * Old events (before `ranked`) have only `candidates` and `scores`; their rows are made from
 * those, best score first.
 */
import type { PayloadOf } from "@/lib/protocol";
import { distinctNames, listOf } from "./participant";

type Decision = PayloadOf<"routing.decision">;

/** One agent's line in the table. */
export interface RoutingRow {
  agent_id: string;
  /** The name a person reads: "Project Manager", or "Analyst (analyst-1)" beside another "Analyst". */
  name: string;
  kind: "selected" | "candidate" | "rejected";
  /** Preference score 0..1; null when not scored (rejected). */
  score: number | null;
  /** Tasks in progress, and the most it takes; null when not recorded. */
  load: number | null;
  max_concurrency: number | null;
  /** 0..1, null with no history or not recorded. */
  success_rate: number | null;
  /** prefers[] entries it matched (candidates). */
  matched: string[];
  /** The filter that removed it, and why (rejected). */
  filter: string | null;
  reason: string | null;
}

const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);

/** Each row's `name` (see the file comment). */
function named(rows: Omit<RoutingRow, "name">[], nameOf: (id: string) => string): RoutingRow[] {
  const names = distinctNames(rows.map((r) => r.agent_id), nameOf);
  return rows.map((r) => ({ ...r, name: names.get(r.agent_id)! }));
}

/** The table's rows: selected first, then candidates by rank (score), then rejected agents. */
export function routingRows(p: Decision, nameOf: (id: string) => string): RoutingRow[] {
  const rejected = p.rejected ?? [];
  const rejectedIds = new Set(rejected.map((r) => r.agent_id));
  const ranked = new Map((p.ranked ?? []).map((c) => [c.agent_id, c]));
  const scores = p.scores ?? {};
  const ids = [...new Set([...(p.ranked ?? []).map((c) => c.agent_id), ...p.candidates, ...Object.keys(scores)])].filter(
    (id) => id === p.selected || !rejectedIds.has(id),
  );
  if (!ids.includes(p.selected)) ids.unshift(p.selected);
  const scoreOf = (id: string) => num(ranked.get(id)?.score) ?? num(scores[id]);
  // Keep the recorded order (ranked or candidates are best first) for equal scores.
  const order = new Map(ids.map((id, i) => [id, i]));
  ids.sort((a, b) => {
    if (a === p.selected || b === p.selected) return a === p.selected ? -1 : 1;
    return (scoreOf(b) ?? -Infinity) - (scoreOf(a) ?? -Infinity) || order.get(a)! - order.get(b)!;
  });
  const rows: Omit<RoutingRow, "name">[] = ids.map((id) => {
    const c = ranked.get(id);
    return {
      agent_id: id,
      kind: id === p.selected ? "selected" : "candidate",
      score: scoreOf(id),
      load: num(c?.load),
      max_concurrency: num(c?.max_concurrency),
      success_rate: num(c?.success_rate),
      matched: c?.matched ?? [],
      filter: null,
      reason: null,
    };
  });
  for (const r of rejected) {
    if (r.agent_id === p.selected) continue;
    rows.push(rejectedRow(r));
  }
  return named(rows, nameOf);
}

/** A row of an agent a filter removed. */
function rejectedRow(r: { agent_id: string; filter: string; reason: string }): Omit<RoutingRow, "name"> {
  return { agent_id: r.agent_id, kind: "rejected", score: null, load: null, max_concurrency: null, success_rate: null, matched: [], filter: r.filter, reason: r.reason };
}

/** A routing.failure's rows: every agent a filter removed, with the filter and why. */
export function failureRows(p: PayloadOf<"routing.failure">, nameOf: (id: string) => string): RoutingRow[] {
  return named((p.rejected ?? []).map(rejectedRow), nameOf);
}

const TIE_BREAKERS: Record<NonNullable<Decision["tie_break"]>["by"], string> = {
  least_loaded: "least loaded",
  success_rate: "recent success rate",
  round_robin: "round robin",
};

/** The one-line tie-break note, or null when no tie-breaker decided. */
export function tieBreakNote(p: Decision, nameOf: (id: string) => string): string | null {
  const t = p.tie_break;
  if (!t || t.among.length < 2) return null;
  const names = distinctNames(t.among, nameOf);
  return `Tie on score between ${listOf(t.among.map((id) => names.get(id)!))}, settled by ${TIE_BREAKERS[t.by] ?? t.by}`;
}

/** "1/2", "1" (no limit recorded), or "—". */
export function formatLoad(row: Pick<RoutingRow, "load" | "max_concurrency">): string {
  if (row.load === null) return "—";
  return row.max_concurrency === null ? String(row.load) : `${row.load}/${row.max_concurrency}`;
}

/** "92%" or "—". */
export function formatSuccess(rate: number | null): string {
  return rate === null ? "—" : `${Math.round(rate * 100)}%`;
}
