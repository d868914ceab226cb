/**
 * Who started a run (docs/identity.md "Approvals need the right person"; docs/protocol.md
 * "meta.requested_by"): one answer, pure, for the server (the requester an approval records and
 * `forbid_self_approval` compares with) and the browser.
 *
 * A run is started by a root-level `task.request` (no `parent_task_id`). Its starter is, in
 * order of trust:
 *
 * 1. `meta.requested_by`: written by Clutch on every root request it opens for someone (a
 *    person's chat message, an A2A or ACP caller, a workflow run); a principal posting its own
 *    request may only name itself there (server/auth/authorize-append.ts). Forks and retries
 *    copy it with the request, so a fork is still the original person's run.
 * 2. `from.agent_id` when it is a person (`user:<id>`): a request a person sent themselves.
 * 3. For a request from `agent:orchestrator` (runs opened before `requested_by` existed), the
 *    person in `payload.input.from` that the orchestrator copied from the chat message.
 *
 * A run may gain more root-level requests later (follow-ups, retries); the run's requester is
 * its **first** person, so nobody joining in later becomes the one who "asked". A run started by
 * an external agent (an A2A/ACP caller with an agent key) and joined by no person has that agent.
 */
import type { ClutchMessage } from "@/lib/protocol";

type Request = Pick<ClutchMessage, "type" | "from" | "meta" | "payload" | "parent_task_id">;

const ORCHESTRATOR_ID = "agent:orchestrator";
const isPerson = (id: unknown): id is string => typeof id === "string" && id.startsWith("user:");

/** The principal (`user:<id>` or `agent:<id>`) who sent root request `request`, or null when it says nobody. */
export function requestStarter(request: Request): string | null {
  const named = request.meta?.requested_by;
  if (typeof named === "string" && named) return named;
  if (isPerson(request.from.agent_id)) return request.from.agent_id;
  if (request.from.agent_id === ORCHESTRATOR_ID) {
    // `input` is free-form JSON (§2.1 task.request); a request the orchestrator routes carries its asker in `input.from`.
    const input = (request.payload as { input?: { from?: { agent_id?: unknown } } }).input;
    const who = input?.from?.agent_id;
    if (isPerson(who)) return who;
    return null;
  }
  return request.from.agent_id || null;
}

/**
 * The requester of the run whose root-level `task.request`s are `roots` (oldest first; other
 * events are skipped): the first person among their starters, else the first starter at all,
 * else null. See the module doc.
 */
export function runRequester(roots: readonly Request[]): string | null {
  let first: string | null = null;
  for (const r of roots) {
    if (r.type !== "task.request" || r.parent_task_id) continue;
    const who = requestStarter(r);
    if (isPerson(who)) return who;
    first ??= who;
  }
  return first;
}
