/**
 * A run's status as people read it (docs/channels.md "Run states"), one fold for the server's
 * RunSummary and the browser. Pure.
 *
 *   a root task not ended, and the run waits on a person     → waiting (who: `waiting_on`)
 *   a root task not ended                                     → running
 *   ended, and every failed root was declined (CANNOT_ANSWER) → not_done
 *   otherwise the run state (lib/fold/run-state.ts): succeeded, failed, cancelled, timed_out
 *
 * A run waits on a person while it has a question to people without an answer or an approval
 * without a decision; agents at work beside it do not change that: what the run needs next is
 * the person.
 */
import { mayDecide, type Decider } from "../approvers";
import type { RunState } from "./run-state";

export const RUN_STATUSES = ["running", "waiting", "succeeded", "not_done", "failed", "cancelled", "timed_out"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The error code of a task its agent declined (server/agents/contract.ts `decline`). */
export const DECLINED_CODE = "CANNOT_ANSWER";

/** Whom a run waits on: the people a question is put to, or who may decide an approval. */
export type WaitingOn =
  | { kind: "answer"; message_id: string; from: string; to: string[] }
  | { kind: "approval"; approval_id: string; agent_id: string; approvers: "any" | string[]; requesters: string[]; forbid_self_approval: boolean };

/** The status of a run in `state` (its root tasks' fold) that waits on `waiting_on`; `rootErrors` are its failed roots' error codes. */
export function runStatusOf(state: RunState, waiting_on: readonly WaitingOn[], rootErrors: readonly (string | null)[] = []): RunStatus {
  if (state === "running") return waiting_on.length ? "waiting" : "running";
  if (state === "failed" && rootErrors.length > 0 && rootErrors.every((c) => c === DECLINED_CODE)) return "not_done";
  return state;
}

/** True when `w` waits on `person`: a question to everyone in the channel or to them, or an approval they may decide. */
export function waitsOnPerson(w: WaitingOn, person: Decider): boolean {
  if (w.kind === "answer") return w.to.some((t) => t === "user" || t === person.agent_id);
  return mayDecide(w.approvers, person, { requesters: w.requesters, forbidSelf: w.forbid_self_approval });
}

/** True when the run waits on `person` (one of `waiting_on` does). */
export function waitsOnYou(run: { waiting_on: readonly WaitingOn[] }, person: Decider | null): boolean {
  return person !== null && run.waiting_on.some((w) => waitsOnPerson(w, person));
}

/** "Waiting on you", "Waiting on Dana" or "Waiting on an admin": who the run needs next, for `person` (null: signed out). */
export function waitingLabel(run: { waiting_on: readonly WaitingOn[] }, person: Decider | null, nameOf: (id: string) => string = defaultName): string {
  if (waitsOnYou(run, person)) return "Waiting on you";
  const names = new Set<string>();
  for (const w of run.waiting_on) {
    if (w.kind === "answer") for (const t of w.to) names.add(t === "user" ? "the channel" : nameOf(t));
    else if (w.approvers === "any") names.add("an approver");
    else for (const a of w.approvers) names.add(a.startsWith("role:") ? `an ${a.slice(5)}`.replace(/^an ([^aeiou])/, "a $1") : nameOf(a));
  }
  return names.size ? `Waiting on ${[...names].join(", ")}` : "Waiting";
}

/** A person's or agent's id as a label when no name is known: agents by their handle, people as "a teammate". */
function defaultName(id: string): string {
  return id.startsWith("user:") ? "a teammate" : id.replace(/^agent:/, "");
}

/** "2 running · 1 waiting on you · 1 waiting": the runs still going, for `person`; empty when none. */
export function runsInProgressLabel(runs: readonly { status: RunStatus; waiting_on: readonly WaitingOn[] }[], person: Decider | null): string {
  const running = runs.filter((r) => r.status === "running").length;
  const waiting = runs.filter((r) => r.status === "waiting");
  const onYou = waiting.filter((r) => waitsOnYou(r, person)).length;
  const parts = [running ? `${running} running` : "", onYou ? `${onYou} waiting on you` : "", waiting.length - onYou ? `${waiting.length - onYou} waiting on others` : ""];
  return parts.filter(Boolean).join(" · ");
}

/** How each status is named in the UI. */
export const RUN_STATUS_LABEL: Record<RunStatus, string> = {
  running: "Running",
  waiting: "Waiting",
  succeeded: "Succeeded",
  not_done: "Not done",
  failed: "Failed",
  cancelled: "Cancelled",
  timed_out: "Timed out",
};
