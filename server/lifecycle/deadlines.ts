/**
 * Deadlines: every task ends (docs/lifecycle.md "Timeouts"; Clutch Protocol §2.1 task.timeout,
 * §2.4 agent lifecycle). A sweep over the tasks that have not ended, run by the orchestrator in
 * its reaction chain every few seconds, on a clock tests can swap:
 *
 *   a run older than `run_timeout_sec`        its root task and everything under it: task.timeout
 *   a task running longer than its limit      task.timeout for it and its subtree (the parent sees
 *                                             it like an error); the limit is the agent's
 *                                             `limits.max_runtime_sec`, else `task_timeout_sec`
 *   a request an external agent did not       routed again to the next candidate (a new
 *     accept within `accept_timeout_sec`      routing.decision and attempt), or task.error
 *                                             NOT_ACCEPTED when no other agent can take it
 *   an external agent offline with tasks      per `on_agent_offline`: rerouted like the above,
 *     in hand                                 failed (task.error AGENT_OFFLINE), or left waiting
 *
 * Time spent waiting for a person (an open question to people, an approval) does not time a task
 * out: the question or approval is what waits. A question to agents only has no deadline of its
 * own: it counts as the asker's working time, so the task limit ends a question no agent answers
 * (a question no workspace agent can answer at all is answered on its addressee's behalf at once:
 * server/lifecycle/unanswerable.ts). In-process agents are never "not accepting": they queue
 * their tasks behind `max_concurrency`, and take them in order.
 */
import { isPeopleRecipient } from "@/lib/fold/questions";
import type { OpenQuestion } from "@/lib/fold/task-state";
import type { TaskRow } from "../events/queries";
import type { EventStore } from "../events/store";
import { log } from "../log";
import type { AgentRegistry } from "../router/registry";
import { needsRouting, ORCHESTRATOR, type Router } from "../router/router";
import type { LifecycleSettings } from "../workspace/workspace";
import { endSubtree, subtree } from "./cancel";
import { clutchTaskError } from "./task-error";

export interface DeadlineDeps {
  store: EventStore;
  registry: AgentRegistry;
  /** Routing by capability; null: nothing is rerouted, tasks that cannot go on fail. */
  router: Router | null;
  settings: LifecycleSettings;
  /** Whether this Clutch acts in the channel (the orchestrator's scope). */
  inScope(thread_id: string): Promise<boolean>;
  /** The clock, ms since the epoch (default Date.now). */
  now?: () => number;
}

const WAITING_FOR_PEOPLE = new Set(["waiting_input", "approval_required"]);
/**
 * Clutch's coordinators: the orchestrator (a request still to be routed), a workflow run's root
 * (server/workflows/runner.ts) and a group chat's (server/orchestrator/group-chat.ts). Their time is
 * their subtasks', each under its own limit, so no task limit applies to them; the run limit does.
 */
const COORDINATORS = new Set([ORCHESTRATOR.agent_id, "agent:workflow", "agent:group-chat"]);
const ms = (d: Date | null) => (d ? d.getTime() : null);

/**
 * Whether task `t` waits for a person now: an approval, or a question to people (a question
 * whose recipients are all agents does not count; one whose recipients the row does not record does).
 */
export function waitsForPeople(t: Pick<TaskRow, "state" | "open_questions">): boolean {
  if (t.state === "approval_required") return true;
  if (t.state !== "waiting_input") return false;
  const open = Array.isArray(t.open_questions) ? (t.open_questions as unknown as OpenQuestion[]) : [];
  return !open.length || open.some((q) => !Array.isArray(q.to) || !q.to.length || q.to.some((id) => isPeopleRecipient({ agent_id: id })));
}

export class Deadlines {
  private readonly now: () => number;

  constructor(private readonly deps: DeadlineDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** One sweep (see the module doc). Returns how many tasks it ended or moved. */
  async sweep(): Promise<number> {
    const all = await this.deps.store.queries.unfinishedTasks();
    const scoped = new Map<string, boolean>();
    const open: TaskRow[] = [];
    for (const t of all) {
      if (!scoped.has(t.thread_id)) scoped.set(t.thread_id, await this.deps.inScope(t.thread_id));
      if (scoped.get(t.thread_id)) open.push(t);
    }
    const ended = new Set<string>();
    const act = async (what: string, t: TaskRow, fn: () => Promise<string[]>) => {
      try {
        for (const id of await fn()) ended.add(id);
      } catch (err) {
        log.warn({ err, task_id: t.id }, `deadline: ${what} failed`);
      }
    };
    for (const t of open) {
      if (ended.has(t.id)) continue;
      const runLimit = this.runLimitMs(t);
      if (runLimit !== null) {
        await act("run timeout", t, () => this.timeOut(t, open, runLimit, `The run took longer than ${runLimit / 1000} s, the most the workspace allows (lifecycle.run_timeout_sec)`));
        continue;
      }
      const taskLimit = this.taskLimit(t);
      if (taskLimit !== null) {
        await act("task timeout", t, () =>
          this.timeOut(t, open, taskLimit.ms, `${t.assignee} worked on "${t.title ?? t.id}" for longer than ${taskLimit.ms / 1000} s (${taskLimit.source})`),
        );
        continue;
      }
      const stuck = this.stuck(t);
      if (stuck) await act("reroute", t, () => this.moveOn(t, stuck));
    }
    return ended.size;
  }

  /** The run's time limit in ms when `t` is a root task whose run is over it, else null. */
  private runLimitMs(t: TaskRow): number | null {
    const limit = this.deps.settings.run_timeout_sec;
    if (t.parent_task_id || limit == null) return null;
    // A retried root counts from its new start; a pending retry has not started yet.
    const since = ms(t.started_at) ?? (t.attempts > 1 ? null : ms(t.created_at));
    return since !== null && this.now() - since > limit * 1000 ? limit * 1000 : null;
  }

  /**
   * The task's time limit when it has run past it (not while it waits for a person; waiting for
   * an agent's answer counts), else null:
   * its agent's `limits.max_runtime_sec`, else `task_timeout_sec`, and which of the two it is.
   */
  private taskLimit(t: TaskRow): { ms: number; source: string } | null {
    const own = t.assignee ? this.deps.registry.get(t.assignee)?.card.limits?.max_runtime_sec : undefined;
    const limit = own || this.deps.settings.task_timeout_sec;
    const started = ms(t.started_at);
    if (limit == null || started === null || waitsForPeople(t) || COORDINATORS.has(t.assignee ?? "")) return null;
    if (this.now() - started <= limit * 1000) return null;
    return { ms: limit * 1000, source: own ? "its AgentCard's limits.max_runtime_sec" : "lifecycle.task_timeout_sec" };
  }

  /**
   * Why an external agent's task cannot go on where it is: not accepted in time, or its agent is
   * offline; the agent named by its card's display name (docs/channels.md "One name per agent").
   */
  private stuck(t: TaskRow): { code: "NOT_ACCEPTED" | "AGENT_OFFLINE"; why: string } | null {
    const agent = t.assignee ? this.deps.registry.get(t.assignee) : undefined;
    if (!agent || agent.source !== "external" || WAITING_FOR_PEOPLE.has(t.state)) return null;
    const { accept_timeout_sec, on_agent_offline } = this.deps.settings;
    if (!this.deps.registry.isOnline(agent.agent_id) && on_agent_offline !== "wait") {
      return { code: "AGENT_OFFLINE", why: `${agent.card.display.name} went offline with the task in hand` };
    }
    if (t.state === "pending" && accept_timeout_sec != null && this.now() - t.updated_at.getTime() > accept_timeout_sec * 1000) {
      return { code: "NOT_ACCEPTED", why: `${agent.card.display.name} did not accept the task within ${accept_timeout_sec} s (lifecycle.accept_timeout_sec)` };
    }
    return null;
  }

  /** task.timeout for `t` and every open task under it. */
  private timeOut(t: TaskRow, open: TaskRow[], limit_ms: number, message: string): Promise<string[]> {
    return endSubtree(this.deps.store, subtree(open, [t.id]), ORCHESTRATOR, { kind: "timeout", timeout_ms: limit_ms, message });
  }

  /**
   * A stuck task goes to the next agent that can take it (when it was routed by capability and
   * the workspace reroutes), or fails with `code`, retryable, back to its requester.
   */
  private async moveOn(t: TaskRow, stuck: { code: "NOT_ACCEPTED" | "AGENT_OFFLINE"; why: string }): Promise<string[]> {
    const { store, router, settings } = this.deps;
    const requests = await store.queries.requests(t.run_id, t.id);
    const first = requests[0];
    if (!first) return [];
    const reroutes = stuck.code === "NOT_ACCEPTED" || settings.on_agent_offline === "reroute";
    if (router && reroutes && needsRouting(first)) {
      const tried = requests.map((e) => e.to[0]?.agent_id).filter((id): id is string => Boolean(id) && id !== ORCHESTRATOR.agent_id);
      if ((await router.reroute(first, [...new Set(tried)], stuck.why, t.attempts + 1)) === "routed") return [t.id];
    }
    const at = { thread_id: t.thread_id, run_id: t.run_id, task_id: t.id, parent_task_id: t.parent_task_id };
    const to = [{ agent_id: first.from.agent_id }, ...(t.assignee ? [{ agent_id: t.assignee }] : [])];
    const payload = { code: stuck.code, message: `${stuck.why}, and no other agent can take it`, retryable: true };
    await store.append(clutchTaskError(at, to, payload, `${stuck.code.toLowerCase()}:${t.id}:${t.attempts}`, t.attempts));
    return [t.id];
  }
}
