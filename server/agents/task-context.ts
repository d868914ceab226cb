/**
 * The task an agent instance works on and the tool calls it makes, as the runner
 * (server/agents/runner.ts) hands them to actions.ts and tool-calls.ts: the task's ids and
 * request, the envelope of its messages (Clutch Protocol §1.1), one call of the model, and what
 * carrying a call out needs.
 */
import { makeMessage, type ClutchMessage, type MessageDraft, type MessageType, type PayloadOf, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { SchemaRegistry } from "../schemas/registry";
import type { EventStore } from "../events/store";
import type { Gate, GateResult } from "../policy/approvals";
import type { ToolCaller } from "../workspace/tools";
import type { Workspace, WorkspaceAgent } from "../workspace/workspace";

/** Envelope fields a message of a task may add or override (Clutch Protocol §1.1). */
export type EnvelopeExtra = Partial<Omit<MessageDraft<MessageType>, "type" | "payload">>;

/** The task an instance works on, as the runner knows it. */
export interface TaskContext {
  agent: WorkspaceAgent;
  instance_id: string;
  run_id: string;
  thread_id: string;
  task_id: string;
  parent_task_id: string | null;
  kind: "work" | "review";
  /** The task.request that started the task (the one addressed to this agent). */
  request: StoredEventOf<"task.request">;
  /** The node doing the work (CLUTCH_NODE_NAME; docs/deploy.md): every message says so in `meta.node`. */
  node?: string;
  /**
   * A message of this task from the agent: its thread, run and task ids, `from` the agent as a
   * worker, `to` nobody, `meta.node` the node doing the work. task.* messages also name the parent
   * task; tool and chat messages do not (the task's request places it in the tree). `extra` adds
   * or overrides envelope fields (its `meta` is merged).
   */
  envelope<T extends MessageType>(type: T, payload: PayloadOf<T>, extra?: EnvelopeExtra): ClutchMessage;
}

/** A TaskContext with its envelope builder. */
export function taskContext(task: Omit<TaskContext, "envelope">): TaskContext {
  return {
    ...task,
    envelope: (type, payload, extra = {}) =>
      makeMessage({
        type,
        payload,
        thread_id: task.thread_id,
        run_id: task.run_id,
        task_id: task.task_id,
        ...(type.startsWith("task.") ? { parent_task_id: task.parent_task_id } : {}),
        from: { agent_id: task.agent.agent_id, role: "worker" },
        to: [],
        ...extra,
        ...(task.node ? { meta: { ...extra.meta, node: task.node } } : {}),
      }),
  };
}

export interface ToolCall {
  step: number;
  /** The newest seq the model had seen when it made the call (conversation.ts). */
  seen_seq?: number;
  call_id: string;
  tool: string;
  input: unknown;
  /** Model text of the step, recorded on the call's first event. */
  text?: string;
}

export interface ActionDeps {
  store: EventStore;
  workspace: Workspace;
  tools: ToolCaller;
  /** The policy gate for every call (server/policy/approvals.ts); absent: everything allowed. */
  gate?: (g: Gate) => Promise<GateResult>;
  /** Events of the run so far, in seq order (to count calls and find the message a reply answers). */
  runEvents: () => Promise<readonly StoredEvent[]>;
  /** Aborted when the task is cancelled or times out: MCP calls in flight stop (TOOL_CANCELLED). */
  signal?: AbortSignal;
  /** Whether an agent is known (the workspace's, or registered over the API); absent: everyone is. */
  isRegistered?: (agent_id: string) => boolean;
  /** The schema registry: a submitted result is checked against its payload type's schema (docs/schemas.md). */
  schemas?: SchemaRegistry;
}
