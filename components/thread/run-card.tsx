"use client";
/**
 * `RunCard`: one live card per run in the channel, where the run starts (docs/channels.md). It
 * summarises the run and updates in place: its status in the words of docs/channels.md "Run
 * states" ("Waiting on you", "Cancelled by Lee"; run-card-model.ts) and title, the elapsed time
 * (ticking while it runs or waits), "2 of 3 tasks done" (tasks that succeeded) with a progress
 * bar, who is working on what right now, the
 * question to the people or the approval it waits on (with Answer / Review), and, once ended,
 * the final result or the error (who cancelled it, and why), and what its model calls cost
 * (tokens and, with the workspace's prices, money; docs/observability.md). "Thread" opens the run's events in
 * the side pane; "Open run" the run view (task graph and replay); "Cancel run" stops it, and
 * "Retry the run" starts its first task again once it failed, was cancelled or timed out.
 *
 * Data: RunSummary from `GET /api/threads/:id/runs`, folded on the server from the tasks and
 * approvals projections and kept live by components/live/live-sync.ts.
 */
import Link from "next/link";
import type { RunSummary } from "@/lib/api/types";
import { TASK_STATE_LABEL, type RunStatus } from "@/lib/fold/run-status";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { useNameOf } from "@/components/events/use-sender-name";
import { useThreadActions } from "@/components/events/thread-actions";
import { Markdown } from "@/components/markdown/markdown";
import { RunStateBadge } from "@/components/run/run-state-badge";
import { CancelWork, RetryTask } from "@/components/run/work-controls";
import { ActivityIcon, ClockIcon, CornerDownRightIcon, MessageIcon, ShieldIcon } from "@/components/ui/icons";
import { formatClock, useNow } from "@/components/ui/use-now";
import { formatDuration, formatFull } from "@/components/ui/time";
import { excerpt } from "@/lib/fold/questions";
import { Foldable } from "@/components/ui/foldable";
import { InlineAnswer } from "./inline-answer";
import { runCardModel } from "./run-card-model";
import { formatTokens, totalsOfRows, usageLine } from "@/lib/fold/usage";
import { usePrices } from "@/components/usage/use-prices";

const EDGE: Record<RunStatus, { bar: string; edge: string }> = {
  running: { bar: "bg-info", edge: "border-l-info" },
  waiting: { bar: "bg-warning", edge: "border-l-warning" },
  not_done: { bar: "bg-fg-muted", edge: "border-l-fg-muted" },
  succeeded: { bar: "bg-success", edge: "border-l-success" },
  failed: { bar: "bg-danger", edge: "border-l-danger" },
  cancelled: { bar: "bg-fg-muted", edge: "border-l-fg-muted" },
  timed_out: { bar: "bg-warning", edge: "border-l-warning" },
};

/** How a run's outcome is headed and framed: a person's cancel is not an error. */
const OUTCOME: Record<RunStatus, { label: string; box: string }> = {
  running: { label: "Result", box: "border-line bg-sunken/60" },
  waiting: { label: "Result", box: "border-line bg-sunken/60" },
  not_done: { label: "Not done", box: "border-line bg-sunken/60" },
  succeeded: { label: "Result", box: "border-line bg-sunken/60" },
  failed: { label: "Error", box: "border-danger/30 bg-danger/[0.05]" },
  cancelled: { label: "Cancelled", box: "border-line bg-sunken/60" },
  timed_out: { label: "Timed out", box: "border-warning/30 bg-warning/[0.06]" },
};

/** "0:07" ticking while the run is in progress (running or waiting); "4.8 s" once ended. */
function Elapsed({ run }: { run: RunSummary }) {
  const running = run.state === "running";
  const now = useNow(running);
  const start = Date.parse(run.started_at);
  const end = run.ended_at ? Date.parse(run.ended_at) : now;
  const ms = Math.max(0, end - start);
  return (
    <span
      className="inline-flex shrink-0 items-center gap-1 text-xs tabular-nums text-fg-muted"
      title={`Started ${formatFull(run.started_at)}${run.ended_at ? ` · ended ${formatFull(run.ended_at)}` : ""}`}
    >
      <ClockIcon size={12} aria-hidden="true" />
      <span aria-label={running ? `${formatClock(ms)} so far` : `Took ${formatDuration(ms)}`}>
        {running ? formatClock(ms) : formatDuration(ms)}
      </span>
    </span>
  );
}

/** "· 12.4k tokens · $0.42" once the run has called a model; the title says in and out, per model. */
function RunUsage({ run }: { run: RunSummary }) {
  const prices = usePrices();
  const rows = run.usage ?? [];
  const totals = totalsOfRows(rows, prices);
  if (!totals.calls) return null;
  const detail = rows.map((r) => `${r.model}: ${r.calls} ${r.calls === 1 ? "call" : "calls"}, ${formatTokens(r.input_tokens)} in, ${formatTokens(r.output_tokens)} out`).join("\n");
  return (
    <span className="text-xs tabular-nums text-fg-muted" data-run-usage title={detail}>
      · {usageLine(totals, prices.currency)}
    </span>
  );
}

/** The card of one run (see the file comment). `inPane`: shown at the top of its own thread, whose header has the links. */
export function RunCard({ run, inPane = false }: { run: RunSummary; inPane?: boolean }) {
  const { jumpTo, openThread } = useThreadActions();
  const me = useMe();
  const nameOf = useNameOf();
  const personLabel = usePersonLabel();
  const status: RunStatus = run.status;
  const s = EDGE[status] ?? EDGE.running;
  const { label, progress, working } = runCardModel(run, me, personLabel);
  const title = run.title ?? "Untitled run";
  const running = run.state === "running";
  const question = running ? run.questions[run.questions.length - 1] : undefined;
  const approval = running ? run.approvals[0] : undefined;
  return (
    <article
      aria-label={`Run: ${title}`}
      data-run-id={run.run_id}
      className={`${inPane ? "" : "mx-4 mb-1 mt-2 sm:mx-5"} rounded-lg border border-l-[3px] border-line bg-surface px-3 py-2 shadow-sm ${s.edge}`}
    >
      <div className="flex min-w-0 items-center gap-2">
        <ActivityIcon size={14} className="shrink-0 text-fg-muted" />
        <RunStateBadge state={status} label={label} />
        {run.run_number > 0 && <span className="shrink-0 font-mono text-[11.5px] font-semibold tabular-nums text-fg-muted">#{run.run_number}</span>}
        <h3 className="min-w-0 flex-1 truncate text-[13.5px] font-semibold text-fg" title={title}>
          {title}
        </h3>
        {run.imported && (
          <span className="shrink-0 rounded bg-warning/10 px-1 text-[10.5px] font-semibold text-warning" title="Imported from a file as a copy: shown to replay and compare, it starts no work and decides nothing">
            imported copy
          </span>
        )}
        <Elapsed run={run} />
      </div>
      <div className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1">
        <div
          role="progressbar"
          aria-label="Tasks done"
          aria-valuemin={0}
          aria-valuemax={progress.total}
          aria-valuenow={progress.done}
          aria-valuetext={`${label} · ${progress.text}`}
          className="h-1.5 w-24 shrink-0 overflow-hidden rounded-full bg-fg-muted/15 sm:w-32"
        >
          <div className={`h-full rounded-full transition-[width] duration-500 ${s.bar}`} style={{ width: `${Math.round(progress.fraction * 100)}%` }} />
        </div>
        <span className="text-xs tabular-nums text-fg-muted">{progress.text}</span>
        <RunUsage run={run} />
      </div>
      {running && working.length > 0 && (
        <ul aria-label="Working now" className="mt-1.5 space-y-0.5">
          {working.slice(0, 4).map((t) => (
            <li key={t.task_id} className="flex min-w-0 items-baseline gap-1.5 text-xs">
              <span className="shrink-0 font-semibold text-fg" title={t.assignee}>
                {nameOf(t.assignee)}
              </span>
              <span className="shrink-0 text-fg-muted">{t.label}</span>
              {t.title && <span className="min-w-0 truncate text-fg-muted">· {t.title}</span>}
            </li>
          ))}
          {working.length > 4 && <li className="text-xs text-fg-muted">and {working.length - 4} more</li>}
        </ul>
      )}
      {question && (
        <div className="mt-2 min-w-0 rounded-md border border-warning/30 bg-warning/[0.07] px-2 py-1.5 text-xs">
          <p className="min-w-0">
            <span className="font-semibold text-fg">{nameOf(question.from)} asks:</span>{" "}
            <button type="button" className="text-left text-fg hover:underline" onClick={() => jumpTo(question.id) || openThread({ run_id: run.run_id })}>
              {excerpt(question.text, 140)}
            </button>
          </p>
          <InlineAnswer threadId={run.thread_id} questionId={question.id} asker={nameOf(question.from)} />
        </div>
      )}
      {approval && (
        <div className="mt-2 flex min-w-0 flex-wrap items-center gap-2 rounded-md border border-warning/30 bg-warning/[0.07] px-2 py-1.5 text-xs">
          <ShieldIcon size={13} className="shrink-0 text-warning" />
          <span className="min-w-0 flex-1 text-fg">
            <span className="font-semibold">Waiting for approval:</span> {approval.summary}
          </span>
          <button
            type="button"
            onClick={() => {
              if (!jumpTo(approval.request_id)) window.location.assign(`/approvals?approval=${encodeURIComponent(approval.approval_id)}`);
            }}
            className="inline-flex h-7 shrink-0 items-center rounded-md border border-line-strong bg-surface px-2.5 font-semibold text-fg hover:bg-hover"
          >
            Review
          </button>
        </div>
      )}
      {run.outcome && (
        <div className={`mt-2 rounded-md border px-2.5 py-1.5 ${(run.outcome.kind === "result" ? OUTCOME.succeeded : OUTCOME[status]).box}`}>
          <p className="text-[11px] font-semibold text-fg-muted">
            <span className="uppercase tracking-wide">{(run.outcome.kind === "result" ? OUTCOME.succeeded : OUTCOME[status]).label}</span>
            {run.outcome.agent_id && run.state !== "cancelled" ? ` · ${nameOf(run.outcome.agent_id)}` : ""}
          </p>
          <Foldable lines={6}>
            <div className="text-[13px] text-fg">
              <Markdown text={run.outcome.text} />
            </div>
          </Foldable>
          {run.outcome.kind === "error" && !inPane && (
            <div className="mt-1.5">
              <RetryTask taskId={run.outcome.task_id} label="Retry the run" />
            </div>
          )}
        </div>
      )}
      {run.follow_ups && run.follow_ups.length > 0 && <FollowUps run={run} />}
      {!inPane && (
        <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
          <button
            type="button"
            onClick={() => openThread({ run_id: run.run_id })}
            className="inline-flex items-center gap-1 rounded font-semibold text-accent hover:underline"
            aria-label={`Open the thread of ${title}: ${run.event_count} events`}
          >
            <MessageIcon size={12} aria-hidden="true" />
            Thread · {run.event_count} {run.event_count === 1 ? "event" : "events"}
          </button>
          <Link
            href={`/runs/${encodeURIComponent(run.run_id)}`}
            className="font-medium text-accent hover:underline"
            aria-label={`Open run ${title}: task graph and replay`}
          >
            Open run
          </Link>
          {running && <CancelWork kind="run" id={run.run_id} title={title} className="ml-auto h-6 px-1.5 text-xs" />}
        </div>
      )}
    </article>
  );
}

/**
 * The follow-ups asked after the run's result (docs/channels.md "Follow-ups"), each a line under
 * the original result: what was asked, how it stands, and the first line of its answer; a click
 * opens the run's thread, where the conversation is.
 */
function FollowUps({ run }: { run: RunSummary }) {
  const { openThread } = useThreadActions();
  const follow = run.follow_ups ?? [];
  return (
    <ul aria-label="Follow-ups" className="mt-1.5 space-y-0.5 text-[12.5px]">
      {follow.map((f) => (
        <li key={f.task_id} className="flex min-w-0 items-baseline gap-1.5">
          <CornerDownRightIcon size={12} className="shrink-0 translate-y-0.5 text-fg-subtle" aria-hidden="true" />
          <button type="button" onClick={() => openThread({ run_id: run.run_id })} className="min-w-0 truncate text-left font-medium text-fg hover:underline">
            {f.title ?? "Follow-up"}
          </button>
          <span className="shrink-0 text-fg-muted">· {TASK_STATE_LABEL[f.state]}</span>
          {f.outcome && <span className="min-w-0 truncate text-fg-muted">· {excerpt(f.outcome.text.replace(/[#*_`|>-]+/g, " "), 90)}</span>}
        </li>
      ))}
    </ul>
  );
}
