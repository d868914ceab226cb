/**
 * Routing renderers (Clutch Protocol §4.2–4.3, §2.5): every step of a routing is recorded in its
 * routing.decision event and shown, in the channel and the run view, as a small table:
 *
 * - `RoutingDecision`: who was chosen and why — the reason, the requires/prefers chips, and a
 *   table with one row per agent (selected ✓ first, other candidates by rank, then the agents a
 *   filter removed): score bar, load against max_concurrency, recent success, and why (prefers
 *   matched, or the filter and its reason); a line on the tie-breaker when one decided. A fixed
 *   recipient (named by id or @mention, an overseer review) gets the short form: selected + reason.
 * - `RoutingFailure`: "No agent matched", whether the request waits for an agent or failed, and
 *   each agent's reason.
 *
 * The table folds load, success and why under the agent's name when its container is narrow
 * (the run view's side panel, phones). Rows come from routing-rows.ts; old events without `ranked` work.
 * Agents read by their card's display name, the id as the tooltip (docs/channels.md "One name per
 * agent"): "Routed to Project Manager".
 */
import type { StoredEvent, StoredEventOf } from "@/lib/protocol";
import { Chip, StatusBadge } from "@/components/ui/chip";
import { CheckIcon, ClockIcon, RouteIcon, XCircleIcon } from "@/components/ui/icons";
import { SenderRow } from "./event-shell";
import { failureRows, formatLoad, formatSuccess, routingRows, tieBreakNote, type RoutingRow } from "./routing-rows";
import { useNameOf } from "./use-sender-name";

const TH = "px-1.5 pb-1 text-left text-[10.5px] font-semibold uppercase tracking-wide text-fg-subtle";
const TD = "px-1.5 py-1 align-top";

function ScoreBar({ score, max, selected }: { score: number | null; max: number; selected: boolean }) {
  if (score === null) return <span className="text-fg-subtle">—</span>;
  const pct = Math.max(0, Math.min(100, (score / max) * 100));
  return (
    <div className="flex items-center gap-1.5">
      <div className="h-1.5 w-10 overflow-hidden rounded-full bg-fg-muted/15 @md:w-auto @md:flex-1" aria-hidden="true">
        <div className={`h-full rounded-full ${selected ? "bg-success" : "bg-fg-subtle"}`} style={{ width: `${pct}%` }} />
      </div>
      <span className="w-8 text-right tabular-nums">{score.toFixed(2)}</span>
    </div>
  );
}

function Why({ row }: { row: RoutingRow }) {
  if (row.kind === "rejected") {
    return (
      <span className="flex flex-wrap items-baseline gap-x-1.5 gap-y-0.5">
        <Chip className="border-warning/30 text-warning" title="the filter that removed it">
          {row.filter}
        </Chip>
        <span className="min-w-0 break-words">{row.reason}</span>
      </span>
    );
  }
  if (!row.matched.length) return <span className="text-fg-subtle">—</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {row.matched.map((m) => (
        <Chip key={m} title="preference matched">
          ~{m}
        </Chip>
      ))}
    </span>
  );
}

/** One row per agent; `factors` adds score, load and success columns (off when all were rejected). */
function AgentTable({ rows, factors, label }: { rows: RoutingRow[]; factors: boolean; label: string }) {
  if (!rows.length) return null;
  const max = Math.max(1, ...rows.map((r) => r.score ?? 0));
  const wideOnly = "@max-md:hidden";
  return (
    <div className="@container mt-1.5 -mx-1.5">
      <table className="w-full border-collapse text-[12px]" aria-label={label}>
        <thead>
          <tr>
            <th scope="col" className={`${TH} @md:w-[1%]`}>Agent</th>
            {factors && <th scope="col" className={`${TH} w-[1%] @md:w-[22%]`}>Score</th>}
            {factors && <th scope="col" className={`${TH} ${wideOnly} text-right`}>Load</th>}
            {factors && <th scope="col" className={`${TH} ${wideOnly} text-right`}>Success</th>}
            <th scope="col" className={`${TH} ${wideOnly} pl-3`}>Why</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const selected = r.kind === "selected";
            const facts = [r.load !== null && `load ${formatLoad(r)}`, r.success_rate !== null && `${formatSuccess(r.success_rate)} success`].filter(Boolean);
            return (
              <tr
                key={`${r.kind}-${r.agent_id}`}
                data-routing-row={r.kind}
                className={`border-t border-line/70 ${selected ? "bg-success/[0.07] font-medium text-fg" : r.kind === "rejected" ? "text-fg-subtle" : "text-fg-muted"}`}
              >
                <th scope="row" className={`${TD} text-left font-[inherit]`}>
                  <span className="flex max-w-48 items-center gap-1 whitespace-nowrap" title={r.agent_id}>
                    {selected ? (
                      <CheckIcon size={12} strokeWidth={3} className="shrink-0 text-success" />
                    ) : r.kind === "rejected" ? (
                      <XCircleIcon size={12} className="shrink-0 opacity-70" />
                    ) : (
                      <span className="w-3 shrink-0" />
                    )}
                    <span className="min-w-0 truncate">{r.name}</span>
                    {selected && <span className="sr-only"> (selected)</span>}
                    {r.kind === "rejected" && <span className="sr-only"> (rejected)</span>}
                  </span>
                  {/* Narrow: load, success and why under the name. */}
                  <div className="pl-4 text-[11px] font-normal @md:hidden">
                    {facts.length > 0 && <div className="text-fg-subtle">{facts.join(" · ")}</div>}
                    {(r.kind === "rejected" || r.matched.length > 0) && (
                      <div className="mt-0.5">
                        <Why row={r} />
                      </div>
                    )}
                  </div>
                </th>
                {factors && (
                  <td className={`${TD} whitespace-nowrap`}>
                    <ScoreBar score={r.score} max={max} selected={selected} />
                  </td>
                )}
                {factors && <td className={`${TD} ${wideOnly} text-right tabular-nums`}>{formatLoad(r)}</td>}
                {factors && <td className={`${TD} ${wideOnly} text-right tabular-nums`}>{formatSuccess(r.success_rate)}</td>}
                <td className={`${TD} ${wideOnly} pl-3 font-normal`}>
                  <Why row={r} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Caps({ event, requires, prefers }: { event: StoredEvent; requires?: string[]; prefers?: string[] }) {
  const req = requires ?? event.requires ?? [];
  const pref = prefers ?? event.prefers ?? [];
  if (!req.length && !pref.length) return null;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-1 text-[11px] text-fg-subtle">
      {req.length > 0 && <span>requires</span>}
      {req.map((c) => (
        <Chip key={`r-${c}`} title="required capability" className="border-accent/30 text-accent">
          {c}
        </Chip>
      ))}
      {pref.length > 0 && <span className={req.length ? "ml-1.5" : ""}>prefers</span>}
      {pref.map((c) => (
        <Chip key={`p-${c}`} title="preferred">
          ~{c}
        </Chip>
      ))}
    </div>
  );
}

/** Why an agent was selected: the winner, the reason, and the table of every agent considered. */
export function RoutingDecision({ event, continued }: { event: StoredEventOf<"routing.decision">; continued: boolean }) {
  const p = event.payload;
  const nameOf = useNameOf();
  const rows = routingRows(p, nameOf);
  const selected = rows[0]!;
  const fixed = p.mode === "fixed" || rows.length === 1;
  const candidates = rows.filter((r) => r.kind !== "rejected").length;
  const rejected = rows.length - candidates;
  const tie = tieBreakNote(p, nameOf);
  return (
    <SenderRow event={event} continued={continued} label={`Routing decision: ${selected.name}`}>
      <div role="group" aria-label="Routing decision" className="mt-1 max-w-2xl rounded-lg border border-line bg-surface px-3 py-2">
        <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <RouteIcon size={13} className="text-fg-subtle" />
          <span className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">Routed to</span>{" "}
          <span className="text-[13px] font-semibold text-success" title={p.selected}>
            {selected.name}
          </span>
          {p.mode && (
            <StatusBadge tone={p.mode === "fixed" ? "neutral" : "accent"}>{p.mode === "fixed" ? "named recipient" : "by capability"}</StatusBadge>
          )}
          {!fixed && (
            <span className="ml-auto text-[11px] text-fg-subtle">
              {candidates} candidate{candidates === 1 ? "" : "s"}
              {rejected > 0 && ` · ${rejected} filtered out`}
            </span>
          )}
        </header>
        <p className="mt-0.5 text-[13px] text-fg-muted">{p.reason}</p>
        <Caps event={event} requires={p.requires} prefers={p.prefers} />
        {!fixed && <AgentTable rows={rows} factors label="Agents considered" />}
        {!fixed && tie && <p className="mt-1 text-[11.5px] text-fg-muted">⚖ {tie}</p>}
      </div>
    </SenderRow>
  );
}

/** No agent matched: the reason, what was asked for, whether it waits or failed, each agent's reason. */
export function RoutingFailure({ event, continued }: { event: StoredEventOf<"routing.failure">; continued: boolean }) {
  const p = event.payload;
  const waiting = p.outcome === "waiting";
  const nameOf = useNameOf();
  const rows = failureRows(p, nameOf);
  return (
    <SenderRow event={event} continued={continued} label={`Routing failure: no agent matched${waiting ? ", waiting for an agent" : ""}`}>
      <div
        role="group"
        aria-label="Routing failure"
        className={`mt-1 max-w-2xl rounded-lg border px-3 py-2 ${waiting ? "border-warning/40 bg-warning/[0.05]" : "border-danger/35 bg-danger/[0.04]"}`}
      >
        <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <RouteIcon size={13} className={waiting ? "text-warning" : "text-danger"} />
          <span className={`text-[11px] font-semibold uppercase tracking-wide ${waiting ? "text-warning" : "text-danger"}`}>No agent matched</span>{" "}
          {waiting ? (
            <StatusBadge tone="warning">
              <ClockIcon size={11} strokeWidth={2.5} />
              Waiting for an agent
            </StatusBadge>
          ) : (
            <StatusBadge tone="danger">{p.outcome === "failed" ? "Failed" : "Routing failed"}</StatusBadge>
          )}
        </header>
        <p className="mt-0.5 text-[13px] text-fg">{p.reason}</p>
        <Caps event={event} requires={p.requires} prefers={p.prefers} />
        <AgentTable rows={rows} factors={false} label="Why each agent was left out" />
      </div>
    </SenderRow>
  );
}
