"use client";
/**
 * What a run cost and where its time went, at the replay position (docs/observability.md):
 * `useRunUsage` folds the run's events 1..n with the workspace's prices (lib/fold/usage.ts);
 * `RunUsageBar` is the strip under the run's header ("48.2k tokens · $0.31 · 2 min 14 s: model
 * 1 min 2 s, tools 8 s, waiting for people 40 s") whose Breakdown button opens the table per
 * agent (models, calls, tokens in and out, cost, time in the model, in tools, waiting for
 * people); `TaskUsageFacts` are the task panel's figures.
 */
import { useId, useMemo, useState } from "react";
import type { StoredEvent } from "@/lib/protocol";
import { foldUsage, formatCost, formatTokens, type PriceTable, type RunUsage, type TaskUsage } from "@/lib/fold/usage";
import { useRunNameOf } from "./use-run-names";
import { formatDuration } from "@/components/ui/time";
import { usePrices } from "@/components/usage/use-prices";

/** The run's usage after its first `position` events, and each task's badge ("1.2k tok · $0.01"). */
export function useRunUsage(events: readonly StoredEvent[], position: number): { usage: RunUsage; badges: ReadonlyMap<string, string>; prices: PriceTable } {
  const prices = usePrices();
  const usage = useMemo(() => foldUsage(position >= events.length ? events : events.slice(0, position), prices), [events, position, prices]);
  const badges = useMemo(() => {
    const m = new Map<string, string>();
    for (const [id, t] of usage.tasks) {
      if (!t.calls) continue;
      m.set(id, `${formatTokens(t.input_tokens + t.output_tokens)} tok${t.cost !== null ? ` · ${formatCost(t, usage.currency)}` : ""}`);
    }
    return m;
  }, [usage]);
  return { usage, badges, prices };
}

/** Tokens, cost and elapsed time of the run, with the breakdown per agent behind a button. */
export function RunUsageBar({ usage }: { usage: RunUsage }) {
  const [open, setOpen] = useState(false);
  const tableId = useId();
  const nameOf = useRunNameOf();
  const r = usage.run;
  if (!r.calls && !r.tool_ms && !r.people_ms) return null;
  const tokens = r.input_tokens + r.output_tokens;
  return (
    <section aria-label="Run usage" className="border-b border-line bg-surface px-4 py-1.5 text-[12.5px]" data-run-usage-bar>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-semibold tabular-nums text-fg" data-run-cost>
          {formatTokens(tokens)} tokens · {formatCost(r, usage.currency)}
        </span>
        <span className="tabular-nums text-fg-muted">
          {formatDuration(r.elapsed_ms)}: model {formatDuration(r.model_ms)}, tools {formatDuration(r.tool_ms)}, waiting for people {formatDuration(r.people_ms)}
        </span>
        {usage.unpriced_models.length > 0 && (
          <span className="text-fg-muted" title="Add them to workspace.json prices to see their cost">
            No price for {usage.unpriced_models.join(", ")}
          </span>
        )}
        <button
          type="button"
          aria-expanded={open}
          aria-controls={tableId}
          onClick={() => setOpen((o) => !o)}
          className="ml-auto rounded px-1.5 py-0.5 font-medium text-accent hover:bg-hover"
        >
          {open ? "Hide breakdown" : "Breakdown"}
        </button>
      </div>
      {open && (
        <div id={tableId} className="mt-1.5 max-h-64 overflow-auto">
          <table className="w-full min-w-[640px] border-collapse text-left text-[12px] tabular-nums">
            <caption className="sr-only">Model usage and time per agent</caption>
            <thead className="text-[11px] uppercase tracking-wide text-fg-muted">
              <tr>
                {["Agent", "Models", "Calls", "Tokens in", "Tokens out", "Cost", "In the model", "In tools", "Waiting for people"].map((h) => (
                  <th key={h} scope="col" className="border-b border-line px-2 py-1 font-semibold">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {usage.agents.map((a) => (
                <tr key={a.agent_id} className="border-b border-line/60">
                  <th scope="row" className="px-2 py-1 font-semibold text-fg" title={a.agent_id}>
                    {nameOf(a.agent_id)}
                  </th>
                  <td className="px-2 py-1 font-mono text-[11px]">{a.models.join(", ") || "—"}</td>
                  <td className="px-2 py-1">{a.calls}</td>
                  <td className="px-2 py-1">{a.input_tokens.toLocaleString("en-US")}</td>
                  <td className="px-2 py-1">{a.output_tokens.toLocaleString("en-US")}</td>
                  <td className="px-2 py-1">{formatCost(a, usage.currency)}</td>
                  <td className="px-2 py-1">{formatDuration(a.model_ms)}</td>
                  <td className="px-2 py-1">{formatDuration(a.tool_ms)}</td>
                  <td className="px-2 py-1">{formatDuration(a.people_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The task panel's usage figures, as `Fact`s of its list; nothing for a task without model calls or waits. */
export function TaskUsageFacts({ usage, currency, Fact }: { usage: TaskUsage | undefined; currency: string; Fact: (p: { label: string; children: React.ReactNode }) => React.ReactNode }) {
  if (!usage || (!usage.calls && !usage.tool_ms && !usage.people_ms)) return null;
  return (
    <>
      <Fact label="Tokens">
        <span title={`${usage.input_tokens.toLocaleString("en-US")} in, ${usage.output_tokens.toLocaleString("en-US")} out${usage.cached_input_tokens ? `, ${usage.cached_input_tokens.toLocaleString("en-US")} cached` : ""} in ${usage.calls} model ${usage.calls === 1 ? "call" : "calls"}`}>
          {formatTokens(usage.input_tokens)} in · {formatTokens(usage.output_tokens)} out
        </span>
      </Fact>
      <Fact label="Cost">{formatCost(usage, currency)}</Fact>
      <Fact label="Time">
        <span title={`In the model ${formatDuration(usage.model_ms)}, in tools ${formatDuration(usage.tool_ms)}, waiting for people ${formatDuration(usage.people_ms)}`}>
          model {formatDuration(usage.model_ms)} · tools {formatDuration(usage.tool_ms)}
          {usage.people_ms ? ` · people ${formatDuration(usage.people_ms)}` : ""}
        </span>
      </Fact>
    </>
  );
}
