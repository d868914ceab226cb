/**
 * ClutchError: an error a caller can act on, with a stable `code`, an HTTP `status` (from
 * ERROR_STATUS unless given) and, for validation failures, the zod `issues`. Route handlers and socket acks turn it into
 * `{ error: { code, message, issues? } }`.
 *
 * Route handlers run in Next's bundle, a different module instance from the custom server's,
 * so `isClutchError` checks a global brand rather than `instanceof`.
 */
const BRAND = Symbol.for("clutch.error");

/**
 * Every error code the API answers with, and its HTTP status: the one table (docs/limits.md,
 * docs/identity.md). A ClutchError thrown without a status gets its code's first status here.
 * Some codes have two statuses by where the id was named: `unknown_thread`, `unknown_run` and
 * `unknown_task` are 404 when the URL names the id and 422 when a body does; `invalid_invite` is 404 for an unknown link and
 * 410 for one that was used, expired or revoked. test/error-codes.test.ts fails when code throws
 * an error code missing from this table.
 */
export const ERROR_STATUS = {
  // 400: the request itself is wrong
  invalid_json: [400],
  invalid_event: [400],
  invalid_jsonl: [400],
  invalid_query: [400],
  invalid_params: [400],
  invalid_body: [400],
  invalid_url: [400],
  invalid_thread: [400],
  invalid_message: [400],
  invalid_card: [400],
  invalid_heartbeat: [400],
  invalid_decision: [400],
  invalid_arguments: [400],
  invalid_fork: [400],
  imported_copy: [409],
  restore_decides: [409],
  not_a_fork: [400],
  invalid_ref: [400],
  invalid_schema: [400],
  invalid_pack: [400],
  invalid_workflow: [400],
  invalid_sign_up: [400],
  multiple_runs: [400],
  invalid_autogen_message: [400],
  display_name_mismatch: [400],
  // 401 / 403: who is asking, and what they may do
  not_your_stream: [403],
  unauthenticated: [401],
  forbidden: [403],
  cross_site_request: [403],
  invalid_origin: [403],
  invite_only: [403],
  password_sign_in_off: [403],
  from_mismatch: [403],
  reserved_type: [403],
  reserved_meta: [403],
  not_yourself: [403],
  not_your_task: [403],
  not_your_agent: [403],
  not_your_run: [403],
  not_an_approver: [403],
  keys_locked: [403],
  not_author: [403],
  signature_required: [403],
  signature_invalid: [403],
  unknown_kid: [403],
  // 404 / 410: nothing there (or nothing the principal may see)
  unknown_stream: [404],
  not_found: [404],
  unknown_thread: [404, 422],
  unknown_run: [404, 422],
  unknown_schema: [404],
  unknown_workflow: [404],
  unknown_task: [404, 422],
  unknown_agent: [404],
  unknown_person: [404],
  unknown_approval: [404],
  unknown_request: [404],
  unknown_artifact: [404],
  unknown_key: [404],
  unknown_user: [404],
  invalid_invite: [404, 410],
  // 405: the path exists, the method does not
  method_not_allowed: [405],
  // 409: it conflicts with what is stored
  stream_ended: [409],
  stream_elsewhere: [409],
  name_taken: [409],
  task_id_taken: [409],
  not_pending: [409],
  no_policy: [409],
  workspace_agent: [409],
  already_set_up: [409],
  email_taken: [409],
  last_admin: [409],
  run_ended: [409],
  task_ended: [409],
  task_not_retryable: [409],
  parent_ended: [409],
  schema_exists: [409],
  pack_exists: [409],
  pack_conflict: [409],
  no_workspace: [409],
  workflow_changed: [409],
  already_answered: [409],
  agent_disabled: [409],
  direct_message: [409],
  message_deleted: [409],
  copy: [409],
  // 413 / 422 / 429: too much, or a reference that does not resolve
  body_too_large: [413],
  batch_too_large: [413],
  artifact_too_large: [413],
  unknown_message: [422],
  unknown_member: [422],
  rate_limited: [429],
  sign_in_locked: [429],
  // 5xx: not the client's fault; nothing was stored
  internal: [500],
  database_unavailable: [503],
  provider_unreachable: [503],
  realtime_unavailable: [503],
} as const satisfies Record<string, readonly number[]>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The status of `code` (its first, for the two codes with two), or 400 for a code not in the table. */
export function statusOf(code: string): number {
  return (ERROR_STATUS as Record<string, readonly number[]>)[code]?.[0] ?? 400;
}

export class ClutchError extends Error {
  readonly [BRAND] = true;
  constructor(
    readonly code: string,
    message: string,
    readonly status = statusOf(code),
    readonly issues?: unknown[],
    /** For 429 and 503: seconds after which the same request may succeed (Retry-After). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = "ClutchError";
  }
}

/** True for a ClutchError from any copy of this module. */
export function isClutchError(e: unknown): e is ClutchError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}
