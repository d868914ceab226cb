/**
 * The rows of a routing decision's table (Clutch Protocol §4.2–4.3: every step of a routing as
 * recorded in its routing.decision event), as pure functions for routing-event.tsx:
 *
 *   routingRows(payload)   one row per agent: the selected one, the other candidates by rank,
 *                          then the agents a filter removed
 *   tieBreakNote(payload)  "Tie on score between analyst-1 and analyst-2, settled by least loaded"
 *
 * Old events (before `ranked`) have only `candidates` and `scores`; their rows are made from
 * those, best score first.
 */
import type { PayloadOf } from "@/lib/protocol";
import { bareId } from "./participant";

type Decision = PayloadOf<"routing.decision">;

/** One agent's line in the table. */
export interface RoutingRow {
  agent_id: string;
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

/** The table's rows: selected first, then candidates by rank (score), then rejected agents. */
export function routingRows(p: Decision): RoutingRow[] {
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
  const rows: RoutingRow[] = ids.map((id) => {
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
    rows.push({ agent_id: r.agent_id, kind: "rejected", score: null, load: null, max_concurrency: null, success_rate: null, matched: [], filter: r.filter, reason: r.reason });
  }
  return rows;
}

const TIE_BREAKERS: Record<NonNullable<Decision["tie_break"]>["by"], string> = {
  least_loaded: "least loaded",
  success_rate: "recent success rate",
  round_robin: "round robin",
};

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** The one-line tie-break note, or null when no tie-breaker decided. */
export function tieBreakNote(p: Decision): string | null {
  const t = p.tie_break;
  if (!t || t.among.length < 2) return null;
  return `Tie on score between ${listOf(t.among.map(bareId))}, settled by ${TIE_BREAKERS[t.by] ?? t.by}`;
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
