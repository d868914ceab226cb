/**
 * One AG-UI run's events as Clutch events (docs/adapters.md "AG-UI agents in Clutch", the mapping
 * table). `AgUiRunMapper.onEvent` takes the events `@ag-ui/client`'s HttpAgent delivers (chunks
 * already expanded, the stream verified), in order, and appends to the log through the wake's
 * store, each with an idempotency key made of the task's instance, the attempt, the run's n and
 * the event's ordinal in the run (`<instance>:ag-ui:<attempt>:<n>:message:2`), so a run sent again
 * after a lost connection or a restart stores nothing twice:
 *
 *   TEXT_MESSAGE_START/CONTENT/END (assistant) → a live stream (StreamHub, kind "message") while it
 *                                                is written, then one chat.message with
 *                                                meta.stream_id to whoever asked (DriverWake
 *                                                `asker`: the delegating agent if it runs on a
 *                                                model, else the people in the channel); the
 *                                                stream ends "done"
 *   TOOL_CALL_START/ARGS/END                   → tool.call { call_id, tool, arguments }
 *   TOOL_CALL_RESULT                           → tool.result { call_id, tool, result } (JSON content
 *                                                parsed, other text kept as text)
 *   STEP_STARTED / STEP_FINISHED               → task.progress "<step>" / "Done: <step>", and the
 *                                                agent's status in the run is the open step
 *   RUN_FINISHED (success)                     → task.result { summary, report_markdown, data }: the
 *                                                last message's text, and the run's `result`
 *   RUN_FINISHED (interrupt)                   → one question per interrupt (chat.message
 *                                                expects_reply to the asker; meta.ag_ui.interrupt)
 *   RUN_FINISHED (cancelled)                   → task.error AG_UI_CANCELLED
 *   RUN_ERROR                                  → task.error AG_UI_RUN_ERROR (retryable), open
 *                                                streams end "interrupted" with its message
 * Other events (state, activity, reasoning, raw, custom) are not stored. Nothing is stored once
 * the wake's signal has aborted (a cancel, a timeout, Clutch stopping), nor once a person stopped
 * one of the run's streams (their Stop stores the text so far and cancels the task; the run is
 * aborted through `onStop`).
 */
import {
  contentToText,
  EventType,
  type BaseEvent,
  type ContentPart,
  type Interrupt,
  type RunErrorEvent,
  type RunFinishedEvent,
  type StepFinishedEvent,
  type StepStartedEvent,
  type TextMessageContentEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
  type ToolCallArgsEvent,
  type ToolCallEndEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
} from "@ag-ui/client";
import { newId } from "@/lib/protocol";
import { STREAM_META } from "@/lib/realtime/streams";
import { summarize, type DriverWake } from "../../agents/driver";
import type { StreamWriter } from "../../streams/hub";
import type { AgUiMeta } from "./client-log";

/** How the run ended, as far as this mapper saw. */
export type RunEnd = "finished" | "interrupted" | "failed" | "cancelled" | "aborted";

/** chat.message text is limited to 100,000 characters (lib/protocol/payloads.ts). */
const MAX_TEXT = 100_000;

/** A tool call's JSON arguments as an object (`{ value }` for another JSON value, `{ raw }` for text that is not JSON). */
export function argumentsOf(args: string): Record<string, unknown> {
  if (!args.trim()) return {};
  try {
    const v = JSON.parse(args) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { raw: args };
  }
}

/** A tool result's content: JSON parsed, other text as it is, content parts as their text. */
export function resultOf(content: string | ContentPart[]): unknown {
  const text = typeof content === "string" ? content : contentToText(content);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

interface OpenMessage {
  ordinal: number;
  text: string;
  /** Not the assistant's (an echo of the user's, a system note): not stored. */
  skip: boolean;
  writer: StreamWriter | null;
}

interface OpenTool {
  ordinal: number;
  name: string;
  args: string;
  stored: boolean;
}

export class AgUiRunMapper {
  /** Set once the run's end (or the wake's abort) was seen. */
  ended: RunEnd | null = null;
  private readonly messages = new Map<string, OpenMessage>();
  private readonly tools = new Map<string, OpenTool>();
  private readonly steps: { name: string; ordinal: number }[] = [];
  private counts = { message: 0, tool: 0, result: 0, step: 0 };
  private lastText = "";

  /**
   * `w` is the wake; `run` the AG-UI thread and run it maps (`run.run` its n within the attempt);
   * `onStop` is called when a person stopped one of the run's streams (the driver aborts the run).
   */
  constructor(
    private readonly w: DriverWake,
    private readonly run: Pick<AgUiMeta, "thread_id" | "run_id" | "run">,
    private readonly onStop: () => void = () => {},
  ) {}

  /** Whether a person stopped `m`'s stream: then the run stops and nothing more of it is stored (the Stop stored the text so far). */
  private stoppedBy(m: OpenMessage): boolean {
    if (m.writer?.ended?.status !== "stopped") return false;
    this.ended = "aborted";
    this.onStop();
    return true;
  }

  private key(what: string): string {
    return `${this.w.ctx.instance_id}:ag-ui:${this.w.attempt}:${this.run.run}:${what}`;
  }

  private meta(extra: Partial<AgUiMeta> = {}): { ag_ui: AgUiMeta } {
    return { ag_ui: { ...this.run, ...extra } };
  }

  private status(status: string | null): void {
    const { ctx } = this.w;
    this.w.streams?.status({ thread_id: ctx.thread_id, run_id: ctx.run_id, task_id: ctx.task_id, agent_id: ctx.agent.agent_id, status });
  }

  /** End every stream still open as interrupted (`reason` in people's words), and clear the status. */
  interrupt(reason: string): void {
    for (const m of this.messages.values()) m.writer?.end("interrupted", { reason });
    this.messages.clear();
    this.status(null);
  }

  /**
   * Map one event (see the module docstring). The SDK has checked its shape and its place in the
   * run before it arrives here. Throws when the store refuses an event.
   */
  async onEvent(event: BaseEvent): Promise<void> {
    if (this.w.signal.aborted || this.ended === "aborted") {
      this.ended = "aborted";
      return;
    }
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START: {
        const { messageId, role } = event as TextMessageStartEvent;
        this.messages.set(messageId, { ordinal: ++this.counts.message, text: "", skip: role !== undefined && role !== "assistant", writer: null });
        return;
      }
      case EventType.TEXT_MESSAGE_CONTENT: {
        const { messageId, delta } = event as TextMessageContentEvent;
        const m = this.messages.get(messageId);
        if (!m || m.skip || !delta || this.stoppedBy(m)) return;
        m.text += delta;
        if (m.writer) m.writer.append(delta);
        else if (this.w.streams) {
          const { ctx } = this.w;
          m.writer = this.w.streams.open({ thread_id: ctx.thread_id, run_id: ctx.run_id, task_id: ctx.task_id, author: ctx.agent.agent_id, to: [this.w.asker.agent_id], kind: "message" });
          m.writer.append(m.text);
        }
        return;
      }
      case EventType.TEXT_MESSAGE_END:
        return this.endMessage((event as TextMessageEndEvent).messageId);
      case EventType.TOOL_CALL_START: {
        const { toolCallId, toolCallName } = event as ToolCallStartEvent;
        this.tools.set(toolCallId, { ordinal: ++this.counts.tool, name: toolCallName, args: "", stored: false });
        return;
      }
      case EventType.TOOL_CALL_ARGS: {
        const { toolCallId, delta } = event as ToolCallArgsEvent;
        const t = this.tools.get(toolCallId);
        if (t) t.args += delta;
        return;
      }
      case EventType.TOOL_CALL_END:
        return this.storeCall((event as ToolCallEndEvent).toolCallId);
      case EventType.TOOL_CALL_RESULT: {
        const { toolCallId: call_id, content } = event as ToolCallResultEvent;
        await this.storeCall(call_id);
        const t = this.tools.get(call_id);
        const what = t ? `tool:${t.ordinal}:result` : `result:${++this.counts.result}`;
        await this.w.store.append(
          this.w.ctx.envelope("tool.result", { call_id, tool: t?.name || "unknown", result: resultOf(content) }, { idempotency_key: this.key(what), meta: this.meta({ tool_call_id: call_id }) }),
        );
        return;
      }
      case EventType.STEP_STARTED: {
        const name = (event as StepStartedEvent).stepName;
        const ordinal = ++this.counts.step;
        this.steps.push({ name, ordinal });
        await this.w.store.append(this.w.ctx.envelope("task.progress", { message: name, status: "working" }, { idempotency_key: this.key(`step:${ordinal}:started`), meta: this.meta({ step: name }) }));
        this.status(name);
        return;
      }
      case EventType.STEP_FINISHED: {
        const name = (event as StepFinishedEvent).stepName;
        const i = this.steps.map((s) => s.name).lastIndexOf(name);
        const ordinal = i >= 0 ? this.steps.splice(i, 1)[0]!.ordinal : ++this.counts.step;
        await this.w.store.append(this.w.ctx.envelope("task.progress", { message: `Done: ${name}`, status: "working" }, { idempotency_key: this.key(`step:${ordinal}:finished`), meta: this.meta({ step: name }) }));
        this.status(this.steps.at(-1)?.name ?? null);
        return;
      }
      case EventType.RUN_FINISHED:
        return this.finish(event as RunFinishedEvent);
      case EventType.RUN_ERROR: {
        const { message, code } = event as RunErrorEvent;
        this.ended = "failed";
        this.interrupt(message);
        await this.fail("AG_UI_RUN_ERROR", `${this.w.ctx.agent.agent_id} (AG-UI) failed: ${message}`, true, code ? { ag_ui_code: code } : undefined);
        return;
      }
      default:
        return;
    }
  }

  private async endMessage(messageId: string): Promise<void> {
    const m = this.messages.get(messageId);
    if (!m || this.stoppedBy(m)) return;
    this.messages.delete(messageId);
    if (m.skip || !m.text.trim()) {
      m.writer?.end("interrupted", { reason: "the message was empty" });
      return;
    }
    const text = m.text.length > MAX_TEXT ? `${m.text.slice(0, MAX_TEXT - 1)}…` : m.text;
    this.lastText = m.text;
    try {
      await this.w.store.append(
        this.w.ctx.envelope("chat.message", { text }, { to: [this.w.asker], idempotency_key: this.key(`message:${m.ordinal}`), meta: { ...(m.writer ? { [STREAM_META]: m.writer.stream_id } : {}), ...this.meta({ message_id: messageId }) } }),
      );
    } catch (err) {
      m.writer?.end("interrupted", { reason: "the message could not be stored" });
      throw err;
    }
    m.writer?.end("done");
  }

  private async storeCall(call_id: string): Promise<void> {
    const t = this.tools.get(call_id);
    if (!t || t.stored) return;
    t.stored = true;
    await this.w.store.append(
      this.w.ctx.envelope("tool.call", { call_id, tool: t.name, arguments: argumentsOf(t.args) }, { idempotency_key: this.key(`tool:${t.ordinal}:call`), meta: this.meta({ tool_call_id: call_id }) }),
    );
  }

  private async finish(event: RunFinishedEvent): Promise<void> {
    const outcome = event.outcome ?? { type: "success" as const };
    this.status(null);
    if (outcome.type === "interrupt") {
      this.ended = "interrupted";
      for (const [i, interrupt] of outcome.interrupts.entries()) await this.ask(interrupt, i + 1);
      return;
    }
    if (outcome.type === "cancelled") {
      this.ended = "cancelled";
      await this.fail("AG_UI_CANCELLED", `${this.w.ctx.agent.agent_id} (AG-UI) cancelled its run`, false);
      return;
    }
    this.ended = "finished";
    const result: unknown = event.result;
    const data = result === undefined ? "" : typeof result === "string" ? result : "```json\n" + JSON.stringify(result, null, 2) + "\n```";
    const report = this.lastText || data;
    const summary = summarize(report) || "Done.";
    await this.w.store.append(
      this.w.ctx.envelope(
        "task.result",
        { summary, report_markdown: report || summary, ...(result !== undefined ? { data: result } : {}) },
        { to: [{ agent_id: this.w.request.from.agent_id }], attempt: this.w.attempt, idempotency_key: `${this.w.ctx.instance_id}:ag-ui:${this.w.attempt}:result`, meta: this.meta() },
      ),
    );
  }

  /** One interrupt as a question to whoever the task's questions go to. */
  private async ask(interrupt: Interrupt, ordinal: number): Promise<void> {
    const text = interrupt.message?.trim() || `${this.w.ctx.agent.card.display.name} needs input to go on (${interrupt.reason}).`;
    await this.w.store.append(
      this.w.ctx.envelope(
        "chat.message",
        { text, expects_reply: true },
        {
          id: newId("message"),
          to: [this.w.asker],
          idempotency_key: this.key(`interrupt:${ordinal}`),
          meta: this.meta({
            interrupt: {
              id: interrupt.id,
              reason: interrupt.reason,
              ...(interrupt.responseSchema ? { response_schema: interrupt.responseSchema } : {}),
              ...(interrupt.toolCallId ? { tool_call_id: interrupt.toolCallId } : {}),
            },
          }),
        },
      ),
    );
  }

  /** task.error of the attempt (one per attempt). */
  async fail(code: string, message: string, retryable: boolean, details?: Record<string, unknown>): Promise<void> {
    await this.w.store.append(
      this.w.ctx.envelope(
        "task.error",
        { code, message, retryable, ...(details ? { details } : {}) },
        { to: [{ agent_id: this.w.request.from.agent_id }], attempt: this.w.attempt, idempotency_key: `${this.w.ctx.instance_id}:ag-ui:${this.w.attempt}:error`, meta: this.meta() },
      ),
    );
  }
}
