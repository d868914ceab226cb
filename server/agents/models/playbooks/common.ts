/** Small readers shared by the playbooks: messages, reviews, who asked. */
import type { StoredEvent } from "@/lib/protocol";
import { isHuman, type InboundEntry, type Transcript } from "./transcript";
import { isRecord, str } from "./values";

/** `s` cut to `max` characters with an ellipsis. */
export function clip(s: string, max: number): string {
  const t = s.trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/** The payload of an event as a record. */
export function payloadOf(ev: StoredEvent | undefined): Record<string, unknown> {
  return ev && isRecord(ev.payload) ? ev.payload : {};
}

/** The text of a chat message (else the entry's rendered text). */
export function messageText(e: InboundEntry): string {
  return str(payloadOf(e.event).text) ?? e.text;
}

/** A review.feedback.v1 found in a task.result payload (at the top or under `data`). */
export interface ReviewFeedback {
  decision: string;
  comments: string[];
  blocking_issues: unknown[];
}

export function reviewFeedbackOf(ev: StoredEvent | undefined): ReviewFeedback | null {
  if (ev?.type !== "task.result") return null;
  const p = payloadOf(ev);
  const src = typeof p.decision === "string" ? p : isRecord(p.data) && typeof p.data.decision === "string" ? p.data : null;
  if (!src && ev.payload_type !== "review.feedback.v1") return null;
  const s = src ?? p;
  const comments = Array.isArray(s.comments) ? s.comments.map(String) : typeof s.comments === "string" ? [s.comments] : [];
  return { decision: String(s.decision ?? "approved"), comments, blocking_issues: Array.isArray(s.blocking_issues) ? s.blocking_issues : [] };
}

/** Who gave this agent its task: the task.request's sender when it is an agent, else `fallback`. */
export function delegatorOf(t: Transcript, fallback: string): string {
  const from = t.request()?.from;
  if (from?.role === "human") return "user"; // a person asked (e.g. by @mention): ask the people
  const id = from?.agent_id;
  if (id && id.startsWith("agent:") && !/orchestrator/.test(id) && !t.isMe(id)) return id;
  return fallback;
}

/**
 * True when a person asked for this agent's task: the task.request comes from a person, or the
 * orchestrator opened it for a person's message (`input.from`, server/orchestrator).
 */
export function askedByPerson(t: Transcript): boolean {
  const req = t.request();
  const input = req?.payload.input;
  const opener = isRecord(input) && isRecord(input.from) ? { agent_id: str(input.from.agent_id), role: str(input.from.role) } : undefined;
  return isHuman(req?.from) || isHuman(opener);
}

/** The keys a result under review carries at least one of. */
export const RESULT_KEYS = ["data", "report_markdown", "summary"];

/** The work under review: its result (summary, report, data) and who did it, when the request says. */
export interface ReviewedWork {
  result: Record<string, unknown>;
  /** The author's id (`agent:…` or `user`), or undefined when the request does not name one. */
  author?: string;
  review_of?: string;
}

/**
 * The work a review task's request carries, read loosely: the result in `payload.input` (`{
 * review_of, author, result: { summary, report_markdown, data } }`, or `work`/`output`, or a
 * python_object attachment), the author from `input` or an `agent:` id in the request's text.
 */
export function reviewedWork(t: Transcript): ReviewedWork {
  const req = t.request();
  const p = payloadOf(req);
  const input = isRecord(p.input) ? p.input : {};
  const candidates: unknown[] = [input.result, input.work, input.output, input];
  for (const a of req?.attachments ?? []) if (isRecord(a) && a.kind === "python_object") candidates.push(a.object);
  const result = candidates.find((c): c is Record<string, unknown> => isRecord(c) && RESULT_KEYS.some((k) => k in c)) ?? {};
  const authorRaw = [input.agent_id, input.author, input.from, input.reviewee, isRecord(input.result) ? input.result.agent_id : undefined].map(str).find(Boolean);
  const fromText = /agent:[A-Za-z0-9_-]+/.exec([str(p.instructions), str(p.context_summary), str(p.title)].filter(Boolean).join(" "))?.[0];
  const author = authorRaw ?? (fromText && !t.isMe(fromText) ? fromText : undefined);
  return { result, author: author && !author.includes(":") && author !== "user" ? `agent:${author}` : author, review_of: str(input.review_of) };
}
