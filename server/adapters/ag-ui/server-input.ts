/**
 * What an AG-UI request asks of Clutch (docs/adapters.md "AG-UI: Clutch's agents as AG-UI
 * agents"): the body is AG-UI's RunAgentInput, checked with the official schema
 * (`@ag-ui/core/schemas` RunAgentInputSchema); from it come
 *
 *   request     the text of the latest user message (string content, or its text parts joined)
 *   fresh       whether that message is the last of `messages` (a new turn of the person: it may
 *               answer a question the thread's run waits on)
 *   context     the messages before it, as `{ role, text }` (at most MAX_CONTEXT_MESSAGES, each
 *               cut to MAX_CONTEXT_CHARS), and AG-UI's `context` entries: kept in the run's
 *               request (`payload.input`), where the agent reads them
 *   answers     the `resume` entries: `interruptId` (a Clutch question's event id), `status`, and
 *               the answer text of a resolved one (`payload` as a string, `{ answer }` or
 *               `{ text }`; null when the payload gives none)
 *
 * Errors are ClutchError invalid_body (400) saying what to change.
 */
import { contentToText, type Message, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { z } from "zod";
import { ClutchError } from "../../errors";

/** Earlier messages kept as the run's context, at most (the newest). */
export const MAX_CONTEXT_MESSAGES = 20;
/** Longest earlier message kept as context, in characters. */
export const MAX_CONTEXT_CHARS = 4_000;
/** Longest request or answer text, in characters (a chat message's limit, lib/protocol/payloads.ts). */
export const MAX_TEXT_CHARS = 100_000;

/** A resume entry's answer: a string, or an object with `answer` (ANSWER_SCHEMA) or `text`. */
const AnswerPayload = z.union([z.string(), z.looseObject({ answer: z.string() }).transform((p) => p.answer), z.looseObject({ text: z.string() }).transform((p) => p.text)]);

/** One resume entry, as Clutch reads it. */
export interface ResumeAnswer {
  /** The Clutch question's event id. */
  interruptId: string;
  status: "resolved" | "cancelled";
  /** The answer of a resolved entry, trimmed; null when its payload carries none. */
  text: string | null;
}

/** An AG-UI request as Clutch reads it (see the module doc). */
export interface AgUiRequest {
  input: RunAgentInput;
  request: string;
  fresh: boolean;
  context: { conversation: { role: string; text: string }[]; context: { description: string; value: string }[] };
  answers: ResumeAnswer[];
}

const textOf = (m: Message): string => {
  if (m.role === "activity") return "";
  return contentToText(m.content ?? "").trim();
};

/** `body` (parsed JSON) as an AgUiRequest. Throws ClutchError invalid_body naming the first bad field. */
export function readRunInput(body: unknown): AgUiRequest {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join(".") : "body";
    throw new ClutchError("invalid_body", `the body must be an AG-UI RunAgentInput ({ threadId, runId, messages: [{ id, role: "user", content }] }): ${where}: ${issue.message}`, 400, parsed.error.issues);
  }
  const input = parsed.data as RunAgentInput;
  const messages = input.messages;
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const request = lastUser >= 0 ? textOf(messages[lastUser]!) : "";
  if (request.length > MAX_TEXT_CHARS) throw new ClutchError("invalid_body", `messages.${lastUser}.content: the message is limited to ${MAX_TEXT_CHARS.toLocaleString("en-US")} characters`);
  const earlier = (lastUser >= 0 ? messages.slice(0, lastUser) : messages)
    .map((m) => ({ role: m.role, text: textOf(m) }))
    .filter((m) => m.text)
    .slice(-MAX_CONTEXT_MESSAGES)
    .map((m) => (m.text.length > MAX_CONTEXT_CHARS ? { ...m, text: `${m.text.slice(0, MAX_CONTEXT_CHARS - 1)}…` } : m));
  const answers = (input.resume ?? []).map((entry, i): ResumeAnswer => {
    if (entry.status === "cancelled" || entry.payload === undefined) return { interruptId: entry.interruptId, status: entry.status, text: null };
    const answer = AnswerPayload.safeParse(entry.payload);
    if (!answer.success) throw new ClutchError("invalid_body", `resume.${i}.payload: the answer is a string or { "answer": "…" }`, 400, answer.error.issues);
    const text = answer.data.trim();
    if (text.length > MAX_TEXT_CHARS) throw new ClutchError("invalid_body", `resume.${i}.payload: the answer is limited to ${MAX_TEXT_CHARS.toLocaleString("en-US")} characters`);
    return { interruptId: entry.interruptId, status: entry.status, text: text || null };
  });
  return {
    input,
    request,
    fresh: lastUser >= 0 && lastUser === messages.length - 1,
    context: { conversation: earlier, context: input.context.map((c) => ({ description: c.description, value: c.value })) },
    answers,
  };
}
