/**
 * Questions nobody can answer (docs/lifecycle.md "Questions to an agent that cannot answer";
 * CAP seed 000 "Oversight": an overseer's oversight_inquiry to the author of the work). An agent of
 * the workspace reads a question only in a task it works on: the question must be in its own
 * task, or in a subtask of it (server/agents/conversation.ts `isInbound`), and the orchestrator
 * wakes that task for it. A question whose addressee holds no such task that is still open would
 * wait forever: an ended task stays ended (only a retry reopens it), so it is never woken again.
 *
 * The orchestrator answers such a question on the addressee's behalf instead: a chat.message from
 * agent:orchestrator, `reply_to` the question, in the asker's task, with `meta.answered_for` the
 * addressee and `meta.unanswerable` why, saying what the addressee left behind:
 *
 *   its task ended with a result      "Analyst Agent has finished its task "…" and cannot
 *                                      answer; its result was: <summary>"
 *   its task ended otherwise          "… its task "…" failed (CODE: message), so it cannot answer"
 *   it works on another task of the   "… works on another task of this run ("…") and cannot read
 *     run (not the asker's delegator)  questions from this one"
 *   it has no task in the run         "… has no task in this run, so it cannot answer"
 *
 * The asker's task then goes on like after any answer. It is checked when the question is asked,
 * when a task of the run ends (the addressee's task ended while the question waited), and at
 * start. A question to people, or to an agent outside the workspace, is left to its asker's task
 * deadline (server/lifecycle/deadlines.ts). Each answer carries an idempotency key, so a repeated
 * check stores it once.
 */
import { isEvent, makeMessage, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { TERMINAL_STATES, type OpenQuestion, type TaskState } from "@/lib/fold/task-state";
import type { TaskRow } from "../events/queries";
import type { EventStore } from "../events/store";
import { ORCHESTRATOR } from "../router/router";
import type { Workspace } from "../workspace/workspace";
import { agentDisplayName } from "../workspace/names";

export interface UnanswerableDeps {
  store: EventStore;
  workspace: Pick<Workspace, "agents">;
}

/** Why the addressee cannot answer, kept in the answer's `meta.unanswerable`. */
export type Unanswerable = "task_ended" | "other_task" | "no_task";

const ended = (t: Pick<TaskRow, "state">) => TERMINAL_STATES.has(t.state as TaskState);
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s);

/** The open questions a task row records (its `open_questions` column). */
function openQuestionsOf(t: TaskRow): OpenQuestion[] {
  return Array.isArray(t.open_questions) ? (t.open_questions as unknown as OpenQuestion[]) : [];
}

/** A task.result's gist for one line: its summary, else its report's first paragraph, else its data. */
function gistOf(result: StoredEventOf<"task.result">): string {
  const p = result.payload as Record<string, unknown>;
  if (typeof p.summary === "string" && p.summary.trim()) return clip(p.summary.trim().replace(/\s+/g, " "), 800);
  if (typeof p.report_markdown === "string" && p.report_markdown.trim()) return clip(p.report_markdown.trim().split(/\n\s*\n/)[0]!.replace(/\s+/g, " "), 800);
  return clip(JSON.stringify(p), 800);
}

/**
 * Answer `question` on its addressee's behalf when no addressee can (see the module doc). Returns
 * true when it answered (or had answered before), false when the question waits for someone who
 * may still answer it, or is no longer open.
 */
export async function answerIfUnanswerable(deps: UnanswerableDeps, question: StoredEvent): Promise<boolean> {
  if (!isEvent(question, "chat.message") || question.payload.expects_reply !== true) return false;
  const { queries } = deps.store;
  const asking = await queries.task(question.task_id);
  if (!asking || ended(asking) || asking.assignee !== question.from.agent_id) return false;
  if (!openQuestionsOf(asking).some((q) => q.id === question.id)) return false;
  const targets = question.to.map((t) => t.agent_id).filter((id) => id !== question.from.agent_id);
  // People, and agents outside the workspace, may answer on their own: the task deadline covers them.
  if (!targets.length || targets.some((id) => !deps.workspace.agents.has(id))) return false;
  const parent = asking.parent_task_id ? await queries.task(asking.parent_task_id) : null;
  if (parent && parent.assignee && targets.includes(parent.assignee) && !ended(parent)) return false;

  const addressee = targets[0]!;
  const name = agentDisplayName(deps.workspace, addressee);
  const tasks = (await queries.tasksOfRun(asking.run_id)).filter((t) => t.assignee === addressee && t.id !== asking.id);
  // The task it would have answered in (the asker's delegator), else its newest in the run.
  const own = parent && parent.assignee === addressee ? parent : (tasks.filter((t) => !ended(t)).at(-1) ?? tasks.at(-1) ?? null);
  let why: Unanswerable;
  let text: string;
  if (!own) {
    why = "no_task";
    text = `${name} has no task in this run, so it cannot answer. Go on with what you have, or ask someone who works on this run.`;
  } else if (!ended(own)) {
    why = "other_task";
    text = `${name} works on another task of this run ("${own.title ?? own.id}") and cannot read questions from this one, so it cannot answer. Go on with what you have.`;
  } else {
    why = "task_ended";
    const title = own.title ?? own.id;
    if (own.state === "succeeded") {
      const events = await deps.store.readAll({ run_id: own.run_id });
      const result = [...events].reverse().find((e): e is StoredEventOf<"task.result"> => isEvent(e, "task.result") && e.task_id === own.id);
      text = `${name} has finished its task "${title}" and cannot answer; its result was: ${result ? gistOf(result) : "(not recorded)"}`;
    } else {
      const error = (own.error ?? {}) as { code?: unknown; message?: unknown };
      const detail = [typeof error.code === "string" ? error.code : null, typeof error.message === "string" && error.message ? error.message : null].filter(Boolean).join(": ");
      text = `${name}'s task "${title}" ${own.state.replace("_", " ")}${detail ? ` (${clip(detail, 300)})` : ""}, so it cannot answer. Go on with what you have.`;
    }
  }
  await deps.store.append(
    makeMessage({
      type: "chat.message",
      thread_id: asking.thread_id,
      run_id: asking.run_id,
      task_id: asking.id,
      parent_task_id: asking.parent_task_id,
      from: ORCHESTRATOR,
      to: [{ agent_id: question.from.agent_id }],
      payload: { text, reply_to: question.id },
      meta: { answered_for: addressee, unanswerable: why, ...(own ? { addressee_task_id: own.id } : {}) },
      idempotency_key: `unanswerable:${question.id}`,
    }),
  );
  return true;
}

/**
 * Check every open question of run `run_id`'s unfinished tasks (a task of the run ended: its
 * agent may have been the one a question waits for). Returns how many it answered.
 */
export async function answerUnanswerableInRun(deps: UnanswerableDeps, run_id: string): Promise<number> {
  let answered = 0;
  for (const t of await deps.store.queries.openTasksOfRuns([run_id])) {
    for (const q of openQuestionsOf(t)) {
      if (!q.to.some((id) => deps.workspace.agents.has(id))) continue;
      const question = await deps.store.queries.eventInRun(run_id, q.id);
      if (question && (await answerIfUnanswerable(deps, question))) answered++;
    }
  }
  return answered;
}
