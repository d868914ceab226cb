/**
 * What people see of a model step while the model writes it (docs/channels.md "Streaming
 * replies"; server/streams/hub.ts): the step's text, and the text of each `reply`, `ask` and
 * `submit_result` call as its JSON input grows, each a stream whose id is the call's
 * (`stepStreamId`), so the stored event the call becomes names it (`streamIdOf`); and the
 * agent's status from the tool it starts ("querying DataServer", "asking Data Analyst").
 *
 *   const live = new StepStreams(hub, ctx, step, nameOf);
 *   for await (const part of result.fullStream) live.part(part);   // AI SDK stream parts
 *   … perform(call) …; live.done(call_id);                         // its event is stored
 *   live.close("done" | "interrupted", reason?);                    // the step is over
 *
 * A call's input is partial JSON while it streams: it is parsed (the AI SDK's
 * parsePartialJson) at most once per coalescing period, and the stream opens when its text
 * field first appears, by when its recipient is usually known. A stream a person stopped
 * (`stopped`) tells the runner not to store that call.
 */
import { parsePartialJson } from "ai";
import { stepStreamId, type StreamKind } from "@/lib/realtime/streams";
import type { StreamHub, StreamWriter } from "../streams/hub";
import type { TaskContext } from "./task-context";
import { parseMcpToolName } from "./contract";
import { normaliseTarget } from "./tool-calls";

/** The tools whose input holds text people read, the field it is in, and what the stream becomes. */
const TEXT_FIELDS: Record<string, { field: string; kind: StreamKind }> = {
  reply: { field: "text", kind: "message" },
  ask: { field: "question", kind: "question" },
  submit_result: { field: "report_markdown", kind: "result" },
};

interface CallStream {
  tool: string;
  json: string;
  writer: StreamWriter | null;
  parsing: boolean;
  dirty: boolean;
  /** The whole input arrived (`tool-call`): a partial parse still on its way must not show older text. */
  final: boolean;
}

/** Whether a call's input is read while it streams: the text tools, and delegate (for "asking …"). */
const watched = (tool: string) => Boolean(TEXT_FIELDS[tool]) || tool === "delegate";

/** One AI SDK stream part, as far as StepStreams reads it. */
export type StreamPart =
  | { type: "text-delta"; text: string }
  | { type: "tool-input-start"; id: string; toolName: string }
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | { type: string };

export class StepStreams {
  private text: StreamWriter | null = null;
  private readonly calls = new Map<string, CallStream>();
  private timer: NodeJS.Timeout | null = null;

  /** `nameOf` gives an agent's display name for statuses. */
  constructor(
    private readonly hub: StreamHub,
    private readonly ctx: TaskContext,
    private readonly step: number,
    private readonly nameOf: (agent_id: string) => string,
  ) {}

  /** Say what the agent does now (null: nothing). */
  status(status: string | null): void {
    this.hub.status({ thread_id: this.ctx.thread_id, run_id: this.ctx.run_id, task_id: this.ctx.task_id, agent_id: this.ctx.agent.agent_id, status });
  }

  /** One part of the model's stream. */
  part(p: StreamPart): void {
    if (p.type === "text-delta" && "text" in p) {
      this.text ??= this.open("text", "text", [this.ctx.request.from.agent_id]);
      this.text.append(p.text);
    } else if (p.type === "tool-input-start" && "toolName" in p && "id" in p) {
      this.calls.set(p.id, { tool: p.toolName, json: "", writer: null, parsing: false, dirty: false, final: false });
      const mcp = parseMcpToolName(p.toolName);
      if (mcp) this.status(`querying ${mcp.server_id}`);
      else if (p.toolName === "delegate") this.status("delegating");
      else if (p.toolName === "reply" || p.toolName === "submit_result") this.status("writing");
    } else if (p.type === "tool-input-delta" && "delta" in p && "id" in p) {
      const c = this.calls.get(p.id);
      if (!c || !watched(c.tool)) return;
      c.json += p.delta;
      c.dirty = true;
      // Until its stream opens, look at once: people see the first words without waiting a period.
      if (!c.writer) void this.parseAll();
      else this.timer ??= setTimeout(() => void this.parseAll(), this.hub.coalesceMs);
    } else if (p.type === "tool-call" && "toolCallId" in p) {
      const c = this.calls.get(p.toolCallId) ?? { tool: p.toolName, json: "", writer: null, parsing: false, dirty: false, final: false };
      this.calls.set(p.toolCallId, c);
      c.dirty = false;
      c.final = true;
      this.show(p.toolCallId, c, p.input);
    }
  }

  /** Whether a person stopped the stream of this call (or of the step's text, when `call_id` is null). */
  stopped(call_id: string | null): boolean {
    const w = call_id === null ? this.text : (this.calls.get(call_id)?.writer ?? null);
    return w?.ended?.status === "stopped";
  }

  /** Whether a person stopped any stream of this step. */
  anyStopped(): boolean {
    return this.stopped(null) || [...this.calls.keys()].some((id) => this.stopped(id));
  }

  /** The call's event is stored: its stream is done. */
  done(call_id: string): void {
    this.calls.get(call_id)?.writer?.end("done");
  }

  /** The step is over: every stream still open ends (`interrupted` when the model call failed). */
  close(status: "done" | "interrupted" = "done", reason?: string): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const extra = reason ? { reason } : {};
    this.text?.end(status, extra);
    for (const c of this.calls.values()) c.writer?.end(status, extra);
  }

  private open(id: string, kind: StreamKind, to: string[]): StreamWriter {
    const { thread_id, run_id, task_id } = this.ctx;
    return this.hub.open({ stream_id: stepStreamId(this.ctx.instance_id, this.step, id), thread_id, run_id, task_id, author: this.ctx.agent.agent_id, to, kind });
  }

  private async parseAll(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const [id, c] of this.calls) {
      if (!c.dirty || c.parsing || c.final || !watched(c.tool)) continue;
      c.dirty = false;
      c.parsing = true;
      const { value } = await parsePartialJson(c.json);
      c.parsing = false;
      if (!c.final && value && typeof value === "object" && !Array.isArray(value)) this.show(id, c, value);
    }
    if ([...this.calls.values()].some((c) => c.dirty)) this.timer ??= setTimeout(() => void this.parseAll(), this.hub.coalesceMs);
  }

  /** A call's input so far (or whole): its text into its stream, its recipient into the status. */
  private show(id: string, c: CallStream, input: unknown): void {
    const obj = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
    if (c.tool === "delegate" && typeof obj.agent_id === "string") this.status(`asking ${this.nameOf(normaliseTarget(obj.agent_id))}`);
    const spec = TEXT_FIELDS[c.tool];
    if (!spec) return;
    const text = obj[spec.field];
    if (typeof text !== "string" || !text) return;
    if (!c.writer) {
      const to = spec.kind === "result" ? [this.ctx.request.from.agent_id] : typeof obj.to === "string" ? [normaliseTarget(obj.to)] : [this.ctx.request.from.agent_id];
      if (c.tool === "ask" && to[0] !== "user") this.status(`asking ${this.nameOf(to[0]!)}`);
      c.writer = this.open(id, spec.kind, to);
    }
    c.writer.set(text);
  }
}
