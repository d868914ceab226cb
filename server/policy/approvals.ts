/**
 * Gates and approvals: the policy kernel's decision for every dispatch and tool call, as
 * events (policy.decision, approval.*; docs/protocol.md), and durable approvals shared by the
 * whole team.
 *
 * `gate(g)` answers `go` (with the approver's edited arguments, if any), `wait` (an approval
 * is pending) or `refused`. Each decision is a `policy.decision` event; require_approval adds
 * an `approval.requested` (the task shows approval_required). A gate is keyed (`g.key`: the
 * call or dispatch it guards), so asking again after a restart finds the same approval: a
 * pending approval is a projection of the log and survives restarts. Throttled calls wait
 * and ask again; they are delayed, never dropped.
 */
import { mayDecide, requestersOf, type Decider } from "@/lib/approvers";
import { isEvent, makeMessage, newId, type ClutchMessage, type PayloadOf } from "@/lib/protocol";
import { ClutchError } from "../errors";
import type { ApprovalRow } from "../events/queries";
import type { EventStore } from "../events/store";
import { requesterOfRun } from "../events/requester";
import type { Decision, PolicyKernel, Usage } from "./kernel";
import type { Subject } from "./rules";

export type GateResult =
  | { status: "go"; arguments?: Record<string, unknown> }
  | { status: "wait"; approval_id: string }
  | { status: "refused"; code: "POLICY_DENIED" | "PERMISSION_DENIED"; message: string };

export interface Gate {
  /** What the gate guards, unique: a call (`<instance>:<step>:<call id>`) or a dispatch (`dispatch:<task id>`). */
  key: string;
  subject: Subject;
  /** Where the events go. */
  at: { thread_id: string; run_id: string; task_id: string; parent_task_id: string | null };
  /** One sentence for people: what will happen. */
  summary: string;
  arguments?: Record<string, unknown>;
  preview?: string;
  recommendation?: { decision: string; comments?: unknown };
  usage?: Usage;
  /**
   * The agent itself asks for a person's approval (a LangGraph interrupt, docs/adapters.md): it
   * waits for one unless the policy denies the subject outright.
   */
  require?: boolean;
  /**
   * A decision made outside the rules (a budget reached, server/policy/budgets.ts): recorded and
   * carried out as the kernel's would be, without asking the kernel.
   */
  decided?: Decision;
}

const KERNEL = { agent_id: "agent:policy", role: "system" } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Approvals {
  /** Appends through `store`; decides with `kernel` (the policy in force). */
  constructor(
    private readonly store: EventStore,
    readonly kernel: PolicyKernel,
  ) {}

  private event<T extends "policy.decision" | "approval.requested">(g: Gate, type: T, payload: PayloadOf<T>, key: string, meta?: Record<string, unknown>): ClutchMessage {
    return makeMessage<T>({ type, ...g.at, from: KERNEL, to: [], payload, idempotency_key: key, ...(meta ? { meta } : {}) });
  }

  /** Decide a dispatch or call; see the module doc. */
  async gate(g: Gate): Promise<GateResult> {
    const existing = await this.store.queries.approvalByGate(g.key);
    if (existing) return this.outcome(existing, await this.deciderName(existing));
    for (let attempt = 0; ; attempt++) {
      const evaluated = g.decided ?? this.kernel.evaluate(g.subject, g.usage);
      const d =
        g.require && evaluated.decision !== "deny" && evaluated.decision !== "require_approval"
          ? { ...evaluated, decision: "require_approval" as const, rule: null, reason: "the agent asks for a person's approval" }
          : evaluated;
      const base = { subject: g.subject, decision: d.decision, rule: d.rule, reason: d.reason };
      if (d.decision === "throttle") {
        await this.store.append(this.event(g, "policy.decision", { ...base, delay_ms: d.delay_ms }, `${g.key}:policy:throttle:${attempt}`));
        await sleep(d.delay_ms ?? 1000);
        continue;
      }
      if (d.decision === "require_approval") {
        const approval_id = newId("approval");
        const expires_at = new Date(Date.now() + this.kernel.current().approvals.timeout_sec * 1000).toISOString();
        // The person who started the run (not the root task's `from`, which is agent:orchestrator
        // for a chat message), and everyone else whose request led to the work: none of them may
        // decide under forbid_self_approval (docs/identity.md "Approvals need the right person").
        const requester = (await requesterOfRun(this.store.queries, g.at.run_id)) ?? undefined;
        const requesters = await this.store.queries.requestersOfRun(g.at.run_id);
        if (requester && !requesters.includes(requester)) requesters.unshift(requester);
        const { events } = await this.store.append([
          this.event(g, "policy.decision", { ...base, approval_id }, `${g.key}:policy`),
          this.event(
            g,
            "approval.requested",
            {
              approval_id,
              subject: g.subject,
              approvers: d.approvers ?? "any",
              ...(requester ? { requester } : {}),
              ...(requesters.length ? { requesters } : {}),
              ...(d.forbid_self_approval ? { forbid_self_approval: true } : {}),
              summary: g.summary,
              ...(g.arguments ? { arguments: g.arguments } : {}),
              ...(g.preview ? { preview: g.preview } : {}),
              ...(g.recommendation ? { recommendation: g.recommendation } : {}),
              expires_at,
              rule: d.rule,
              reason: d.reason,
            },
            `${g.key}:approval`,
            { gate: g.key },
          ),
        ]);
        return { status: "wait", approval_id: String(events[1]!.payload.approval_id) };
      }
      await this.store.append(this.event(g, "policy.decision", { ...base, ...(d.limits ? { limits: d.limits } : {}) }, `${g.key}:policy`));
      if (d.decision === "deny") return { status: "refused", code: "POLICY_DENIED", message: `refused by policy${d.rule ? ` (rule ${d.rule})` : ""}: ${d.reason}` };
      return { status: "go" };
    }
  }

  /**
   * The name of the person who decided `a`, as their decision recorded it ("Dana Whitfield"), for
   * the sentence the agent and the people in the channel read (docs/channels.md "One name per
   * agent"); else their id; null while undecided.
   */
  private async deciderName(a: ApprovalRow): Promise<string | null> {
    if (!a.decided_by) return null;
    const decision = await this.store.queries.eventByIdempotencyKey(`${a.id}:decision`);
    const name = decision && isEvent(decision, "approval.granted", "approval.rejected") ? decision.payload.display_name?.trim() : undefined;
    return name || a.decided_by;
  }

  private outcome(a: ApprovalRow, decider: string | null): GateResult {
    switch (a.state) {
      case "pending":
        return { status: "wait", approval_id: a.id };
      case "granted":
        return { status: "go", ...(a.decided_arguments ? { arguments: a.decided_arguments as Record<string, unknown> } : {}) };
      case "expired":
        return { status: "refused", code: "PERMISSION_DENIED", message: "nobody approved in time; the approval expired and counts as rejected" };
      default:
        return { status: "refused", code: "PERMISSION_DENIED", message: `rejected by ${decider ?? "a person"}${a.comment ? `: ${a.comment}` : ""}` };
    }
  }

  /**
   * A person's decision, recorded as theirs (`person`: the signed-in principal's id, profile name,
   * role and email; who may decide is lib/approvers.ts `mayDecide`). Throws ClutchError
   * unknown_approval (404), not_pending (409), not_an_approver (403), invalid_arguments (400).
   */
  async decide(
    approval_id: string,
    input: { decision: "approve" | "reject"; comment?: string; arguments?: Record<string, unknown> },
    person: Decider & { display_name: string },
  ): Promise<ApprovalRow> {
    const a = await this.store.queries.approval(approval_id);
    if (!a) throw new ClutchError("unknown_approval", `there is no approval ${approval_id}`, 404);
    if (a.state !== "pending") throw new ClutchError("not_pending", `approval ${approval_id} is already ${a.state}${a.decided_by ? ` by ${a.decided_by}` : ""}`, 409);
    const by = person.agent_id;
    const approvers = a.approvers as "any" | string[];
    const request = await this.store.queries.eventAtSeq(Number(a.request_seq));
    const asked = request && isEvent(request, "approval.requested") ? request.payload : null;
    const self = { requesters: requestersOf(asked), forbidSelf: asked?.forbid_self_approval };
    if (!mayDecide(approvers, person, self)) {
      const why = mayDecide(approvers, person)
        ? `you asked for this work, and rule ${a.rule ?? "(default)"} needs someone else to decide`
        : `approvers: ${approvers === "any" ? "any member of the channel" : approvers.join(", ")}`;
      throw new ClutchError("not_an_approver", `${person.display_name} (${by}) may not decide this approval; ${why}`, 403);
    }
    if (input.arguments && input.decision === "reject") throw new ClutchError("invalid_arguments", "edited arguments go with approve, not reject");
    const at = { thread_id: a.thread_id, run_id: a.run_id, task_id: a.task_id };
    const who = { agent_id: by, role: "human", display_name: person.display_name };
    const envelope = {
      ...at,
      from: who,
      to: [{ agent_id: a.agent_id }],
      idempotency_key: `${approval_id}:decision`,
    };
    const payload = {
      approval_id,
      by,
      display_name: person.display_name,
      ...(input.comment ? { comment: input.comment } : {}),
    };
    await this.store.append(
      input.decision === "approve"
        ? makeMessage({ type: "approval.granted", ...envelope, payload: { ...payload, ...(input.arguments ? { arguments: input.arguments } : {}) } })
        : makeMessage({ type: "approval.rejected", ...envelope, payload }),
    );
    const decided = await this.store.queries.approval(approval_id);
    if (!decided) throw new ClutchError("unknown_approval", `there is no approval ${approval_id}`, 404); // the projection never drops a row
    return decided;
  }

  /** Expire pending approvals past their time: rejected, or escalated per the policy. */
  async expireDue(now = new Date()): Promise<number> {
    const due = await this.store.queries.dueApprovals(now);
    const { approvals } = this.kernel.current();
    for (const a of due) {
      const escalate = approvals.on_timeout === "escalate" && JSON.stringify(a.approvers) !== JSON.stringify(approvals.escalate_to);
      const expires_at = new Date(now.getTime() + approvals.timeout_sec * 1000).toISOString();
      await this.store.append(
        makeMessage({
          type: "approval.expired",
          thread_id: a.thread_id,
          run_id: a.run_id,
          task_id: a.task_id,
          from: KERNEL,
          to: [{ agent_id: a.agent_id }],
          payload: escalate ? { approval_id: a.id, outcome: "escalated", escalated_to: approvals.escalate_to, expires_at } : { approval_id: a.id, outcome: "rejected" },
          idempotency_key: `${a.id}:expired:${a.expires_at.toISOString()}`,
        }),
      );
    }
    return due.length;
  }
}
