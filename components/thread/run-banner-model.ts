/**
 * What the run banner says (components/thread/run-banner.tsx; docs/channels.md "Run states"),
 * from the channel's RunSummaries for the person reading. Pure.
 *
 * - `progress`: the runs in progress, "1 running · 1 waiting on you" (lib/fold/run-status.ts
 *   `runsInProgressLabel`).
 * - `lead`: the question or approval the banner points at, with whom it waits on in the words
 *   of the run card: "Project Manager is waiting on you", "… is waiting on an admin" (the
 *   RunSummary.waiting_on entry of that question or approval); "… is waiting on an answer" or
 *   "… on an approval" while the runs do not list it yet.
 * - `action`: Answer (a question), Review (an approval), else Show (the newest running run).
 */
import type { Decider } from "@/lib/approvers";
import type { RunSummary } from "@/lib/api/types";
import { runsInProgressLabel, TASK_STATE_LABEL, waitingLabel, type WaitingOn } from "@/lib/fold/run-status";

/** A question or an approval the banner points at: its message or approval id, and the agent waiting, by name. */
export interface BannerTarget {
  id: string;
  agent: string;
}

export interface RunBannerModel {
  progress: string;
  lead: string | null;
  action: "Answer" | "Review" | "Show";
}

/** "Waiting on you" as the second half of a sentence: "is waiting on you". */
function sentence(agent: string, label: string): string {
  return `${agent} is ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
}

/** The banner's words for `runs` (the channel's), pointing at `question`, else `approval`, for `person`. */
export function runBannerModel(
  runs: readonly RunSummary[],
  question: BannerTarget | null,
  approval: BannerTarget | null,
  person: Decider | null,
  nameOf: (id: string) => string,
): RunBannerModel {
  const progress = runsInProgressLabel(
    runs.filter((r) => r.state === "running"),
    person,
  );
  const waits = runs.flatMap((r) => r.waiting_on);
  const lead = (target: BannerTarget, matches: (w: WaitingOn) => boolean, fallback: string) => {
    const on = waits.filter(matches);
    return sentence(target.agent, on.length ? waitingLabel({ waiting_on: on }, person, nameOf) : fallback);
  };
  if (question) return { progress, lead: lead(question, (w) => w.kind === "answer" && w.message_id === question.id, TASK_STATE_LABEL.waiting_input), action: "Answer" };
  if (approval) return { progress, lead: lead(approval, (w) => w.kind === "approval" && w.approval_id === approval.id, TASK_STATE_LABEL.approval_required), action: "Review" };
  return { progress, lead: null, action: "Show" };
}
