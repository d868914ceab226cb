/**
 * Who may decide an approval (docs/identity.md, "Approvals need the right person"), one rule for
 * the server (which refuses a decision) and the browser (which offers Approve only to those who
 * may). `approvers` comes from the policy rule (server/policy/schema.ts):
 *
 * - "any": anyone who may read the run's channel (the caller has checked that).
 * - a list of entries, each `user:<id>` (a person), an email address (the person with that
 *   email), or `role:<admin|member|guest>` (everyone with that role).
 *
 * With `forbidSelf` (policy `forbid_self_approval: true`), the person who asked for the work
 * (`requester`, `user:<id>`) may not decide its approvals.
 */
export interface Decider {
  /** `user:<id>` */
  agent_id: string;
  role: "admin" | "member" | "guest";
  email?: string;
}

export function mayDecide(approvers: "any" | readonly string[], person: Decider, opts: { requester?: string | null; forbidSelf?: boolean } = {}): boolean {
  if (opts.forbidSelf && opts.requester && opts.requester === person.agent_id) return false;
  if (approvers === "any") return true;
  const email = person.email?.toLowerCase();
  return approvers.some((a) => a === person.agent_id || a === `role:${person.role}` || (email !== undefined && a.toLowerCase() === email));
}
