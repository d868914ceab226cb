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
 * What a subject is, as one short phrase: "Analyst → DataServer.process_data",
 * "Project Manager → reply to people", "task → Analyst". `nameOf` names the agents (the card's
 * display name in the UI, components/events/use-sender-name.ts); by default their bare ids, as
 * the phrase's tooltip.
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

/**
 * "anyone in the workspace" or "Dana Whitfield, admins": `label` names each approver (the UI's
 * components/identity/names.ts `usePersonLabel`); by default their bare ids.
 */
export function approversLabel(a: Approvers, label: (id: string) => string = personLabel): string {
  if (a === "any") return "anyone in the workspace";
  return a.map(label).join(", ");
}

/** A rule id made readable: `approve-final-report` → "approve final report". */
function readableRule(rule: string): string {
  return rule.replace(/[-_.]+/g, " ").trim();
}

/**
 * Why a person is asked to decide, in people's words: the policy's reason when it gives one
 * ("the report reaches the channel only after an admin has read it"), else the rule made
 * readable ("the policy rule “approve final report”"); null when neither is known. The rule's
 * id itself is for a tooltip. A rule without a reason of its own comes with the reason
 * `rule <id>` (server/policy/rules.ts), which is no reason to a person.
 */
export function approvalWhy(rule: string | null | undefined, reason?: string | null): string | null {
  const said = reason?.trim();
  if (said && said !== `rule ${rule}`) return said;
  return rule ? `the policy rule “${readableRule(rule)}”` : null;
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
