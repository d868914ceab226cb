/**
 * The pure side of the approval card and its actions, shared with the inbox
 * (components/approvals) and the policy lines: who an id names, what a subject is, who may
 * approve, how long is left, which arguments to show and whether edited ones are valid.
 * Approvals themselves are folded in lib/fold/approvals.ts.
 */
import type { Approvers, Subject } from "@/lib/fold/approvals";
import { bareId } from "./participant";

/** A person id as a readable name: `user:dana-whitfield` → "dana-whitfield"; `user` → "people". */
export function personLabel(id: string): string {
  if (id === "user" || id === "user:*") return "people";
  return bareId(id);
}

/** "DataServer.process_data", "reply", or "" for a dispatch. */
export function toolLabel(s: Subject | undefined): string {
  if (!s?.tool) return "";
  return s.server_id ? `${s.server_id}.${s.tool}` : s.tool;
}

/**
 * What a subject is, as one short phrase: "analyst-1 → DataServer.process_data",
 * "pm-1 → reply to people", "task → analyst-1". `nameOf` names the agents (the card's display
 * name in the UI, components/events/use-sender-name.ts); by default their bare ids.
 */
export function subjectLabel(s: Subject | undefined, nameOf: (id: string) => string = bareId): string {
  if (!s) return "";
  const agent = nameOf(s.agent);
  const to = s.recipient ? (s.recipient === "user" || s.recipient.startsWith("user:") ? "people" : nameOf(s.recipient)) : "";
  if (s.kind === "dispatch") return `task → ${agent}${to && to !== agent ? ` (for ${to})` : ""}`;
  if (s.kind === "model_call") return `${agent} → over its budget`;
  const tool = toolLabel(s);
  return `${agent} → ${tool || "tool"}${to ? ` to ${to}` : ""}`;
}

/** "anyone in the workspace" or "dana-whitfield, lee". */
export function approversLabel(a: Approvers): string {
  if (a === "any") return "anyone in the workspace";
  return a.map(personLabel).join(", ");
}

/**
 * Checks an edited arguments document: it must parse as JSON and be an object (not an array,
 * null or a scalar). Answers the object, or an error a person can act on.
 */
export function parseArguments(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: false, error: "Arguments can’t be empty: write a JSON object, e.g. {}" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `Not valid JSON: ${msg.replace(/^JSON\.parse: /, "")}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: `Arguments must be a JSON object ({ … }), not ${value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Time left until `iso` as "59 min 12 s", "12 s", "expired"; and whether it is urgent (< 5 min). */
export function timeLeft(iso: string, now: number): { text: string; urgent: boolean; over: boolean } {
  const ms = Date.parse(iso) - now;
  if (!Number.isFinite(ms)) return { text: "", urgent: false, over: false };
  if (ms <= 0) return { text: "expired", urgent: true, over: true };
  const s = Math.ceil(ms / 1000);
  let text: string;
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  else if (s < 86_400) text = `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  else text = `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  return { text, urgent: ms < 5 * 60_000, over: false };
}

/**
 * Arguments to show: a text argument that is the preview itself (a reply's `text`, a report) is
 * named rather than repeated, since the preview shows it rendered.
 */
export function argumentsForDisplay(args: Record<string, unknown>, preview?: string | null): Record<string, unknown> {
  const p = preview?.trim();
  if (!p) return args;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (typeof v === "string" && v.trim() === p && v.length > 80) {
      out[k] = `‹shown rendered beside these arguments · ${v.length.toLocaleString()} characters›`;
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : args;
}
