/**
 * Principals: who is speaking (docs/identity.md; Clutch Protocol §6). Every REST request and
 * every socket is one of these, decided once by `Identity.authenticate` from the session cookie
 * or an `Authorization: Bearer` API key; nothing a request body says about its sender counts.
 *
 * - person: a signed-in account (`agent_id` is `user:<id>`), through its session or its own key.
 * - agent: an external agent through an API key an admin created for it (`agent_id` agent:<id>).
 * - system: Clutch itself and the workspace's agents running inside it (trusted).
 */
import { sameSigningKeys } from "@/lib/protocol";

export const ROLES = ["admin", "member", "guest"] as const;
/** admin: members, keys, agents, policy; member: every public channel; guest: only channels they were added to. */
export type Role = (typeof ROLES)[number];

export type PersonPrincipal = {
  kind: "person";
  /** `user:<id>`: the `from.agent_id` of this person's events. */
  agent_id: string;
  user_id: string;
  role: Role;
  name: string;
  email: string;
  /** How this request proved it: the session cookie, or one of the person's API keys. */
  via: "session" | "key";
  key_id?: string;
  /**
   * The session it proved itself with (`via: "session"`): its id (`sessions.id`, not the cookie's
   * token) and when it expires (ms since the epoch), so a socket ends when the session does.
   */
  session?: { id: string; expires: number };
};
export type AgentPrincipal = { kind: "agent"; agent_id: string; key_id: string };
export type SystemPrincipal = { kind: "system"; agent_id: "system" };
export type Principal = PersonPrincipal | AgentPrincipal | SystemPrincipal;

/** Clutch and its workspace agents: trusted, may do anything. */
export const SYSTEM: SystemPrincipal = { kind: "system", agent_id: "system" };

/** The `from.agent_id` of a person with account id `user_id`. */
export const personAgentId = (user_id: string) => `user:${user_id}`;

export const isAdmin = (p: Principal) => p.kind === "system" || (p.kind === "person" && p.role === "admin");

/**
 * The "signing keys are locked" rule (Clutch Protocol §6 "Message authentication"; docs/identity.md
 * "Signed messages"): true when `p` may not make an agent's signing keys `after` where they are
 * `before`, and the caller refuses with 403 `keys_locked`. An agent that signs its messages has its
 * keys changed or removed by an admin only, so a stolen API key alone is not enough to post as it
 * (and a signed message proves only the current key, which a key change must not rest on).
 *
 * - `before`: the registered card's `security.keys` (§1.4), undefined for a new agent or a card
 *   without keys; nothing is locked then.
 * - `after`: the new card's `security.keys` as sent, possibly unvalidated input (compared by
 *   `sameSigningKeys`: missing, null and [] are all "no keys").
 *
 * The one rule for both doors a card comes in by: POST /api/agents (app/api/agents/route.ts) and
 * an agent.register / agent.update appended to the log (./authorize-append.ts, rule 8).
 */
export function keysLocked(p: Principal, before: readonly unknown[] | undefined, after: unknown): boolean {
  return !isAdmin(p) && Boolean(before?.length) && !sameSigningKeys(before, after);
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
