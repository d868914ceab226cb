"use client";
/**
 * `CompareScreen` (`/runs/:run_id/compare`): a fork beside the run it was forked from, from the
 * fork point on (docs/channels.md "Forks"), each up to its first result. On top, what the fork
 * changed: the figures that differ (same label, other value, or only one side has it), then
 * what stayed the same behind a disclosure; below, what each run told people after the fork point,
 * side by side (one column under the other on a phone), each message and result rendered and
 * folded. Data: `GET /api/runs/:id/compare` (lib/fold/fork-compare.ts), refreshed while either
 * run is still going.
 */
import Link from "next/link";
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import type { ForkCompareResponse, RunSummary } from "@/lib/api/types";
import type { Said } from "@/lib/fold/fork-compare";
import { runStatusLabel } from "@/lib/fold/run-status";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { ApiRequestError } from "@/components/live/api";
import { useThread } from "@/components/live/use-threads";
import { useSenderName } from "@/components/events/use-sender-name";
import { Markdown } from "@/components/markdown/markdown";
import { Foldable } from "@/components/ui/foldable";
import { PageHeader } from "@/components/ui/page-header";
import { formatDuration, formatFull, formatTime } from "@/components/ui/time";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { useThreadTitle } from "@/components/workspace/thread-title";
import { fetchForkComparison } from "./api";
import { ForkIcon } from "./icons";
import { runLinkLabel } from "./run-label";
import { RunStateBadge } from "./run-state-badge";

const runHref = (id: string) => `/runs/${encodeURIComponent(id)}`;

/** "#12" for a run with a number, else its short id. */
function runLabel(run: RunSummary): string {
  return run.run_number ? `#${run.run_number}` : run.run_id.slice(-6);
}

function tookMs(run: RunSummary): number | null {
  const end = Date.parse(run.ended_at ?? run.updated_at);
  const start = Date.parse(run.started_at);
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : null;
}

const KIND_LABEL: Record<Said["kind"], string> = { message: "Message", result: "Result", error: "Could not finish" };

function SaidItem({ item }: { item: Said }) {
  const { name } = useSenderName(item.from);
  return (
    <li className="rounded-lg border border-line bg-surface px-3 py-2">
      <p className="mb-1 flex items-baseline gap-2 text-[12px] text-fg-muted">
        <span className="font-semibold text-fg">{name}</span>
        <span className={item.kind === "error" ? "font-medium text-danger" : ""}>{KIND_LABEL[item.kind]}</span>
        <time dateTime={item.ts} title={formatFull(item.ts)} className="ml-auto tabular-nums">
          {formatTime(item.ts)}
        </time>
      </p>
      {item.kind === "error" ? (
        <p className="text-[13.5px]">{item.text}</p>
      ) : (
        <Foldable lines={10}>
          <Markdown text={item.text} />
        </Foldable>
      )}
    </li>
  );
}

function Side({ title, run, items, atSeq }: { title: string; run: RunSummary; items: Said[]; atSeq: number }) {
  const ms = tookMs(run);
  const me = useMe();
  const nameOf = usePersonLabel();
  return (
    <section aria-label={`${title}: ${runLabel(run)}`} className="min-w-0">
      <header className="mb-2 flex flex-wrap items-center gap-x-2 gap-y-1">
        <h2 className="text-[14px] font-bold">{title}</h2>
        <Link href={runHref(run.run_id)} className="text-[13px] font-medium text-accent hover:underline" title={run.run_id}>
          Run {runLabel(run)}
        </Link>
        <RunStateBadge state={run.status} label={runStatusLabel(run, me, nameOf)} />
        {ms !== null && <span className="text-[12px] tabular-nums text-fg-muted">{run.ended_at ? `took ${formatDuration(ms)}` : `${formatDuration(ms)} so far`}</span>}
      </header>
      {items.length ? (
        <ol className="space-y-2">
          {items.map((s) => (
            <SaidItem key={s.seq} item={s} />
          ))}
        </ol>
      ) : (
        <p className="rounded-lg border border-dashed border-line px-3 py-4 text-center text-[13px] text-fg-muted">
          {run.ended_at ? `Nothing was said to people after event #${atSeq}.` : "Nothing said to people yet."}
        </p>
      )}
    </section>
  );
}

function Figures({ data }: { data: ForkCompareResponse }) {
  const { figures, same, runs, reported } = data;
  if (!reported.parent || !reported.fork) {
    const missing = !reported.fork ? runs.fork : runs.parent;
    const who = !reported.fork ? "The fork" : "The original";
    return (
      <p className="rounded-lg border border-line bg-sunken/50 px-3 py-2 text-[13.5px]" role="status">
        {!reported.parent && !reported.fork
          ? "Neither run reported figures after the fork point."
          : missing.ended_at
            ? `${who} reported no figures after the fork point, so there is nothing to set them against.`
            : `${who} has not reported figures yet; they are compared here as soon as it does.`}
      </p>
    );
  }
  if (!figures.length) {
    return (
      <div className="rounded-lg border border-line bg-sunken/50">
        <p className="px-3 py-2 text-[13.5px]" role="status">
          The fork changed no figure: the {same} figure{same === 1 ? "" : "s"} both runs reported {same === 1 ? "is" : "are"} the same.
        </p>
        {same > 0 && <Unchanged data={data} />}
      </div>
    );
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table className="w-full text-[13px]">
        <caption className="sr-only">Figures that differ between the original run and the fork</caption>
        <thead className="bg-sunken/60 text-left text-[12px] text-fg-muted">
          <tr>
            <th scope="col" className="px-3 py-1.5 font-semibold">
              Figure
            </th>
            <th scope="col" className="px-3 py-1.5 text-right font-semibold">
              Original {runLabel(runs.parent)}
            </th>
            <th scope="col" className="px-3 py-1.5 text-right font-semibold">
              Fork {runLabel(runs.fork)}
            </th>
          </tr>
        </thead>
        <tbody>
          {figures.map((f) => (
            <tr key={f.label} className="border-t border-line">
              <th scope="row" className="px-3 py-1.5 text-left font-medium">
                {f.label}
              </th>
              <td className="px-3 py-1.5 text-right tabular-nums">{f.parent ?? <span className="text-fg-subtle">not reported</span>}</td>
              <td className="px-3 py-1.5 text-right font-semibold tabular-nums">{f.fork ?? <span className="font-normal text-fg-subtle">not reported</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {same > 0 && <Unchanged data={data} />}
    </div>
  );
}

/** What stayed the same: the figures both runs reported with one value, behind a disclosure. */
function Unchanged({ data }: { data: ForkCompareResponse }) {
  const { same, unchanged } = data;
  return (
    <details className="border-t border-line px-3 py-1.5 text-[12.5px]">
      <summary className="cursor-pointer text-fg-muted hover:text-fg">
        What stayed the same: {same} figure{same === 1 ? "" : "s"} both runs reported alike
      </summary>
      <ul aria-label="Figures that stayed the same" className="mt-1 grid gap-x-4 gap-y-0.5 sm:grid-cols-2">
        {unchanged.map((u) => (
          <li key={u.label} className="flex min-w-0 justify-between gap-2">
            <span className="min-w-0 truncate">{u.label}</span>
            <span className="tabular-nums text-fg-muted">{u.value}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The page (see the file comment). */
export function CompareScreen({ runId }: { runId: string }) {
  const q = useQuery({
    queryKey: ["run-compare", runId],
    queryFn: () => fetchForkComparison(runId),
    refetchInterval: (query) => {
      const d = query.state.data;
      return d && (!d.runs.fork.ended_at || !d.runs.parent.ended_at) ? 3000 : false;
    },
  });
  const data = q.data;
  const thread = useThread(data?.runs.fork.thread_id);
  const channel = useThreadTitle(thread).label;
  const title = data ? `${data.runs.fork.title ?? "Run"}: compared` : "Compare runs";
  useEffect(() => {
    document.title = `${title} · Clutch`;
  }, [title]);
  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <nav aria-label="Breadcrumb" className="flex min-w-0 flex-1 items-center gap-1.5">
          {thread && (
            <>
              <Link href={`/c/${encodeURIComponent(thread.id)}`} className="flex shrink-0 items-center gap-0.5 text-[13.5px] font-semibold text-fg-muted hover:text-fg max-sm:hidden">
                {channel}
              </Link>
              <span className="text-fg-subtle max-sm:hidden" aria-hidden="true">
                /
              </span>
            </>
          )}
          {data && (
            <>
              <Link href={runHref(runId)} className="min-w-0 truncate text-[13.5px] font-semibold text-fg-muted hover:text-fg">
                {data.runs.fork.title ?? "Run"}
              </Link>
              <span className="text-fg-subtle" aria-hidden="true">
                /
              </span>
            </>
          )}
          <h1 className="shrink-0 text-[15px] font-bold">Compare with the original</h1>
        </nav>
      </PageHeader>
      <div className="scroll-slim min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto max-w-6xl space-y-5 px-4 py-4 sm:px-6">
          {q.isPending ? (
            <p className="text-sm text-fg-muted" role="status">
              Loading both runs…
            </p>
          ) : q.isError ? (
            <div role="alert" className="space-y-2 text-sm">
              <p className="text-danger">
                {q.error instanceof ApiRequestError && q.error.code === "not_a_fork"
                  ? "This run was not forked from another run, so there is nothing to compare it with."
                  : `Could not compare the runs: ${q.error.message}`}
              </p>
              <Link href={runHref(runId)} className="font-medium text-accent hover:underline">
                Back to the run
              </Link>
            </div>
          ) : data ? (
            <>
              <p className="flex flex-wrap items-center gap-1.5 text-[13.5px] text-fg-muted">
                <ForkIcon size={14} className="shrink-0" />
                Forked from event #{data.at_seq} of{" "}
                <Link href={`${runHref(data.runs.parent.run_id)}?at=${data.at_seq}`} className="font-medium text-accent hover:underline">
                  {runLinkLabel(data.runs.parent)}
                </Link>
                . Both did the same up to there; this is what each did after.
              </p>
              <section aria-labelledby="figures-heading" className="space-y-2">
                <h2 id="figures-heading" className="text-[14px] font-bold">
                  What the fork changed
                </h2>
                <Figures data={data} />
              </section>
              <div className="grid gap-5 md:grid-cols-2">
                <Side title="Original" run={data.runs.parent} items={data.said.parent} atSeq={data.at_seq} />
                <Side title="Fork" run={data.runs.fork} items={data.said.fork} atSeq={data.at_seq} />
              </div>
            </>
          ) : null}
        </div>
      </div>
    </div>
  );
}
