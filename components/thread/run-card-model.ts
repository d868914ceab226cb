/**
 * What a run card says (components/thread/run-card.tsx; docs/channels.md "Run states"), from
 * the run's RunSummary for the person reading it. Pure.
 *
 * - `label`: the run's status in the words the run view and /runs use: "Running", "Waiting on
 *   you", "Waiting on an admin", "Succeeded", "Not done", "Failed", "Cancelled by Lee", "Timed out".
 * - `progress`: the tasks that succeeded of all ("0 of 1 task done"), the bar at that fraction: a
 *   cancelled, failed or declined run never shows a full bar.
 * - `working`: who works on what right now, each task's state in the same words ("Waiting on
 *   you" for the task whose question waits on you).
 */
import type { Decider } from "@/lib/approvers";
import type { RunSummary } from "@/lib/api/types";
import { progressOf, runStatusLabel, taskStatusLabel, type Progress } from "@/lib/fold/run-status";

/** One task in hand: its agent, title and state in people's words. */
export interface WorkingLine {
  task_id: string;
  assignee: string;
  title: string | null;
  label: string;
}

export interface RunCardModel {
  label: string;
  progress: Progress;
  working: WorkingLine[];
}

/** The card's words for `run`, read by `person` (null: signed out), ids named by `nameOf`. */
export function runCardModel(run: RunSummary, person: Decider | null, nameOf: (id: string) => string): RunCardModel {
  return {
    label: runStatusLabel(run, person, nameOf),
    progress: progressOf(run.task_succeeded, run.task_total),
    working: run.active.map((t) => ({
      task_id: t.task_id,
      assignee: t.assignee,
      title: t.title,
      label: taskStatusLabel(
        { state: t.state, error: null },
        run.waiting_on.filter((w) => w.task_id === t.task_id),
        person,
        nameOf,
      ),
    })),
  };
}
