/**
 * LangGraph agents (Clutch Protocol §7, docs/adapters.md "LangGraph"): a workspace agent whose
 * manifest names `runtime: { kind: "langgraph", module, export }` is a compiled LangGraph JS graph
 * (`@langchain/langgraph`) that the module exports; one with `runtime: { kind: "langgraph-server",
 * url, assistant_id, headers }` a graph served by a LangGraph server (`@langchain/langgraph-sdk`;
 * hosts.ts). A task runs the graph on a LangGraph thread of its own (named after `<task id>#<attempt>`)
 * with the request as its first message (`{ messages: [human] }`, the MessagesAnnotation
 * convention), streamed with subgraphs in `updates`, `custom` and `messages` modes:
 *
 *   a subgraph's run (its namespace)      → a subtask of the task, assigned to `<agent>/<node>`,
 *                                           ended with its last message when the node finishes
 *   an AI message of a node               → chat.message in its (sub)task, to the graph's agent
 *                                           (the run's thread); the graph's last one is the
 *                                           task's result (task.result report_markdown)
 *   a custom stream write (`config.writer`) → task.progress
 *   `interrupt("…")` / `interrupt({ question })` → a question to whoever asked (people, or the
 *                                           delegating agent); resumed with the answer's text
 *   `interrupt({ approval, arguments?, preview? })` → an approval in the channel (approvers as the
 *                                           policy says, else anyone); resumed with
 *                                           `{ approved, comment?, arguments? }`
 *   `interrupt({ delegate: { agent | requires, title, instructions? } })` → a subtask for another
 *                                           agent (one of allowed_agents, or routed by
 *                                           capability); resumed with its result or `{ error }`
 *   an exception                          → task.error LANGGRAPH_ERROR
 * A cancel or timeout aborts the graph (its signal; on a server, its run is cancelled). The thread
 * is kept between wakes by the server, or by the module's checkpointer if it compiled one, else
 * on PostgreSQL by LangGraph's PostgresSaver (schema `langgraph`: an interrupted thread resumes
 * where it stopped after a restart, on any node), else (the embedded database) by an in-memory
 * MemorySaver, with which a restart runs the task again.
 *
 * Streaming (docs/adapters.md "LangGraph", with the wake's StreamHub, server/streams/hub.ts): the
 * AI message chunks a node's chat model streams (`messages` mode here; `messages-tuple` on a
 * server, whose events are named `messages`) grow one hub stream per message id (kind `text`, in
 * the (sub)task, from its agent, to the graph's agent as its chat.message will be). The stream
 * ends `done` once that message is stored (its chat.message or the task.result, with
 * `meta.stream_id`; the final text set to the stored one), `interrupted` when the wake ends
 * without storing it (the graph failed, was cancelled, or a node stopped before returning it).
 * Whole messages (a node's output that no model streamed) are not streamed: they arrive whole. A
 * person's Stop on one of them aborts the graph (on a server, its run is cancelled) and stores
 * nothing more in the wake: the Stop stores the partial text.
 */
import { isAIMessage, isAIMessageChunk, isBaseMessage, isBaseMessageChunk } from "@langchain/core/messages";
import { capAgentIdToClutch, isEvent, makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import { STREAM_META } from "@/lib/realtime/streams";
import type { StreamWriter } from "../../streams/hub";
import { fixedRouting, ORCHESTRATOR } from "../../router/router";
import { answerTo, expandEnv, expandHeaders, requestText, summarize, type DriverWake, type RuntimeDriver } from "../../agents/driver";
import { loadGraph, localHost, serverHost, type CheckpointerSource, type GraphHost, type Interrupt, type StreamInput } from "./hosts";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A message as a graph's state holds it: a LangChain message here, its JSON from a LangGraph server. */
type GraphMessage = { id?: string; content: unknown };

function isAI(m: unknown): m is GraphMessage {
  if (isBaseMessage(m)) return isAIMessage(m);
  return isRecord(m) && (m.type === "ai" || m.type === "AIMessageChunk");
}

/** A streamed AI message chunk: an AIMessageChunk here, `type: "AIMessageChunk"` in a server's JSON. */
function isAIChunk(m: unknown): m is GraphMessage {
  if (isBaseMessageChunk(m)) return isAIMessageChunk(m);
  return !isBaseMessage(m) && isRecord(m) && m.type === "AIMessageChunk";
}

/** The text of a message's content (a string, or content blocks of which the text ones count). */
function textOf(m: GraphMessage): string {
  if (typeof m.content === "string") return m.content;
  if (!Array.isArray(m.content)) return "";
  return m.content.map((b) => (isRecord(b) && b.type === "text" && typeof b.text === "string" ? b.text : "")).join("");
}

/** AI messages with text in a node's update. */
function aiMessages(update: unknown): GraphMessage[] {
  const messages = isRecord(update) && Array.isArray(update.messages) ? (update.messages as unknown[]) : [];
  return messages.filter((m): m is GraphMessage => isAI(m) && textOf(m).trim() !== "");
}

/** A subtask the graph hands to another agent of the team. */
interface Delegation {
  agent?: string;
  requires?: string[];
  title: string;
  instructions?: string;
}

/** What an interrupt asks for: a delegation, an approval, or a question (any other value, shown as text). */
function askedFor(value: unknown): { delegate: Delegation } | { approval: { summary: string; arguments?: Record<string, unknown>; preview?: string } } | { question: string } {
  const d = isRecord(value) && isRecord(value.delegate) ? value.delegate : null;
  if (d && typeof d.title === "string" && (typeof d.agent === "string" || Array.isArray(d.requires))) {
    return {
      delegate: {
        title: d.title,
        ...(typeof d.agent === "string" ? { agent: d.agent } : {}),
        ...(Array.isArray(d.requires) ? { requires: d.requires.filter((r): r is string => typeof r === "string") } : {}),
        ...(typeof d.instructions === "string" ? { instructions: d.instructions } : {}),
      },
    };
  }
  if (isRecord(value) && typeof value.approval === "string") {
    return { approval: { summary: value.approval, ...(isRecord(value.arguments) ? { arguments: value.arguments } : {}), ...(typeof value.preview === "string" ? { preview: value.preview } : {}) } };
  }
  if (typeof value === "string") return { question: value };
  if (isRecord(value) && typeof value.question === "string") return { question: value.question };
  return { question: "```json\n" + JSON.stringify(value, null, 2) + "\n```" };
}

export class LangGraphDriver implements RuntimeDriver {
  /**
   * `workspaceDir`: where module paths in manifests start. `checkpointer`: where in-process graphs
   * without one of their own keep their threads (PostgreSQL: `postgresCheckpointer`).
   */
  constructor(
    private readonly workspaceDir: string | null,
    private readonly checkpointer?: CheckpointerSource,
  ) {}

  /** The host of the agent's graph: its module loaded here, or its LangGraph server. */
  private async host(w: DriverWake): Promise<GraphHost | null> {
    const runtime = w.ctx.agent.manifest.runtime;
    const key = `${w.ctx.task_id}#${w.attempt}`;
    const clutch = { run_id: w.ctx.run_id, task_id: w.ctx.task_id, thread_id: w.ctx.thread_id };
    if (runtime.kind === "langgraph-server") return serverHost(expandEnv(runtime.url), expandHeaders(runtime.headers), runtime.assistant_id, key, clutch);
    if (runtime.kind !== "langgraph") return null;
    return localHost(await loadGraph(this.workspaceDir ?? process.cwd(), runtime.module, runtime.export, this.checkpointer), key, clutch);
  }

  async wake(w: DriverWake): Promise<void> {
    let host: GraphHost | null;
    try {
      host = await this.host(w);
    } catch (err) {
      await this.fail(w, `${w.ctx.agent.agent_id}'s graph could not be loaded: ${(err as Error).message}`);
      return;
    }
    if (!host) return;
    const run = new GraphRun(w);
    try {
      await this.turns(w, host, run);
    } finally {
      run.close();
    }
  }

  /** Each turn: start, resume an answered interrupt, or carry on; until the graph ends or waits. */
  private async turns(w: DriverWake, host: GraphHost, run: GraphRun): Promise<void> {
    const signal = run.signal;
    for (let turn = 0; turn < 100 && !signal.aborted; turn++) {
      let input: StreamInput;
      try {
        const state = await host.state();
        const interrupt = state.interrupts[0];
        if (interrupt) {
          const resume = await run.resumeValue(interrupt);
          if (resume === undefined) return; // asked, and waiting for a person or an agent
          input = { resume };
        } else if (state.next.length) {
          input = null; // stopped between nodes: carry on
        } else if (state.started) {
          await run.finish(state.values);
          return;
        } else {
          input = { start: requestText(w.request) };
        }
        for await (const chunk of host.stream(input, signal)) await run.onChunk(...chunk);
      } catch (err) {
        if (signal.aborted) return;
        run.unfinished = `the graph failed: ${(err as Error).message}`;
        await run.endSubtasks(`the graph failed: ${(err as Error).message}`);
        await this.fail(w, `${w.ctx.agent.agent_id}'s graph failed: ${(err as Error).message}`);
        return;
      }
    }
  }

  private async fail(w: DriverWake, message: string): Promise<void> {
    await w.store.append(
      w.ctx.envelope("task.error", { code: "LANGGRAPH_ERROR", message, retryable: false }, { to: [{ agent_id: w.request.from.agent_id }], attempt: w.attempt, idempotency_key: `${w.ctx.instance_id}:lg:${w.attempt}:error` }),
    );
  }
}

/** One wake's graph stream turned into Clutch events (see the module doc). */
class GraphRun {
  /** Open subtasks by namespace head (`<node>:<uuid>`). */
  private readonly subtasks = new Map<string, { task_id: string; node: string; agent_id: string; last: string }>();
  /** The newest top-level AI message, held back: the last one is the result, not a chat message. */
  private held: GraphMessage | null = null;
  /** Ids of messages already posted in a subtask: the parent graph's update repeats them. */
  private readonly subtaskMessageIds = new Set<string>();
  private readonly key: (what: string) => string;
  /** The hub streams of AI messages being written, by message id (none without a hub). */
  private readonly streams = new Map<string, StreamWriter>();
  /** Aborted by a person's Stop on one of them; `signal` is the wake's and this together. */
  private readonly stop = new AbortController();
  readonly signal: AbortSignal;
  private readonly unlisten: (() => void) | undefined;
  /** Why streams still open when the wake ends did not become a stored event. */
  unfinished = "the graph stopped before the message was stored";

  constructor(private readonly w: DriverWake) {
    this.key = (what) => `${w.ctx.instance_id}:lg:${w.attempt}:${what}`;
    this.signal = AbortSignal.any([w.signal, this.stop.signal]);
    this.unlisten = w.streams?.listen((e) => {
      if ("end" in e && e.end.status === "stopped" && [...this.streams.values()].some((s) => s.stream_id === e.end.stream_id)) this.stopped(e.end.stopped_by);
    });
  }

  /** A person stopped a message as it streamed: the graph stops and nothing more is stored. */
  private stopped(by?: string): void {
    this.unfinished = "a person stopped the reply";
    this.stop.abort(new Error(`stopped by ${by ?? "a person"}`));
  }

  /** The wake is over: streams whose message was not stored end interrupted. */
  close(): void {
    this.unlisten?.();
    if (this.w.signal.aborted && !this.stop.signal.aborted) this.unfinished = "the task was cancelled or timed out";
    for (const s of this.streams.values()) s.end("interrupted", { reason: this.unfinished });
    this.streams.clear();
  }

  /** A chat model's chunk of an AI message (`messages` mode): its message's stream grows. */
  private async onMessageChunk(ns: string[], data: unknown): Promise<void> {
    const hub = this.w.streams;
    const m = Array.isArray(data) ? (data[0] as unknown) : undefined;
    if (!hub || !isAIChunk(m) || !m.id) return;
    const text = textOf(m);
    let writer = this.streams.get(m.id);
    if (!writer) {
      if (!text) return; // a tool call's chunk, not text
      const sub = ns.length ? await this.subtask(ns[0]!) : undefined;
      writer = hub.open({
        thread_id: this.w.ctx.thread_id,
        run_id: this.w.ctx.run_id,
        task_id: sub?.task_id ?? this.w.ctx.task_id,
        author: sub?.agent_id ?? this.w.ctx.agent.agent_id,
        to: [this.w.ctx.agent.agent_id],
        kind: "text",
      });
      this.streams.set(m.id, writer);
    }
    if (writer.ended?.status === "stopped") return this.stopped(writer.ended.stopped_by);
    writer.append(text);
  }

  /**
   * The stream of message `m`, to name in its stored event, with its final text set; null when it
   * did not stream; `stopped` when a person stopped it (it is not stored).
   */
  private streamOf(m: GraphMessage): StreamWriter | "stopped" | null {
    const writer = m.id ? this.streams.get(m.id) : undefined;
    if (!writer) return null;
    if (writer.ended?.status === "stopped") {
      this.stopped(writer.ended.stopped_by);
      return "stopped";
    }
    writer.set(textOf(m));
    return writer;
  }

  /** The message's stream is its stored event now. */
  private streamed(m: GraphMessage, writer: StreamWriter | null): void {
    if (!writer) return;
    writer.end("done");
    this.streams.delete(m.id!);
  }

  private at(sub?: { task_id: string; agent_id: string }) {
    return sub ? { task_id: sub.task_id, parent_task_id: this.w.ctx.task_id, from: { agent_id: sub.agent_id, role: "worker" } } : {};
  }

  async onChunk(ns: string[], mode: "updates" | "custom" | "messages", data: unknown): Promise<void> {
    const { w } = this;
    if (this.signal.aborted) return;
    if (mode === "messages") return this.onMessageChunk(ns, data);
    const sub = ns.length ? await this.subtask(ns[0]!) : undefined;
    if (mode === "custom") {
      const message = typeof data === "string" ? data : isRecord(data) && typeof data.message === "string" ? data.message : JSON.stringify(data);
      await w.store.append(w.ctx.envelope("task.progress", { message }, { ...this.at(sub), idempotency_key: this.key(`progress:${newId("message")}`) }));
      return;
    }
    if (!isRecord(data)) return;
    for (const [node, update] of Object.entries(data)) {
      if (node === "__interrupt__") continue;
      for (const m of aiMessages(update)) {
        if (sub) {
          sub.last = textOf(m);
          await this.chat(m, sub);
        } else if (!this.isSubtaskMessage(m)) {
          if (this.held && this.held.id !== m.id) await this.chat(this.held);
          this.held = m;
        }
      }
      // A node of the graph finished: the subtask of its subgraph, if any, ends with its last message.
      if (!sub) await this.endSubtask(node);
    }
  }

  private isSubtaskMessage(m: GraphMessage): boolean {
    return Boolean(m.id && this.subtaskMessageIds.has(m.id));
  }

  private async chat(m: GraphMessage, sub?: { task_id: string; agent_id: string }): Promise<void> {
    if (sub && m.id) this.subtaskMessageIds.add(m.id);
    const id = m.id ?? newId("message");
    const stream = this.streamOf(m);
    if (stream === "stopped") return;
    // The graph's working notes, addressed to the graph's agent: they belong in the run's thread, not the channel.
    await this.w.store.append(
      this.w.ctx.envelope("chat.message", { text: textOf(m) }, { ...this.at(sub), to: [{ agent_id: this.w.ctx.agent.agent_id }], idempotency_key: this.key(`message:${id}`), ...(stream ? { meta: { [STREAM_META]: stream.stream_id } } : {}) }),
    );
    this.streamed(m, stream);
  }

  /** The subtask of a subgraph's namespace, created (request + accept) on first sight. */
  private async subtask(head: string) {
    let sub = this.subtasks.get(head);
    if (sub) return sub;
    const { w } = this;
    const node = head.split(":")[0]!;
    sub = { task_id: newId("task"), node, agent_id: `${w.ctx.agent.agent_id}/${node}`, last: "" };
    this.subtasks.set(head, sub);
    await w.store.append([
      w.ctx.envelope(
        "task.request",
        { title: node, instructions: `The ${node} subgraph of ${w.ctx.agent.agent_id}'s graph`, context_summary: String(w.request.payload.title ?? "") },
        { task_id: sub.task_id, parent_task_id: w.ctx.task_id, to: [{ agent_id: sub.agent_id }], meta: { langgraph: { namespace: head } }, idempotency_key: this.key(`sub:${head}`) },
      ),
      w.ctx.envelope("task.accept", { agent_id: sub.agent_id }, { ...this.at(sub), to: [{ agent_id: w.ctx.agent.agent_id }], idempotency_key: this.key(`sub:${head}:accept`) }),
    ]);
    return sub;
  }

  /** End the open subtask of `node` (the oldest, should the node run twice) with its last message. */
  private async endSubtask(node: string): Promise<void> {
    const entry = [...this.subtasks.entries()].find(([, s]) => s.node === node);
    if (!entry) return;
    const [head, sub] = entry;
    this.subtasks.delete(head);
    const report = sub.last || `${node} finished`;
    await this.w.store.append(this.w.ctx.envelope("task.result", { summary: summarize(report), report_markdown: report }, { ...this.at(sub), to: [{ agent_id: this.w.ctx.agent.agent_id }], idempotency_key: this.key(`sub:${head}:result`) }));
  }

  /** End every open subtask with an error (the graph failed). */
  async endSubtasks(message: string): Promise<void> {
    for (const [head, sub] of this.subtasks) {
      await this.w.store.append(
        this.w.ctx.envelope("task.error", { code: "LANGGRAPH_ERROR", message, retryable: false }, { ...this.at(sub), to: [{ agent_id: this.w.ctx.agent.agent_id }], idempotency_key: this.key(`sub:${head}:error`) }),
      );
    }
    this.subtasks.clear();
  }

  /**
   * What to resume an interrupt with, once it is answered or decided; undefined while it waits.
   * Asks for it (the question, or the approval) the first time.
   */
  async resumeValue(interrupt: Interrupt): Promise<unknown> {
    const { w } = this;
    if (this.held) {
      await this.chat(this.held);
      this.held = null;
      if (this.signal.aborted) return undefined; // a person stopped it: nothing more is asked
    }
    const asked = askedFor(interrupt.value);
    const tag = interrupt.id ?? "interrupt";
    if ("delegate" in asked) return this.delegation(asked.delegate, tag);
    if ("approval" in asked) {
      if (!w.gate) return { approved: true };
      const gate = await w.gate({
        key: this.key(`interrupt:${tag}`),
        subject: { kind: "tool_call", agent: w.ctx.agent.agent_id, tool: "interrupt" },
        at: { thread_id: w.ctx.thread_id, run_id: w.ctx.run_id, task_id: w.ctx.task_id, parent_task_id: w.ctx.parent_task_id },
        summary: asked.approval.summary,
        ...(asked.approval.arguments ? { arguments: asked.approval.arguments } : {}),
        ...(asked.approval.preview ? { preview: asked.approval.preview } : {}),
        require: true,
      });
      if (gate.status === "wait") return undefined;
      if (gate.status === "go") return { approved: true, ...(gate.arguments ? { arguments: gate.arguments } : {}) };
      return { approved: false, comment: gate.message };
    }
    const events = await w.events();
    const question = events.find((e: StoredEvent) => e.task_id === w.ctx.task_id && (e.meta as { langgraph?: { interrupt_id?: string } } | undefined)?.langgraph?.interrupt_id === tag && e.id);
    if (!question) {
      await w.store.append(
        w.ctx.envelope("chat.message", { text: asked.question, expects_reply: true }, { to: [w.asker], idempotency_key: this.key(`interrupt:${tag}`), meta: { langgraph: { interrupt_id: tag } } }),
      );
      return undefined;
    }
    return answerTo(events, question.id)?.payload.text;
  }

  /**
   * A delegation the graph asked for: the subtask is created the first time (to the agent it names,
   * which must be in the manifest's allowed_agents, or routed by capability); once it has ended,
   * the graph resumes with its result (`{ summary, report_markdown, … }`) or `{ error }`.
   */
  private async delegation(d: Delegation, tag: string): Promise<unknown> {
    const { w } = this;
    const events = await w.events();
    const request = events.find((e) => e.type === "task.request" && e.parent_task_id === w.ctx.task_id && (e.meta as { langgraph?: { interrupt_id?: string } } | undefined)?.langgraph?.interrupt_id === tag);
    if (request) {
      const end = events.find((e) => e.task_id === request.task_id && ["task.result", "task.error", "task.timeout", "task.cancel"].includes(e.type));
      if (!end) return undefined;
      if (isEvent(end, "task.result")) return { ...end.payload, from: end.from.agent_id };
      return { error: isEvent(end, "task.error") ? `${end.payload.code}: ${end.payload.message}` : `the subtask ended: ${end.type}` };
    }
    const target = d.agent ? capAgentIdToClutch(d.agent.replace(/^agent:/, "")) : null;
    if (target && !w.ctx.agent.allowed_agents.includes(target)) {
      return { error: `${target} is not in ${w.ctx.agent.agent_id}'s allowed_agents (${w.ctx.agent.allowed_agents.join(", ") || "none"})` };
    }
    const ids = { thread_id: w.ctx.thread_id, run_id: w.ctx.run_id, task_id: newId("task"), parent_task_id: w.ctx.task_id };
    const payload = { title: d.title, instructions: d.instructions ?? d.title, context_summary: `Delegated by ${w.ctx.agent.agent_id} for "${String(w.request.payload.title ?? w.ctx.task_id)}"` };
    const meta = { langgraph: { interrupt_id: tag } };
    const from = { agent_id: w.ctx.agent.agent_id, role: "worker" };
    await w.store.append(
      target
        ? [
            fixedRouting(ids, target, { reason: `${w.ctx.agent.card.display.name}'s graph delegated to ${target.replace(/^agent:/, "")} by name` }, this.key(`delegate:${tag}:routing`)),
            makeMessage({ type: "task.request", ...ids, from, to: [{ agent_id: target }], payload, meta, idempotency_key: this.key(`delegate:${tag}`) }),
          ]
        : [makeMessage({ type: "task.request", ...ids, from, to: [ORCHESTRATOR], requires: d.requires ?? [], payload, meta, idempotency_key: this.key(`delegate:${tag}`) })],
    );
    return undefined;
  }

  /** The graph ended: its last AI message (or its state) is the task's result. */
  async finish(values: unknown): Promise<void> {
    const { w } = this;
    const messages = isRecord(values) && Array.isArray(values.messages) ? (values.messages as unknown[]) : [];
    const last = [...messages].reverse().find((m): m is GraphMessage => isAI(m) && textOf(m).trim() !== "");
    if (this.held && last && this.held.id !== last.id) await this.chat(this.held);
    this.held = null;
    const report = last ? textOf(last) : "```json\n" + JSON.stringify(values, null, 2) + "\n```";
    const stream = last ? this.streamOf(last) : null;
    if (stream === "stopped") return;
    await w.store.append(
      w.ctx.envelope(
        "task.result",
        { summary: summarize(report) || "Done.", report_markdown: report },
        { to: [{ agent_id: w.request.from.agent_id }], attempt: w.attempt, idempotency_key: this.key("result"), ...(stream ? { meta: { [STREAM_META]: stream.stream_id } } : {}) },
      ),
    );
    if (last) this.streamed(last, stream);
  }
}
