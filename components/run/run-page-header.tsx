"use client";
/**
 * `RunPageHeader`: the bar above a run: the channel it belongs to ("#sales", a DM by the other
 * party's name), the run's title,
 * its status now in the words the channel's card and /runs use ("Waiting on you", "Cancelled by
 * Lee"; header-status.ts) and duration (a clock that counts on while the run goes on); Cancel run while it runs; the channel's recent runs with their "#n" (a small menu, the
 * way in to other runs, and to /runs); Export (JSON Lines download) and Import. A second line says which run
 * this one was forked from (a link to that run at the fork's seq) and lists this run's forks, each
 * run by its number and title ("#13 Analyze sales (fork at #46)").
 */
import { PageHeader } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { RunSummary } from "@/lib/api/types";
import type { RunGraphState } from "@/lib/fold/run-graph";
import { runStatusLabel } from "@/lib/fold/run-status";
import { useMe } from "@/components/identity/me";
import { useRunPersonLabel } from "./use-run-names";
import { fetchThreadRuns } from "@/components/live/api";
import { queryKeys } from "@/components/live/query-keys";
import { useThread } from "@/components/live/use-threads";
import { ChevronDownIcon } from "@/components/ui/icons";
import { useThreadTitle } from "@/components/workspace/thread-title";
import { formatDuration } from "@/components/ui/time";
import { fetchRunDetail, exportUrl, type RunDetailResponse } from "./api";
import { ListIcon } from "@/components/ui/icons";
import { UploadIcon } from "@/components/ui/icons";
import { DownloadIcon, ForkIcon } from "./icons";
import { clockRunning, headerDurationMs, headerStatus, inProgress } from "./header-status";
import { useNow } from "@/components/ui/use-now";
import { runLinkLabel } from "./run-label";
import { RunStateBadge } from "./run-state-badge";
import { CancelWork } from "./work-controls";

function whenLabel(ts: string): string {
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return "";
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" }) : d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/** The channel's recent runs, newest first, in a small menu. */
function RecentRuns({ threadId, runId, onImport }: { threadId: string; runId: string; onImport: () => void }) {
  const [open, setOpen] = useState(false);
  const me = useMe();
  const nameOf = useRunPersonLabel();
  const box = useRef<HTMLDivElement>(null);
  const runs = useQuery({ queryKey: queryKeys.threadRuns(threadId), queryFn: () => fetchThreadRuns(threadId), enabled: open, staleTime: 5_000 });
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    window.addEventListener("pointerdown", onDown);
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("pointerdown", onDown);
      window.removeEventListener("keydown", onKey);
    };
  }, [open]);
  const list: RunSummary[] = (runs.data ?? []).slice().reverse().slice(0, 12);
  return (
    <div ref={box} className="relative">
      <button
        type="button"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        aria-haspopup="true"
        className="inline-flex h-8 items-center gap-1 rounded-md px-2 text-[13px] font-medium text-fg-muted hover:bg-hover hover:text-fg"
        title="Recent runs in this channel"
      >
        <ListIcon size={15} />
        <span>Runs</span>
        <ChevronDownIcon size={13} />
      </button>
      {open && (
        <div className="absolute right-0 top-9 z-50 w-[min(340px,calc(100vw-16px))] animate-pop-in rounded-lg border border-line bg-surface py-1 shadow-pop">
          <p className="px-3 pb-1 pt-1.5 text-[11px] font-semibold uppercase tracking-wide text-fg-subtle">Recent runs in this channel</p>
          {runs.isPending && <p className="px-3 py-2 text-[13px] text-fg-muted">Loading…</p>}
          {runs.isError && <p className="px-3 py-2 text-[13px] text-danger">{runs.error.message}</p>}
          <ul aria-label="Recent runs">
            {list.map((r) => (
              <li key={r.run_id}>
                <Link
                  href={`/runs/${encodeURIComponent(r.run_id)}`}
                  onClick={() => setOpen(false)}
                  aria-current={r.run_id === runId ? "page" : undefined}
                  className={`flex items-center gap-2 px-3 py-1.5 text-[13px] hover:bg-hover ${r.run_id === runId ? "bg-accent-soft" : ""}`}
                >
                  <RunStateBadge state={r.status} label={runStatusLabel(r, me, nameOf)} />
                  <span className="shrink-0 font-mono text-[11.5px] tabular-nums text-fg-muted">#{r.run_number}</span>
                  <span className="min-w-0 flex-1 truncate text-fg">{r.title ?? "Untitled run"}</span>
                  {r.forked_from && <ForkIcon size={12} className="shrink-0 text-fg-subtle" aria-label="fork" />}
                  <span className="shrink-0 text-[11px] tabular-nums text-fg-subtle">{whenLabel(r.started_at)}</span>
                </Link>
              </li>
            ))}
          </ul>
          <Link href="/runs" onClick={() => setOpen(false)} className="mt-1 flex items-center gap-2 border-t border-line px-3 pb-1 pt-2 text-[13px] font-medium text-accent hover:bg-hover">
            All runs in every channel →
          </Link>
          {/* On a phone the header has no room for these. */}
          <div className="mt-1 border-t border-line pt-1 sm:hidden">
            <a href={exportUrl(runId)} download={`${runId}.jsonl`} className="flex items-center gap-2 px-3 py-1.5 text-[13px] text-fg hover:bg-hover">
              <DownloadIcon size={14} /> Export this run (JSON Lines)
            </a>
            <button
              type="button"
              onClick={() => {
                setOpen(false);
                onImport();
              }}
              className="flex w-full items-center gap-2 px-3 py-1.5 text-left text-[13px] text-fg hover:bg-hover"
            >
              <UploadIcon size={14} /> Import a run…
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** "Forked from <run> at seq N", "Forks: …", and for an imported copy what it is. */
function Lineage({ detail }: { detail: RunDetailResponse }) {
  const from = detail.run.forked_from;
  const forks = detail.run.forks ?? [];
  const source = useQuery({
    queryKey: ["run-detail", from?.run_id],
    queryFn: () => fetchRunDetail(from!.run_id),
    enabled: Boolean(from),
    staleTime: 60_000,
  });
  const imported = detail.run.imported === true;
  if (!from && !forks.length && !imported) return null;
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-x-4 gap-y-0.5 border-b border-line bg-sunken/60 px-3 py-1 text-[12px] text-fg-muted sm:px-4">
      {imported && (
        <p className="flex min-w-0 items-center gap-1.5" aria-label="Imported copy">
          <span className="shrink-0 rounded bg-warning/10 px-1 text-[10.5px] font-semibold text-warning">imported copy</span>
          <span className="min-w-0">Imported from a file, to replay and compare: it starts no work and decides nothing; each event names whom the file says sent it.</span>
        </p>
      )}
      {from && (
        <p className="flex min-w-0 items-center gap-1" aria-label="Forked from">
          <ForkIcon size={12} className="shrink-0 text-fg-subtle" />
          <span className="shrink-0">Forked from</span>
          <Link href={`/runs/${encodeURIComponent(from.run_id)}?at=${from.seq}`} className="min-w-0 truncate font-medium text-accent hover:underline" title={from.run_id}>
            {source.data ? runLinkLabel(source.data.run) : "the original run"}
          </Link>
          <span className="shrink-0">at event #{from.seq}</span>
          <span aria-hidden="true">·</span>
          <Link href={`/runs/${encodeURIComponent(detail.run.run_id)}/compare`} className="shrink-0 font-medium text-accent hover:underline">
            Compare with the original
          </Link>
        </p>
      )}
      {forks.length > 0 && (
        <div className="flex min-w-0 flex-wrap items-center gap-x-1.5" aria-label="Forks of this run">
          <span>
            {forks.length} fork{forks.length === 1 ? "" : "s"}:
          </span>
          {forks.map((f) => (
            <span key={f.run_id} className="inline-flex items-center gap-1">
              <Link href={`/runs/${encodeURIComponent(f.run_id)}`} className="font-medium text-accent hover:underline" title={f.run_id}>
                {runLinkLabel(f)}
                {!f.title && <span className="font-normal text-fg-muted"> (at #{f.at_seq})</span>}
              </Link>
              <Link href={`/runs/${encodeURIComponent(f.run_id)}/compare`} className="text-fg-muted underline-offset-2 hover:text-accent hover:underline" aria-label={`Compare fork ${runLinkLabel(f)} with this run`}>
                compare
              </Link>
            </span>
          ))}
        </div>
      )}
    </div>
  );
}

/** The header (see the file comment). */
export function RunPageHeader({
  runId,
  detail,
  head,
  onImport,
}: {
  runId: string;
  detail: RunDetailResponse | undefined;
  /** The run now (newest state). */
  head: RunGraphState | null;
  onImport: () => void;
}) {
  const threadId = detail?.run.thread_id ?? head?.thread_id ?? undefined;
  const thread = useThread(threadId);
  const channel = useThreadTitle(thread).label;
  const me = useMe();
  const nameOf = useRunPersonLabel();
  const title = detail?.run.title ?? "Run";
  const status = headerStatus(detail?.run, head);
  // The clock counts on while the run goes on (re-read every second), and stops at its end.
  const now = useNow(clockRunning(head));
  const ms = headerDurationMs(head, now);
  return (
    <>
      <PageHeader>
        <DrawerToggle />
        <nav aria-label="Breadcrumb" className="flex min-w-0 flex-1 items-center gap-1.5">
          {threadId && (
            <>
              <Link
                href={`/c/${encodeURIComponent(threadId)}`}
                className="flex shrink-0 items-center gap-0.5 rounded text-[13.5px] font-semibold text-fg-muted hover:text-fg max-sm:hidden"
              >
                {channel || "channel"}
              </Link>
              <span className="text-fg-subtle max-sm:hidden" aria-hidden="true">
                /
              </span>
            </>
          )}
          <h1 className="min-w-0 truncate text-[15px] font-bold" title={`${title} (${runId})`}>
            {title}
          </h1>
          {status && <RunStateBadge state={status.status} label={runStatusLabel(status, me, nameOf)} />}
          {ms !== null && <span className="shrink-0 text-[12px] tabular-nums text-fg-muted max-sm:hidden">{formatDuration(ms)}</span>}
        </nav>
        {status && inProgress(status.status) && detail && <CancelWork kind="run" id={runId} title={title} iconOnPhone />}
        {threadId && <RecentRuns threadId={threadId} runId={runId} onImport={onImport} />}
        <a
          href={exportUrl(runId)}
          download={`${runId}.jsonl`}
          className="inline-flex h-8 items-center gap-1 rounded-md px-2 text-[13px] font-medium text-fg-muted hover:bg-hover hover:text-fg max-sm:hidden"
          title="Download the run as JSON Lines, one ClutchMessage a line"
        >
          <DownloadIcon size={15} />
          <span className="max-sm:hidden">Export</span>
        </a>
        <button
          type="button"
          onClick={onImport}
          className="inline-flex h-8 items-center gap-1 rounded-md px-2 text-[13px] font-medium text-fg-muted hover:bg-hover hover:text-fg max-sm:hidden"
          title="Import a run from JSON Lines"
        >
          <UploadIcon size={15} />
          <span className="max-sm:hidden">Import</span>
        </button>
      </PageHeader>
      {detail && <Lineage detail={detail} />}
    </>
  );
}
