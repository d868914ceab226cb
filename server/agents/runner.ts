/**
 * The agent loop (docs/architecture.md "From request to socket"): one loop for every agent,
 * driven by the log.
 *
 * `wake(agent_id, task_id)` schedules the instance that owns the task. A wake reads the run's
 * events (once, then only what was appended since: run-log.ts), rebuilds the instance's
 * conversation (conversation.ts), finishes any tool call the log shows as started but not
 * completed, and, when something new has arrived (the last message is not the agent's own turn
 * end), asks the model for its next step through the AI SDK (`generateText`, one step, tools
 * without execute). Each tool call of the step is carried out as events (actions.ts); the loop
 * goes on until the model ends its turn with text, submits its result, or MAX_STEPS_PER_WAKE is
 * reached. Nothing lives only in memory: after a restart, waking every unfinished task carries
 * each run on from its events.
 *
 * Instances: one per task (`<agent id>/<task id>`), each with its own conversation; an agent
 * runs at most `limits.max_concurrency` of them at once, others queue.
 */
import { generateText, jsonSchema, tool, type LanguageModel, type ToolSet } from "ai";
import { isEvent, type StoredEventOf } from "@/lib/protocol";
import { TERMINAL_STATES, type TaskState } from "@/lib/fold/task-state";
import type { EventStore } from "../events/store";
import type { Workspace, WorkspaceAgent } from "../workspace/workspace";
import { log } from "../log";
import { perform, taskContext, type ActionDeps, type ToolCaller } from "./actions";
import { BUILTIN_TOOLS, mcpToolName, type SystemMeta } from "./contract";
import { buildConversation } from "./conversation";
import { RunLog } from "./run-log";
import type { Gate, GateResult } from "../policy/approvals";

export const MAX_STEPS_PER_WAKE = 24;
const ENDINGS = new Set(["task.result", "task.error", "task.cancel", "task.timeout"]);

/** An MCP tool as offered to a model. */
export interface OfferedTool {
  server_id: string;
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface RunnerDeps {
  store: EventStore;
  workspace: Workspace;
  tools: ToolCaller & { listTools(server_ids: string[]): Promise<OfferedTool[]> };
  /** The model of an agent (server/agents/models). */
  modelFor(agent: WorkspaceAgent): LanguageModel;
  /** The policy gate for every tool call (server/policy/approvals.ts). */
  gate?: (g: Gate) => Promise<GateResult>;
}

const BUILTIN_DESCRIPTIONS: Record<keyof typeof BUILTIN_TOOLS, string> = {
  ask: "Ask a person (to: \"user\") or an agent (to: \"agent:<id>\") a question. Returns at once; the answer arrives later as a new message, so end your turn after asking.",
  reply: "Answer a message someone sent you. Give reply_to = the id of the message you answer. Markdown is rendered for people.",
  delegate: "Hand a subtask to an agent in your allowed_agents (agent_id), or to the best of them for the capabilities it needs (requires, prefers), with a context_summary of what is done and what remains, and attachments it needs. Returns the new task id at once; the result arrives later as a new message.",
  submit_result: "Finish your task with its result: a summary, a markdown report for people, and the data behind it. A review task submits payload_type review.feedback.v1 with data { decision, comments, blocking_issues }.",
};

function systemPrompt(agent: WorkspaceAgent, kind: "work" | "review"): string {
  const rules = [
    `You are ${agent.agent_id} in Clutch, working in a team of agents and people in a chat channel.`,
    agent.allowed_agents.length
      ? `You may delegate to: ${agent.allowed_agents.join(", ")}. Rules: ${Object.entries(agent.manifest.delegate_rules)
          .map(([id, r]) => `${id}: ${r.when_to_delegate}`)
          .join("; ")}.`
      : "You may not delegate.",
    agent.overseer ? `${agent.overseer} reviews your results before they go back to whoever asked.` : "",
    kind === "review"
      ? "This task is a review: verify the work under review (recompute figures with your tools), ask its author if something is unclear, then submit_result with payload_type review.feedback.v1."
      : "Use your tools; ask when the request is ambiguous; when you are waiting for an answer or a subtask, end your turn with a short note. Finish with submit_result.",
    "Never invent figures: state only numbers that your tools returned.",
  ];
  return `${agent.manifest.system_prompt}\n\n${rules.filter(Boolean).join("\n")}`;
}

export class AgentRunner {
  private readonly active = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private stopped = false;

  /** See RunnerDeps: the store, the workspace's agents, their MCP tools, models and the policy gate. */
  constructor(private readonly deps: RunnerDeps) {}

  /** Stop taking new wakes; resolves when the instances that are mid-step have finished it. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.active.values()]);
  }

  /** Resolves when no instance is working (tests, benches). */
  async idle(): Promise<void> {
    while (this.active.size) await Promise.allSettled([...this.active.values()]);
  }

  /** How many of the agent's instances are working now (for its heartbeat). */
  load(agent_id: string): number {
    return this.running.get(agent_id) ?? 0;
  }

  /** Schedule the agent's instance for `task_id`. Several wakes while it runs coalesce into one more pass. */
  wake(agent_id: string, task_id: string): void {
    if (this.stopped) return;
    const agent = this.deps.workspace.agents.get(agent_id);
    if (!agent) return;
    const key = `${agent_id}/${task_id}`;
    if (this.active.has(key)) {
      this.again.add(key);
      return;
    }
    const job = (async () => {
      await this.acquire(agent);
      try {
        do {
          this.again.delete(key);
          await this.pass(agent, task_id);
        } while (this.again.has(key) && !this.stopped);
      } catch (err) {
        log.error({ err, agent_id, task_id }, "agent pass failed");
      } finally {
        this.release(agent);
        this.active.delete(key);
      }
    })();
    this.active.set(key, job);
  }

  private async acquire(agent: WorkspaceAgent) {
    const max = agent.card.limits?.max_concurrency ?? 1;
    const n = this.running.get(agent.agent_id) ?? 0;
    if (n < max) {
      this.running.set(agent.agent_id, n + 1);
      return;
    }
    await new Promise<void>((resolve) => {
      const q = this.waiting.get(agent.agent_id) ?? [];
      q.push(resolve);
      this.waiting.set(agent.agent_id, q);
    });
  }

  private release(agent: WorkspaceAgent) {
    const next = this.waiting.get(agent.agent_id)?.shift();
    if (next) next();
    else this.running.set(agent.agent_id, (this.running.get(agent.agent_id) ?? 1) - 1);
  }

  /** One wake of an instance: steps until its turn ends. */
  private async pass(agent: WorkspaceAgent, task_id: string): Promise<void> {
    const { queries } = this.deps.store;
    const row = await queries.task(task_id);
    if (!row || row.assignee !== agent.agent_id || TERMINAL_STATES.has(row.state as TaskState)) return;
    // A dispatch held for approval: the agent does not start until it is granted.
    if (await queries.pendingDispatchApproval(task_id)) return;
    const runLog = new RunLog(this.deps.store, row.run_id);
    let events = await runLog.refresh();
    const request = events.find(
      (e): e is StoredEventOf<"task.request"> => isEvent(e, "task.request") && e.task_id === task_id && e.to.some((t) => t.agent_id === agent.agent_id),
    );
    if (!request) return;
    const ctx = taskContext({
      agent,
      instance_id: `${agent.manifest.id}/${task_id}`,
      run_id: row.run_id,
      thread_id: row.thread_id,
      task_id,
      parent_task_id: row.parent_task_id,
      kind: request.meta?.review_of ? "review" : "work",
      request,
    });
    const actionDeps: ActionDeps = {
      store: this.deps.store,
      workspace: this.deps.workspace,
      tools: this.deps.tools,
      gate: this.deps.gate,
      runEvents: () => runLog.refresh(),
    };

    if (!events.some((e) => e.type === "task.accept" && e.task_id === task_id)) {
      await this.deps.store.append(
        ctx.envelope(
          "task.accept",
          { agent_id: agent.agent_id, instance_id: ctx.instance_id },
          { to: [{ agent_id: request.from.agent_id }], idempotency_key: `${ctx.instance_id}:accept` },
        ),
      );
    }
    const meta: SystemMeta = {
      agent_id: agent.agent_id,
      instance_id: ctx.instance_id,
      task_id,
      run_id: ctx.run_id,
      task_kind: ctx.kind,
      allowed_agents: agent.allowed_agents,
      overseer: agent.overseer,
    };
    const tools = await this.toolSet(agent);

    for (let i = 0; i < MAX_STEPS_PER_WAKE && !this.stopped; i++) {
      events = await runLog.refresh();
      if (events.some((e) => e.task_id === task_id && ENDINGS.has(e.type))) return;
      const conv = buildConversation(events, { agent_id: agent.agent_id, instance_id: ctx.instance_id, task_id }, systemPrompt(agent, ctx.kind), meta);
      if (conv.pending.length) {
        let waiting = false;
        for (const call of conv.pending) waiting = (await perform(ctx, call, actionDeps)) === "waiting" || waiting;
        if (waiting) return; // held for an approval: woken again when it is decided
        continue;
      }
      if (conv.idle) return;
      const step = conv.steps + 1;
      const seen_seq = events.at(-1)?.seq ?? 0;
      const result = await generateText({
        model: this.deps.modelFor(agent),
        system: conv.instructions,
        messages: conv.messages,
        tools,
        maxRetries: 2,
      });
      const text = result.text.trim();
      if (!result.toolCalls.length) {
        // The turn ends; if something arrived while the model was thinking, the conversation
        // shows it after this turn end (seen_seq) and the loop asks the model again.
        await this.deps.store.append(
          ctx.envelope(
            "task.progress",
            { message: text || "(waiting)" },
            {
              idempotency_key: `${ctx.instance_id}:${step}:turn-end`,
              meta: { agent: { instance_id: ctx.instance_id, step, seen_seq, text: text || "(waiting)" } },
            },
          ),
        );
        continue;
      }
      let first = true;
      let waiting = false;
      for (const call of result.toolCalls) {
        const r = await perform(ctx, { step, seen_seq, call_id: call.toolCallId, tool: call.toolName, input: call.input, ...(first && text ? { text } : {}) }, actionDeps);
        waiting = r === "waiting" || waiting;
        first = false;
      }
      if (waiting) return;
    }
  }

  private async toolSet(agent: WorkspaceAgent): Promise<ToolSet> {
    const set: ToolSet = {};
    for (const [name, schema] of Object.entries(BUILTIN_TOOLS)) {
      set[name] = tool({ description: BUILTIN_DESCRIPTIONS[name as keyof typeof BUILTIN_TOOLS], inputSchema: schema as never });
    }
    const servers = agent.manifest.mcp_bindings.map((b) => b.server_id);
    for (const t of await this.deps.tools.listTools(servers)) {
      const binding = agent.manifest.mcp_bindings.find((b) => b.server_id === t.server_id);
      if (!binding?.allowed_tools.includes(t.name)) continue;
      set[mcpToolName(t.server_id, t.name)] = tool({
        description: `${t.server_id}: ${t.description ?? t.name}`,
        inputSchema: jsonSchema(t.inputSchema as never),
      });
    }
    return set;
  }
}
