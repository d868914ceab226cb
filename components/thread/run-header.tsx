"use client";
/**
 * `RunHeader`: a compact card where a run starts in the channel: the run's state badge, its title,
 * the elapsed time (ticking while it runs, the total once it ended), "2 of 3 tasks done" with a
 * small progress bar, and a link to the question it waits on when it waits for the person, or to
 * the approval card when a step waits for a person's approval.
 * Data: RunSummary from `GET /api/threads/:id/runs`, kept live by components/live/live-sync.ts.
 */
import Link from "next/link";
import type { RunSummary } from "@/lib/api/types";
import type { RunState } from "@/lib/fold/run-state";
import type { QuestionView } from "@/lib/fold/questions";
import { bareId as bare } from "@/components/events/participant";
import type { ApprovalView } from "@/lib/fold/approvals";
import { displayName } from "@/components/events/participant";
import { useThreadActions } from "@/components/events/thread-actions";
import { StatusBadge, type Tone } from "@/components/ui/chip";
import { ActivityIcon, ClockIcon } from "@/components/ui/icons";
import { formatClock, useNow } from "@/components/ui/use-now";
import { formatDuration, formatFull } from "@/components/ui/time";

const STATE: Record<RunState, { tone: Tone; label: string; bar: string; edge: string }> = {
  running: { tone: "info", label: "Running", bar: "bg-info", edge: "border-l-info" },
  succeeded: { tone: "success", label: "Succeeded", bar: "bg-success", edge: "border-l-success" },
  failed: { tone: "danger", label: "Failed", bar: "bg-danger", edge: "border-l-danger" },
  cancelled: { tone: "neutral", label: "Cancelled", bar: "bg-fg-subtle", edge: "border-l-fg-subtle" },
  timed_out: { tone: "warning", label: "Timed out", bar: "bg-warning", edge: "border-l-warning" },
};

/** The run's state as a badge, labelled "Run state: …". */
export function RunStateBadge({ state }: { state: RunState }) {
  const s = STATE[state] ?? { tone: "neutral" as Tone, label: state };
  return (
    <StatusBadge tone={s.tone} label={`Run state: ${s.label}`}>
      <span className={`h-1.5 w-1.5 rounded-full bg-current ${state === "running" ? "animate-pulse" : ""}`} aria-hidden="true" />
      {s.label}
    </StatusBadge>
  );
}

/** "0:07" ticking while running; "4.8 s" once ended. */
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
      <ClockIcon size={12} className="text-fg-subtle" aria-hidden="true" />
      <span aria-label={running ? `Running for ${formatClock(ms)}` : `Took ${formatDuration(ms)}`}>
        {running ? formatClock(ms) : formatDuration(ms)}
      </span>
    </span>
  );
}

/** The card at the start of a run (see the file comment). */
export function RunHeader({ run, question, approval = null }: { run: RunSummary; question: QuestionView | null; approval?: ApprovalView | null }) {
  const { jumpTo } = useThreadActions();
  const s = STATE[run.state] ?? STATE.running;
  const total = Math.max(run.task_total, run.task_done);
  const pct = total ? Math.round((run.task_done / total) * 100) : 0;
  const title = run.title ?? "Untitled run";
  return (
    <section
      aria-label={`Run: ${title}`}
      data-run-id={run.run_id}
      className={`mx-4 mb-1 mt-3 rounded-lg border border-l-[3px] border-line bg-sunken/70 px-3 py-2 sm:mx-5 ${s.edge}`}
    >
      <div className="flex min-w-0 items-center gap-2">
        <ActivityIcon size={14} className="shrink-0 text-fg-subtle" />
        <span className="shrink-0 text-[11px] font-semibold uppercase tracking-wide text-fg-muted max-sm:sr-only">Run</span>
        <RunStateBadge state={run.state} />
        <h3 className="min-w-0 flex-1 truncate text-[13.5px] font-semibold text-fg" title={title}>
          {title}
        </h3>
        <Elapsed run={run} />
        <Link
          href={`/runs/${encodeURIComponent(run.run_id)}`}
          className="shrink-0 text-xs font-medium text-accent hover:underline"
          aria-label={`Open run ${title}: task graph and replay`}
        >
          Open run ↗
        </Link>
      </div>
      <div className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1">
        <div
          role="progressbar"
          aria-label="Tasks done"
          aria-valuemin={0}
          aria-valuemax={total}
          aria-valuenow={run.task_done}
          aria-valuetext={`${run.task_done} of ${total} tasks done`}
          className="h-1.5 w-24 shrink-0 overflow-hidden rounded-full bg-fg-muted/15 sm:w-32"
        >
          <div className={`h-full rounded-full transition-[width] duration-500 ${s.bar}`} style={{ width: `${pct}%` }} />
        </div>
        <span className="text-xs tabular-nums text-fg-muted">
          {run.task_done} of {total} {total === 1 ? "task" : "tasks"} done
        </span>
        {question && run.state === "running" && (
          <button
            type="button"
            onClick={() => jumpTo(question.id)}
            className="inline-flex items-center gap-1 rounded text-xs font-semibold text-warning hover:underline"
          >
            <span aria-hidden="true">·</span> {displayName(question.from)} is waiting for your answer
          </button>
        )}
        {approval && run.state === "running" && (
          <button
            type="button"
            onClick={() => jumpTo(approval.request.id)}
            className="inline-flex items-center gap-1 rounded text-xs font-semibold text-warning hover:underline"
          >
            <span aria-hidden="true">·</span> {bare(approval.payload.subject.agent)} is waiting for approval
          </button>
        )}
      </div>
    </section>
  );
}
