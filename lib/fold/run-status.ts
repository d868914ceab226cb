/**
 * A run's status as people read it (docs/channels.md "Run states"), one fold for the server's
 * RunSummary and the browser (the run view live and at any replay position), and the words for
 * it and for a task's state. Pure.
 *
 * Status (`runStatusFacts`, from the run's root tasks, oldest first, and whom it waits on):
 *
 *   a root task not ended, and the run waits on a person     → waiting (who: `waiting_on`)
 *   a root task not ended                                     → running
 *   ended, and every failed root was declined (CANNOT_ANSWER) → not_done
 *   otherwise the run state (lib/fold/run-state.ts): succeeded, failed, cancelled, timed_out
 *
 * Whom a run waits on (`waitingOnOf`): the questions to people of its tasks that have no answer
 * (TaskView.open_questions of tasks not ended, lib/fold/task-state.ts), oldest task first, then
 * its approvals without a decision (lib/fold/approvals.ts state `pending`), oldest first. Agents
 * at work beside them do not change that: what the run needs next is the person. A task waits
 * on what its own open questions (to people or agents) and approvals name (`taskWaitingOn`).
 *
 * Words (`runStatusLabel`, `taskStatusLabel`), for the person reading (`Decider`, null when
 * signed out) and a way to name ids (`nameOf`):
 *
 *   Running · Waiting on you · Waiting on Dana · Waiting on an admin · Succeeded · Not done ·
 *   Failed · Cancelled by Lee · Timed out; a task may also be Pending.
 *
 * Progress (`progressOf`): the tasks that succeeded of all the run's tasks, "0 of 1 task done";
 * a failed, declined, cancelled or timed-out task is not done.
 */
import { mayDecide, requestersOf, type Decider } from "../approvers";
import { runStateOf, type RunState } from "./run-state";
import { TERMINAL_STATES, type OpenQuestion, type TaskState, type TaskView } from "./task-state";

export const RUN_STATUSES = ["running", "waiting", "succeeded", "not_done", "failed", "cancelled", "timed_out"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The error code of a task its agent declined (server/agents/contract.ts `decline`). */
export const DECLINED_CODE = "CANNOT_ANSWER";

/**
 * Whom a run (or a task) waits on: the people a question is put to, or who may decide an
 * approval; `task_id` is the task that waits.
 */
export type WaitingOn =
  | { kind: "answer"; task_id: string; message_id: string; from: string; to: string[] }
  | { kind: "approval"; task_id: string; approval_id: string; agent_id: string; approvers: "any" | string[]; requesters: string[]; forbid_self_approval: boolean };

/** Who cancelled a run or a task: the id its task.cancel names, and the display name it carried (null when none). */
export interface Canceller {
  id: string;
  name: string | null;
}

/** What a run's status is made of: RunSummary carries these, and so does the run view's fold at any position. */
export interface RunStatusFacts {
  status: RunStatus;
  waiting_on: readonly WaitingOn[];
  /** Who cancelled it, when its status is `cancelled` (else null). */
  cancelled_by: Canceller | null;
}

/** A task as the status folds read it. */
export type TaskFacts = Pick<TaskView, "task_id" | "state" | "error" | "open_questions">;

/**
 * An approval as the status folds read it: its id, task and agent, who may decide it now (an
 * escalation's approvers), its state, and its request's payload (who asked for the work).
 */
export interface ApprovalFacts {
  approval_id: string;
  task_id: string;
  agent_id: string;
  approvers: "any" | readonly string[];
  state: string;
  request: { requester?: unknown; requesters?: unknown; forbid_self_approval?: unknown } | undefined;
}

/** People recipients of a question: `user` (everyone in the channel) or one person (`user:<id>`). */
export function isPeopleId(id: string): boolean {
  return id === "user" || id.startsWith("user:");
}

function answerWait(task_id: string, q: OpenQuestion, to: string[]): WaitingOn {
  return { kind: "answer", task_id, message_id: q.id, from: q.from, to };
}

function approvalWait(a: ApprovalFacts): WaitingOn {
  return {
    kind: "approval",
    task_id: a.task_id,
    approval_id: a.approval_id,
    agent_id: a.agent_id,
    approvers: a.approvers === "any" ? "any" : [...a.approvers],
    requesters: requestersOf(a.request),
    forbid_self_approval: a.request?.forbid_self_approval === true,
  };
}

/**
 * Whom a run waits on (RunSummary.waiting_on), from its tasks (oldest first) and its approvals
 * (oldest first): questions to people without an answer, then approvals without a decision.
 */
export function waitingOnOf(tasks: Iterable<TaskFacts>, approvals: Iterable<ApprovalFacts>): WaitingOn[] {
  const out: WaitingOn[] = [];
  for (const t of tasks) {
    if (TERMINAL_STATES.has(t.state)) continue;
    for (const q of t.open_questions) {
      const people = q.to.filter(isPeopleId);
      if (people.length) out.push(answerWait(t.task_id, q, people));
    }
  }
  for (const a of approvals) if (a.state === "pending") out.push(approvalWait(a));
  return out;
}

/**
 * Whom one task waits on: its open questions (to people or agents), then the approvals it waits
 * for among `waits` (its run's, e.g. RunSummary.waiting_on or `waitingOnOf` of its approvals).
 */
export function taskWaitingOn(task: TaskFacts & Pick<TaskView, "open_approvals">, waits: readonly WaitingOn[]): WaitingOn[] {
  if (TERMINAL_STATES.has(task.state)) return [];
  const out = task.open_questions.map((q) => answerWait(task.task_id, q, q.to));
  const held = new Set(task.open_approvals.map((a) => a.id));
  for (const w of waits) if (w.kind === "approval" && held.has(w.approval_id)) out.push(w);
  return out;
}

/** The `code` of a task's error, or null. */
function errorCode(error: Record<string, unknown> | null): string | null {
  return typeof error?.code === "string" ? error.code : null;
}

/** True for a task its agent declined (it failed with CANNOT_ANSWER): people read it as Not done, not Failed. */
export function isDeclined(task: Pick<TaskView, "state" | "error">): boolean {
  return task.state === "failed" && errorCode(task.error) === DECLINED_CODE;
}

/** Who cancelled a task, from its `error` (TaskView.error of a cancelled task); null when it names nobody. */
export function cancellerOf(error: Record<string, unknown> | null): Canceller | null {
  if (typeof error?.requested_by !== "string") return null;
  return { id: error.requested_by, name: typeof error.requested_by_name === "string" && error.requested_by_name ? error.requested_by_name : null };
}

/** The status of a run in `state` (its root tasks' fold) that waits on `waiting_on`; `roots` are its root tasks. */
export function runStatusOf(state: RunState, waiting_on: readonly WaitingOn[], roots: readonly Pick<TaskView, "state" | "error">[]): RunStatus {
  if (state === "running") return waiting_on.length ? "waiting" : "running";
  const failed = roots.filter((t) => t.state === "failed");
  if (state === "failed" && failed.length > 0 && failed.every(isDeclined)) return "not_done";
  return state;
}

/**
 * The run as people read it, from its root tasks (oldest first) and whom it waits on: its
 * status, and for a cancelled run who cancelled it (of its newest cancelled root).
 */
export function runStatusFacts(roots: readonly Pick<TaskView, "state" | "error">[], waiting_on: readonly WaitingOn[]): RunStatusFacts {
  const status = runStatusOf(runStateOf(roots.map((t) => t.state)), waiting_on, roots);
  const cancelled = status === "cancelled" ? roots.filter((t) => t.state === "cancelled").at(-1) : undefined;
  return { status, waiting_on, cancelled_by: cancelled ? cancellerOf(cancelled.error) : null };
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

/** "an admin", "a member", "a guest": one of the people with a role (`role:<name>`). */
function oneWithRole(entry: string): string {
  const role = entry.slice("role:".length);
  return /^[aeiou]/i.test(role) ? `an ${role}` : `a ${role}`;
}

/** "Waiting on you", "Waiting on Dana" or "Waiting on an admin": who the run needs next, for `person` (null: signed out). */
export function waitingLabel(run: { waiting_on: readonly WaitingOn[] }, person: Decider | null, nameOf: (id: string) => string = defaultName): string {
  if (waitsOnYou(run, person)) return "Waiting on you";
  const names = new Set<string>();
  for (const w of run.waiting_on) {
    if (w.kind === "answer") for (const t of w.to) names.add(t === "user" ? "the channel" : nameOf(t));
    else if (w.approvers === "any") names.add("an approver");
    else for (const a of w.approvers) names.add(a.startsWith("role:") ? oneWithRole(a) : nameOf(a));
  }
  return names.size ? `Waiting on ${[...names].join(", ")}` : "Waiting";
}

/** A person's or agent's id as a label when no name is known: agents by their handle, people as "a teammate". */
function defaultName(id: string): string {
  return id.startsWith("user:") ? "a teammate" : id.replace(/^agent:/, "");
}

/** "Cancelled by Lee": by the name the cancel carried, else `nameOf` its id; "Cancelled" when nobody is named. */
function cancelledLabel(by: Canceller | null, nameOf: (id: string) => string): string {
  return by ? `Cancelled by ${by.name ?? nameOf(by.id)}` : "Cancelled";
}

/** How each status is named in the UI, when there is nobody to name. */
export const RUN_STATUS_LABEL: Record<RunStatus, string> = {
  running: "Running",
  waiting: "Waiting",
  succeeded: "Succeeded",
  not_done: "Not done",
  failed: "Failed",
  cancelled: "Cancelled",
  timed_out: "Timed out",
};

/** How each task state is named in the UI, when there is nobody to name (no raw state name reaches people). */
export const TASK_STATE_LABEL: Record<TaskState, string> = {
  pending: "Pending",
  approval_required: "Waiting on an approval",
  running: "Running",
  waiting_input: "Waiting on an answer",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
  timed_out: "Timed out",
};

/** What people read for a run: "Running", "Waiting on you", "Waiting on an admin", "Not done", "Cancelled by Lee"… */
export function runStatusLabel(run: RunStatusFacts, person: Decider | null, nameOf: (id: string) => string = defaultName): string {
  if (run.status === "waiting") return waitingLabel(run, person, nameOf);
  if (run.status === "cancelled") return cancelledLabel(run.cancelled_by, nameOf);
  return RUN_STATUS_LABEL[run.status] ?? "Running";
}

/**
 * What people read for a task that waits on `waits` (`taskWaitingOn`): "Waiting on you" or on
 * whom while it waits on an answer or an approval, "Not done" once declined, "Cancelled by Lee",
 * else its state's name.
 */
export function taskStatusLabel(task: Pick<TaskView, "state" | "error">, waits: readonly WaitingOn[], person: Decider | null, nameOf: (id: string) => string = defaultName): string {
  if ((task.state === "waiting_input" || task.state === "approval_required") && waits.length) return waitingLabel({ waiting_on: waits }, person, nameOf);
  if (isDeclined(task)) return RUN_STATUS_LABEL.not_done;
  if (task.state === "cancelled") return cancelledLabel(cancellerOf(task.error), nameOf);
  return TASK_STATE_LABEL[task.state] ?? "Pending";
}

/** How far a run is: the tasks that succeeded (`done`) of all its tasks, as a fraction (0..1) and as "0 of 1 task done". */
export interface Progress {
  done: number;
  total: number;
  fraction: number;
  text: string;
}

/** The progress of a run with `succeeded` of `total` tasks succeeded. */
export function progressOf(succeeded: number, total: number): Progress {
  const all = Math.max(total, succeeded, 0);
  const done = Math.max(0, succeeded);
  return { done, total: all, fraction: all ? done / all : 0, text: `${done} of ${all} ${all === 1 ? "task" : "tasks"} done` };
}

/** "2 running · 1 waiting on you · 1 waiting on others": the runs still going, for `person`; empty when none. */
export function runsInProgressLabel(runs: readonly { status: RunStatus; waiting_on: readonly WaitingOn[] }[], person: Decider | null): string {
  const running = runs.filter((r) => r.status === "running").length;
  const waiting = runs.filter((r) => r.status === "waiting");
  const onYou = waiting.filter((r) => waitsOnYou(r, person)).length;
  const parts = [running ? `${running} running` : "", onYou ? `${onYou} waiting on you` : "", waiting.length - onYou ? `${waiting.length - onYou} waiting on others` : ""];
  return parts.filter(Boolean).join(" · ");
}
