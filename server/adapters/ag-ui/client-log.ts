/**
 * What the AG-UI driver reads back from the log (docs/adapters.md "AG-UI agents in Clutch"): which
 * AG-UI run a wake of a task makes next, and the `RunAgentInput` pieces it sends. Pure functions
 * of the run's events, so a wake after a restart, on any node, sends what the first would have.
 *
 * Ids, per Clutch task and attempt (the attempt's task.request starts it):
 *   threadId = the Clutch task id                 (one AG-UI thread per task, kept across runs)
 *   runId    = `<task id>.<attempt>.<n>`          (n = 1 for the first run of the attempt, + 1
 *                                                  after each run that ended in interrupts)
 * The driver's events carry `meta.ag_ui` (AgUiMetaSchema): the thread and run, and for a question
 * the interrupt it asks. A run whose every question has an answer (a chat.message replying to it)
 * is resumed by run n + 1 with one `resume` entry per interrupt; while one has none, the task waits.
 */
import { z } from "zod";
import type { Message, ResumeEntry } from "@ag-ui/client";
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { requestText } from "../../agents/driver";

/** The `meta.ag_ui` of the driver's events. */
export const AgUiMetaSchema = z.looseObject({
  /** AG-UI threadId and runId of the run the event came from; `run` is its n (see the module docstring). */
  thread_id: z.string(),
  run_id: z.string(),
  run: z.number().int().positive(),
  /** A chat.message: the AG-UI messageId it was streamed as. */
  message_id: z.string().optional(),
  /** tool.call / tool.result: the AG-UI toolCallId. */
  tool_call_id: z.string().optional(),
  /** task.progress of a step: its stepName. */
  step: z.string().optional(),
  /** A question: the interrupt it asks (id, reason, and the answer's JSON Schema when the agent gave one). */
  interrupt: z
    .looseObject({
      id: z.string(),
      reason: z.string(),
      response_schema: z.record(z.string(), z.unknown()).optional(),
      tool_call_id: z.string().optional(),
    })
    .optional(),
});
export type AgUiMeta = z.infer<typeof AgUiMetaSchema>;

/** The AG-UI threadId of a Clutch task. */
export function agUiThreadId(task_id: string): string {
  return task_id;
}

/** The AG-UI runId of run `n` of `attempt` of a Clutch task. */
export function agUiRunId(task_id: string, attempt: number, n: number): string {
  return `${task_id}.${attempt}.${n}`;
}

/** `meta.ag_ui` of an event, or null when it has none (or not in this shape). */
export function agUiMetaOf(e: Pick<StoredEvent, "meta">): AgUiMeta | null {
  const r = AgUiMetaSchema.safeParse((e.meta as { ag_ui?: unknown } | undefined)?.ag_ui);
  return r.success ? r.data : null;
}

const ENDINGS = new Set(["task.result", "task.error", "task.cancel", "task.timeout"]);

/** What a wake does next. */
export type NextRun =
  /** The attempt has ended (a result, an error, a cancel or a timeout): nothing. */
  | { state: "ended" }
  /** Questions of the last run have no answer yet: nothing until they do. */
  | { state: "waiting"; question_ids: string[] }
  /** Start run `run` with this conversation, resuming the last run's interrupts when `resume` is non-empty. */
  | { state: "run"; run: number; messages: Message[]; resume: ResumeEntry[] };

/**
 * The answer a resume entry carries for `text` (a person's or an agent's reply): the text itself,
 * unless the interrupt's `response_schema` asks for another JSON type and the text is one
 * (`42`, `{"day":"Friday"}`), or a boolean and the text says yes or no.
 */
export function resumePayload(text: string, schema: Record<string, unknown> | undefined): unknown {
  const type = schema?.type;
  const t = text.trim();
  if (type === undefined || type === "string") return text;
  if (type === "boolean") {
    if (/^(yes|y|ok|okay|approve|approved|true|go ahead)\.?$/i.test(t)) return true;
    if (/^(no|n|deny|denied|reject|rejected|false|stop)\.?$/i.test(t)) return false;
  }
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return text;
  }
}

/**
 * The next AG-UI run of the current attempt of the task, from the run's `events` (seq order):
 * `request` is the attempt's task.request and `agent_id` the task's agent. The conversation is the
 * request's text (requestText) as the user's message, then, in log order, what the agent said in
 * this attempt (its chat.messages, questions included, as assistant messages) and the answers to
 * its questions (as user messages).
 */
export function nextRun(events: readonly StoredEvent[], request: StoredEventOf<"task.request">, agent_id: string): NextRun {
  const start = events.findIndex((e) => e.id === request.id);
  const since = start < 0 ? [] : events.slice(start);
  const task_id = request.task_id;
  if (since.some((e) => e.task_id === task_id && ENDINGS.has(e.type))) return { state: "ended" };

  const messages: Message[] = [{ id: request.id, role: "user", content: requestText(request) }];
  const questions = new Map<string, { run: number; interrupt: NonNullable<AgUiMeta["interrupt"]> }>();
  const answers = new Map<string, StoredEventOf<"chat.message">>();
  let lastRound = 0;
  for (const e of since) {
    if (!isEvent(e, "chat.message")) continue;
    if (e.task_id === task_id && e.from.agent_id === agent_id) {
      const meta = agUiMetaOf(e);
      messages.push({ id: meta?.message_id ?? e.id, role: "assistant", content: e.payload.text });
      if (meta?.interrupt) {
        questions.set(e.id, { run: meta.run, interrupt: meta.interrupt });
        lastRound = Math.max(lastRound, meta.run);
      }
      continue;
    }
    const asked = e.payload.reply_to;
    if (asked && questions.has(asked) && !answers.has(asked)) {
      answers.set(asked, e);
      messages.push({ id: e.id, role: "user", content: e.payload.text });
    }
  }
  if (lastRound === 0) return { state: "run", run: 1, messages, resume: [] };

  const open = [...questions].filter(([id, q]) => q.run === lastRound && !answers.has(id)).map(([id]) => id);
  if (open.length) return { state: "waiting", question_ids: open };
  const resume: ResumeEntry[] = [...questions]
    .filter(([, q]) => q.run === lastRound)
    .map(([id, q]) => ({ interruptId: q.interrupt.id, status: "resolved", payload: resumePayload(answers.get(id)!.payload.text, q.interrupt.response_schema) }));
  return { state: "run", run: lastRound + 1, messages, resume };
}
