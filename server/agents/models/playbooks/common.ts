/** Small readers shared by the playbooks. */
import type { StoredEvent } from "@/lib/protocol";
import type { Dimension } from "./sql";
import type { InboundEntry, Transcript } from "./transcript";
import { isRecord, str } from "./values";

/** `s` cut to `max` characters with an ellipsis. */
export function clip(s: string, max: number): string {
  const t = s.trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/**
 * The breakdown a request or an answer asks for. An explicit `Breakdown: <dim>` line wins (pm-1
 * writes one into its delegation); else keywords: segment(s) → segment; overall/total/trend
 * without region or market → total; else region (the spec's default: major markets).
 */
export function dimensionOf(text: string): Dimension {
  const explicit = /breakdown:\s*(region|segment|total)/i.exec(text);
  if (explicit) return explicit[1].toLowerCase() as Dimension;
  const t = text.toLowerCase();
  if (/\bregion|\bmarket|geograph/.test(t)) return "region";
  if (/segment|customer type|consumer|corporate|home office/.test(t)) return "segment";
  if (/overall|total|trend|big picture|whole/.test(t)) return "total";
  return "region";
}

/** True when an answer declines ("no", "don't", "skip", "not needed"). */
export function isNegative(text: string): boolean {
  return /^\s*(no|nope|not now)\b|\bno need\b|\bdon'?t\b|\bdo not\b|\bskip\b|\bnot needed\b|\bunnecessary\b/i.test(text);
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
