"use client";
/**
 * `WorkflowSteps`: the shape of a workflow run (docs/workflows.md) above its live task tree: the
 * workflow's name and version, then each step in order with its capability, the payload type it
 * expects, who took it (by its card's display name) and where it stands (from lib/fold/workflow.ts, at the replay's position).
 * A step with a task selects it in the graph's side panel. A failed workflow says why.
 */
import Link from "next/link";
import type { WorkflowProgress, StepStatus } from "@/lib/fold/workflow";
import { useRunNameOf } from "./use-run-names";
import { StatusBadge, type Tone } from "@/components/ui/chip";
import { ChevronRightIcon } from "@/components/ui/icons";

const STATUS: Record<StepStatus, { tone: Tone; word: string }> = {
  waiting: { tone: "neutral", word: "Waiting" },
  pending: { tone: "info", word: "Routing" },
  running: { tone: "accent", word: "Running" },
  succeeded: { tone: "success", word: "Done" },
  failed: { tone: "danger", word: "Failed" },
};

/** "skill:research, expects research.summary.v1", or for a step without a capability, who takes it. */
function stepTitle(s: { capability: string | null; payload_type: string | null }): string {
  if (!s.capability) return `an agent that produces ${s.payload_type}`;
  return `${s.capability}${s.payload_type ? `, expects ${s.payload_type}` : ""}`;
}

/** The strip (see the file comment); `onSelectTask` opens a step's task. */
export function WorkflowSteps({ progress, onSelectTask }: { progress: WorkflowProgress; onSelectTask: (task_id: string) => void }) {
  const nameOf = useRunNameOf();
  return (
    <section aria-label={`Workflow ${progress.name}`} className="border-b border-line bg-surface px-3 py-2 sm:px-4">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1.5">
        <Link href={`/workflows/${encodeURIComponent(progress.name)}`} className="mr-1 text-[12.5px] font-semibold text-fg-muted hover:text-fg hover:underline">
          Workflow <span className="font-mono text-fg">{progress.name}</span> v{progress.version}
        </Link>
        <ol className="flex min-w-0 flex-wrap items-center gap-1.5">
          {progress.steps.map((s, i) => {
            const status = STATUS[s.status];
            const body = (
              <>
                <span className="text-[11px] font-bold tabular-nums text-fg-subtle">{i + 1}</span>
                <span className="max-w-[12rem] shrink-0 truncate text-[12.5px] font-medium">{s.title}</span>
                <StatusBadge tone={status.tone} label={`Step ${i + 1}: ${status.word}`}>
                  {status.word}
                </StatusBadge>
                <span className="hidden truncate font-mono text-[11px] text-fg-muted xl:inline">
                  {s.capability ?? "any producer"}
                  {s.payload_type ? ` → ${s.payload_type}` : ""}
                </span>
                {s.agent && (
                  <span className="truncate text-[11.5px] text-agent" title={s.agent}>
                    {nameOf(s.agent)}
                  </span>
                )}
              </>
            );
            return (
              <li key={s.id} className="flex min-w-0 items-center gap-1.5">
                {i > 0 && <ChevronRightIcon size={12} className="shrink-0 text-fg-subtle" aria-hidden="true" />}
                {s.task_id ? (
                  <button
                    type="button"
                    onClick={() => onSelectTask(s.task_id!)}
                    title={stepTitle(s)}
                    className="flex min-w-0 max-w-[26rem] items-center gap-1.5 rounded-md border border-line bg-canvas px-2 py-1 hover:bg-hover"
                  >
                    {body}
                  </button>
                ) : (
                  <span title={stepTitle(s)} className="flex min-w-0 max-w-[26rem] items-center gap-1.5 rounded-md border border-dashed border-line px-2 py-1 text-fg-muted">
                    {body}
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      </div>
      {progress.failure && (
        <p role="status" className="mt-1.5 text-[12.5px] text-danger">
          {progress.failure}
        </p>
      )}
    </section>
  );
}
