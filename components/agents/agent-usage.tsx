"use client";
/**
 * `AgentUsage`: an agent's model calls of the last 7 days on its page (docs/observability.md),
 * from `GET /api/agents/:agent_id/usage?days=7`, priced with the workspace's prices: the week's
 * tokens, cost and calls, then one row per day (tokens in and out, cost, time in the model).
 */
import { useQuery } from "@tanstack/react-query";
import type { ModelUsageRow } from "@/lib/api/types";
import { formatCost, formatTokens, totalsOfRows } from "@/lib/fold/usage";
import { apiRequest } from "@/components/live/api";
import { formatDuration } from "@/components/ui/time";
import { usePrices } from "@/components/usage/use-prices";

interface UsageDays {
  agent_id: string;
  since: string;
  days: { day: string; rows: ModelUsageRow[] }[];
}

const dayFmt = new Intl.DateTimeFormat("en-US", { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" });

export function AgentUsage({ agentId }: { agentId: string }) {
  const prices = usePrices();
  const q = useQuery({
    queryKey: ["agent-usage", agentId],
    queryFn: () => apiRequest<UsageDays>(`/api/agents/${encodeURIComponent(agentId)}/usage?days=7`),
    staleTime: 30_000,
  });
  if (q.isPending) return <p className="text-[13px] text-fg-muted">Loading usage…</p>;
  if (q.isError) return <p role="alert" className="text-[13px] text-danger">Couldn’t load the usage: {q.error.message}</p>;
  const days = q.data.days;
  const week = totalsOfRows(days.flatMap((d) => d.rows), prices);
  if (!week.calls) return <p className="text-[13px] text-fg-muted">No model calls in the last 7 days.</p>;
  return (
    <div data-agent-usage>
      <p className="mb-2 text-[13px] text-fg">
        <span className="font-semibold tabular-nums">
          {formatTokens(week.input_tokens + week.output_tokens)} tokens · {formatCost(week, prices.currency)}
        </span>{" "}
        <span className="text-fg-muted">
          in {week.calls.toLocaleString("en-US")} model {week.calls === 1 ? "call" : "calls"}, {formatDuration(week.model_ms)} in the model
        </span>
      </p>
      <table className="w-full border-collapse text-left text-[12.5px] tabular-nums">
        <caption className="sr-only">Model usage per day, last 7 days (UTC)</caption>
        <thead className="text-[11px] uppercase tracking-wide text-fg-muted">
          <tr>
            {["Day (UTC)", "Calls", "Tokens in", "Tokens out", "Cost", "In the model"].map((h) => (
              <th key={h} scope="col" className="border-b border-line px-2 py-1 font-semibold">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((d) => {
            const t = totalsOfRows(d.rows, prices);
            return (
              <tr key={d.day} className="border-b border-line/60">
                <th scope="row" className="px-2 py-1 font-medium text-fg">
                  {dayFmt.format(new Date(`${d.day}T00:00:00Z`))}
                </th>
                <td className="px-2 py-1">{t.calls || "—"}</td>
                <td className="px-2 py-1">{t.calls ? formatTokens(t.input_tokens) : "—"}</td>
                <td className="px-2 py-1">{t.calls ? formatTokens(t.output_tokens) : "—"}</td>
                <td className="px-2 py-1">{t.calls ? formatCost(t, prices.currency) : "—"}</td>
                <td className="px-2 py-1">{t.calls ? formatDuration(t.model_ms) : "—"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
