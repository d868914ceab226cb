"use client";
/**
 * `RunBanner`: a slim bar at the top of the channel while a run is in progress: "1 waiting on
 * you · Project Manager is waiting on you", in the run card's words (run-banner-model.ts).
 * Clicking it scrolls to the open question to people, else to the oldest approval waiting for a
 * decision ("Analyst is waiting on an admin"; agents by their card's display name), else to the
 * newest running run's header.
 */
import type { RunSummary } from "@/lib/api/types";
import type { Participant } from "@/lib/protocol";
import { useNameOf } from "@/components/events/use-sender-name";
import { ChevronRightIcon } from "@/components/ui/icons";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { runBannerModel } from "./run-banner-model";

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
  const personLabel = usePersonLabel();
  const running = runs.filter((r) => r.state === "running");
  if (running.length === 0 && !question && !approval) return null;
  const model = runBannerModel(
    runs,
    question && { id: question.id, agent: nameOf(question.from) },
    approval && { id: approval.id, agent: nameOf(approval.agent) },
    me,
    personLabel,
  );
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
          {count > 0 && model.progress && (
            <span className={waiting ? "max-sm:hidden" : ""}>
              {model.progress}
              {waiting && " · "}
            </span>
          )}
          {model.lead && <span className="font-semibold">{model.lead}</span>}
          {!waiting && newest?.title && <span className="font-normal"> · {newest.title}</span>}
        </span>
        <span className="ml-auto inline-flex shrink-0 items-center gap-1 font-semibold">
          {model.action}
          <ChevronRightIcon size={12} />
        </span>
      </button>
    </div>
  );
}
