"use client";
/**
 * `RunBanner`: a slim bar at the top of the channel while a run is in progress: "1 run in
 * progress · PM Agent is waiting for your answer". Clicking it scrolls to the open question to the
 * person, else to the oldest approval waiting for a decision ("Analyst is waiting for
 * approval"; agents by their card's display name), else to the newest running run's header.
 */
import type { RunSummary } from "@/lib/api/types";
import type { Participant } from "@/lib/protocol";
import { useNameOf } from "@/components/events/use-sender-name";
import { ChevronRightIcon } from "@/components/ui/icons";
import { runsInProgressLabel } from "@/lib/fold/run-status";
import { useMe } from "@/components/identity/me";

/** The approval the banner points at: its id, the agent waiting, and its request's message id when loaded. */
export interface BannerApproval {
  id: string;
  agent: string;
  messageId?: string;
}

/** The bar (nothing when no run is running). */
export function RunBanner({
  runs,
  question,
  approval = null,
  onJumpToQuestion,
  onJumpToApproval,
  onJumpToRun,
}: {
  runs: readonly RunSummary[];
  /** The newest open question to people, if any (server state: RunSummary.questions). */
  question: { id: string; from: Participant } | null;
  /** The oldest approval in the channel still waiting for a decision, if any. */
  approval?: BannerApproval | null;
  onJumpToQuestion: (id: string) => void;
  onJumpToApproval?: (approval: BannerApproval) => void;
  onJumpToRun: (runId: string) => void;
}) {
  const me = useMe();
  const nameOf = useNameOf();
  const running = runs.filter((r) => r.state === "running");
  if (running.length === 0 && !question && !approval) return null;
  const inProgress = runsInProgressLabel(running, me);
  const newest = running[running.length - 1];
  const count = running.length;
  const waiting = Boolean(question || approval);
  return (
    <div
      role="status"
      aria-label="Runs in progress"
      className={`shrink-0 border-b px-2 sm:px-4 ${waiting ? "border-warning/25 bg-warning/10" : "border-info/20 bg-info/8"}`}
    >
      <button
        type="button"
        onClick={() => {
          if (question) onJumpToQuestion(question.id);
          else if (approval) onJumpToApproval?.(approval);
          else if (newest) onJumpToRun(newest.run_id);
        }}
        className={`flex h-8 w-full min-w-0 items-center gap-2 rounded text-left text-xs font-medium ${waiting ? "text-warning" : "text-info"}`}
      >
        <span className="relative flex h-2 w-2 shrink-0" aria-hidden="true">
          <span className="absolute inline-flex h-full w-full animate-ping rounded-full bg-current opacity-50" />
          <span className="relative inline-flex h-2 w-2 rounded-full bg-current" />
        </span>
        <span className="min-w-0 truncate">
          {count > 0 && inProgress && (
            <span className={waiting ? "max-sm:hidden" : ""}>
              {inProgress}
              {waiting && " · "}
            </span>
          )}
          {question ? (
            <span className="font-semibold">{nameOf(question.from)} is waiting for your answer</span>
          ) : approval ? (
            <span className="font-semibold">{nameOf(approval.agent)} is waiting for approval</span>
          ) : null}
          {!waiting && newest?.title && <span className="font-normal"> · {newest.title}</span>}
        </span>
        <span className="ml-auto inline-flex shrink-0 items-center gap-1 font-semibold">
          {question ? "Answer" : approval ? "Review" : "Show"}
          <ChevronRightIcon size={12} />
        </span>
      </button>
    </div>
  );
}
