"use client";
/**
 * `RunBanner`: a slim bar at the top of the channel while a run is in progress (issue 3): "1 run
 * in progress · pm-1 is waiting for your answer". Clicking it scrolls to the open question to
 * the person, or, when there is none, to the newest running run's header.
 */
import type { RunSummary } from "@/lib/api/types";
import type { QuestionView } from "@/lib/fold/questions";
import { displayName } from "@/components/events/participant";
import { ChevronRightIcon } from "@/components/ui/icons";

/** The bar (nothing when no run is running). */
export function RunBanner({
  runs,
  question,
  onJumpToQuestion,
  onJumpToRun,
}: {
  runs: readonly RunSummary[];
  /** The newest open question to people, if any. */
  question: QuestionView | null;
  onJumpToQuestion: (id: string) => void;
  onJumpToRun: (runId: string) => void;
}) {
  const running = runs.filter((r) => r.state === "running");
  if (running.length === 0 && !question) return null;
  const newest = running[running.length - 1];
  const count = running.length;
  const waiting = Boolean(question);
  return (
    <div
      role="status"
      aria-label="Runs in progress"
      className={`shrink-0 border-b px-2 sm:px-4 ${waiting ? "border-warning/25 bg-warning/10" : "border-info/20 bg-info/8"}`}
    >
      <button
        type="button"
        onClick={() => (question ? onJumpToQuestion(question.id) : newest && onJumpToRun(newest.run_id))}
        className={`flex h-8 w-full min-w-0 items-center gap-2 rounded text-left text-xs font-medium ${waiting ? "text-warning" : "text-info"}`}
      >
        <span className="relative flex h-2 w-2 shrink-0" aria-hidden="true">
          <span className="absolute inline-flex h-full w-full animate-ping rounded-full bg-current opacity-50" />
          <span className="relative inline-flex h-2 w-2 rounded-full bg-current" />
        </span>
        <span className="min-w-0 truncate">
          {count > 0 && (
            <span className={question ? "max-sm:hidden" : ""}>
              {count} run{count === 1 ? "" : "s"} in progress
              {question && " · "}
            </span>
          )}
          {question && <span className="font-semibold">{displayName(question.from)} is waiting for your answer</span>}
          {!question && newest?.title && <span className="font-normal opacity-80"> · {newest.title}</span>}
        </span>
        <span className="ml-auto inline-flex shrink-0 items-center gap-1 font-semibold">
          {question ? "Answer" : "Show"}
          <ChevronRightIcon size={12} />
        </span>
      </button>
    </div>
  );
}
