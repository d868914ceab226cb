/**
 * Who may decide an approval (docs/identity.md, "Approvals need the right person"), one rule for
 * the server (which refuses a decision) and the browser (which offers Approve only to those who
 * may). `approvers` comes from the policy rule (server/policy/schema.ts):
 *
 * - "any": anyone who may read the run's channel (the caller has checked that).
 * - a list of entries, each `user:<id>` (a person), an email address (the person with that
 *   email), or `role:<admin|member|guest>` (everyone with that role).
 *
 * With `forbidSelf` (policy `forbid_self_approval: true`), nobody who asked for the work
 * (`requesters`: every person whose request led to it, `requestersOf`) may decide its approvals.
 */
export interface Decider {
  /** `user:<id>` */
  agent_id: string;
  role: "admin" | "member" | "guest";
  email?: string;
}

/** Who asked for held work, from an `approval.requested` payload: its `requesters`, else its one `requester` (older approvals). */
export function requestersOf(asked: { requester?: unknown; requesters?: unknown } | null | undefined): string[] {
  if (Array.isArray(asked?.requesters)) return asked.requesters.filter((r): r is string => typeof r === "string");
  return typeof asked?.requester === "string" ? [asked.requester] : [];
}

/** True when `person` may decide an approval for `approvers`; with `forbidSelf`, not if they are among `requesters`. */
export function mayDecide(approvers: "any" | readonly string[], person: Decider, opts: { requesters?: readonly string[]; forbidSelf?: boolean } = {}): boolean {
  if (opts.forbidSelf && opts.requesters?.includes(person.agent_id)) return false;
  if (approvers === "any") return true;
  const email = person.email?.toLowerCase();
  return approvers.some((a) => a === person.agent_id || a === `role:${person.role}` || (email !== undefined && a.toLowerCase() === email));
}
