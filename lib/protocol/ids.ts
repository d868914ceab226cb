/**
 * Identifier helpers (Clutch Protocol Appendix B).
 *
 * Generated ids are a kind prefix followed by a ULID, e.g. `msg_01JD0Q8X9Y…` or `thr_01JD…`:
 * lexically sortable by creation time, unique without coordination. Reserved reference
 * prefixes (`agent:`, `skill:`, `artifact:` …) name things rather than instances.
 */
import { monotonicFactory } from "ulid";

/** Prefix for each kind of generated id. */
export const ID_PREFIX = {
  message: "msg_",
  thread: "thr_",
  run: "run_",
  task: "task_",
  trace: "tr_",
  span: "sp_",
  idempotency: "idem_",
  key: "key_",
  invite: "inv_",
  user: "usr_",
  call: "call_",
  approval: "apr_",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Reserved reference prefixes of Appendix B. */
export const RESERVED_PREFIX = {
  agent: "agent:",
  group: "group:",
  task: "task:",
  run: "run:",
  thread: "thread:",
  artifact: "artifact:",
  schema: "schema://",
  mcp: "mcp:",
  skill: "skill:",
  tool: "tool:",
} as const;

const nextUlid = monotonicFactory();

/**
 * A new id of the given kind: `<prefix><ULID>` (26 Crockford base32 characters after the prefix).
 * Ids made in one process are strictly increasing even within one millisecond.
 */
export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + nextUlid();
}

const ULID = "[0-9A-HJKMNP-TV-Z]{26}";

/** True when `id` is `<prefix of kind><ULID>`. */
export function isId(kind: IdKind, id: string): boolean {
  return new RegExp(`^${ID_PREFIX[kind]}${ULID}$`).test(id);
}

/** An artifact reference, `artifact:<id>` (§8.2). */
export function artifactRef(id: string): string {
  return RESERVED_PREFIX.artifact + id;
}
