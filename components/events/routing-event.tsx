/**
 * Routing renderers (Clutch Protocol §4.3, §2.5; issue 2 "routing.decision/failure: selected
 * agent, candidates, scores as a small table with bars, reason, rejected agents with
 * filter+reason").
 */
import type { PayloadOf, StoredEvent } from "@/lib/protocol";
import { Chip, StatusBadge } from "@/components/ui/chip";
import { RouteIcon } from "@/components/ui/icons";
import { SenderRow } from "./event-shell";

type Rejected = NonNullable<PayloadOf<"routing.decision">["rejected"]>;

function ScoreTable({ scores, candidates, selected }: { scores: Record<string, number>; candidates: string[]; selected: string }) {
  const agents = [...new Set([...Object.keys(scores), ...candidates])].sort(
    (a, b) => (scores[b] ?? -Infinity) - (scores[a] ?? -Infinity),
  );
  if (agents.length === 0) return null;
  const max = Math.max(1, ...Object.values(scores).filter((n) => Number.isFinite(n)));
  return (
    <table className="mt-1.5 w-full max-w-md text-[12px]" aria-label="Candidate scores">
      <thead className="sr-only">
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Score</th>
        </tr>
      </thead>
      <tbody>
        {agents.map((a) => {
          const s = scores[a];
          const has = typeof s === "number" && Number.isFinite(s);
          const pct = has ? Math.max(0, Math.min(100, (s / max) * 100)) : 0;
          const chosen = a === selected;
          return (
            <tr key={a} className={chosen ? "font-semibold text-fg" : "text-fg-muted"}>
              <th scope="row" className="w-[42%] max-w-0 truncate py-0.5 pr-2 text-left font-mono font-[inherit]" title={a}>
                {chosen && <span className="mr-1 text-success" aria-label="selected">✓</span>}
                {a}
              </th>
              <td className="py-0.5">
                <div className="flex items-center gap-2">
                  <div className="h-1.5 flex-1 overflow-hidden rounded-full bg-fg-muted/15" aria-hidden="true">
                    <div className={`h-full rounded-full ${chosen ? "bg-success" : "bg-fg-subtle"}`} style={{ width: `${pct}%` }} />
                  </div>
                  <span className="w-10 text-right tabular-nums">{has ? s.toFixed(2) : "—"}</span>
                </div>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function RejectedList({ rejected }: { rejected: Rejected }) {
  if (rejected.length === 0) return null;
  return (
    <div className="mt-1.5">
      <div className="text-[11px] font-semibold uppercase tracking-wide text-fg-subtle">Rejected</div>
      <ul className="mt-0.5 space-y-0.5 text-[12px]" aria-label="Rejected agents">
        {rejected.map((r, i) => (
          <li key={`${r.agent_id}-${i}`} className="flex flex-wrap items-baseline gap-x-1.5">
            <span className="font-mono text-fg-muted">{r.agent_id}</span>{" "}
            <Chip className="text-warning">{r.filter}</Chip>{" "}
            <span className="text-fg-muted">{r.reason}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Caps({ event, requires, prefers }: { event: StoredEvent; requires?: string[]; prefers?: string[] }) {
  const req = requires ?? event.requires ?? [];
  const pref = prefers ?? event.prefers ?? [];
  if (!req.length && !pref.length) return null;
  return (
    <div className="mt-1 flex flex-wrap gap-1">
      {req.map((c) => (
        <Chip key={`r-${c}`} title="requires" className="border-accent/30 text-accent">
          {c}
        </Chip>
      ))}
      {pref.map((c) => (
        <Chip key={`p-${c}`} title="prefers">
          ~{c}
        </Chip>
      ))}
    </div>
  );
}

/** Why an agent was selected: the winner, the reason, every candidate's score, who was filtered out. */
export function RoutingDecision({ event, continued }: { event: StoredEvent; continued: boolean }) {
  const p = event.payload as PayloadOf<"routing.decision">;
  return (
    <SenderRow event={event} continued={continued} label={`Routing decision: ${p.selected}`}>
      <section aria-label="Routing decision" className="mt-1 max-w-2xl rounded-lg border border-line bg-surface px-3 py-2">
        <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <RouteIcon size={13} className="text-fg-subtle" />
          <span className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">Routed to</span>{" "}
          <span className="font-mono text-[13px] font-semibold text-success">{p.selected}</span>
          <span className="ml-auto text-[11px] text-fg-subtle">
            {p.candidates.length} candidate{p.candidates.length === 1 ? "" : "s"}
          </span>
        </header>
        <p className="mt-0.5 text-[13px] text-fg-muted">{p.reason}</p>
        <Caps event={event} />
        <ScoreTable scores={p.scores} candidates={p.candidates} selected={p.selected} />
        {p.rejected && <RejectedList rejected={p.rejected} />}
      </section>
    </SenderRow>
  );
}

/** No agent matched: the reason, the capabilities asked for, and why each agent was filtered out. */
export function RoutingFailure({ event, continued }: { event: StoredEvent; continued: boolean }) {
  const p = event.payload as PayloadOf<"routing.failure">;
  return (
    <SenderRow event={event} continued={continued} label="Routing failure">
      <section aria-label="Routing failure" className="mt-1 max-w-2xl rounded-lg border border-danger/35 bg-danger/[0.04] px-3 py-2">
        <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <RouteIcon size={13} className="text-danger" />
          <span className="text-[11px] font-semibold uppercase tracking-wide text-danger">No agent matched</span>{" "}
          <StatusBadge tone="danger">Routing failed</StatusBadge>
        </header>
        <p className="mt-0.5 text-[13px] text-fg">{p.reason}</p>
        <Caps event={event} requires={p.requires} prefers={p.prefers} />
        {p.rejected && <RejectedList rejected={p.rejected} />}
      </section>
    </SenderRow>
  );
}
