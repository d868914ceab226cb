/**
 * A Clutch run as AG-UI 1.0 events (`@ag-ui/core`; docs/adapters.md "AG-UI: Clutch's agents as
 * AG-UI agents"): the run's stored events (server/runs/remote.ts `followRun`) and its live text
 * streams (server/streams/hub.ts; lib/realtime/streams.ts) go in, in the order they arrive; the
 * events an AG-UI client (`@ag-ui/client`'s HttpAgent, CopilotKit) expects come out through
 * `emit`, each checked against the official EventSchema first.
 *
 *   start                                   RUN_STARTED (the caller's threadId and runId; Clutch's
 *                                           ids in `metadata.clutch`), then STATE_SNAPSHOT
 *   a stream of an agent's chat message or  TEXT_MESSAGE_START (messageId = the stream id, name =
 *     question opens                        the agent's display name), CONTENT with its text so far
 *   it grows                                TEXT_MESSAGE_CONTENT with what was added
 *   its stored event arrives                CONTENT with the rest (if any), TEXT_MESSAGE_END
 *   a stored agent chat.message that        START / CONTENT (all of it) / END, messageId = the
 *     never streamed                        event's id
 *   the root task's report streams          the same, once its text is not what an agent just said
 *                                           in a chat message (an agent that posts its report and
 *                                           then submits it is heard once)
 *   tool.call                               TOOL_CALL_START / ARGS (its arguments as JSON) / END;
 *                                           toolCallId `<task_id>:<call_id>`
 *   tool.result / tool.error                TOOL_CALL_RESULT (the result as text or JSON; an error
 *                                           as "Error <code>: <message>", `metadata.clutch.error`)
 *   task.progress with a message            STEP_FINISHED of the task's previous progress step,
 *                                           STEP_STARTED "<agent>: <message>" (the same message
 *                                           again leaves the step open)
 *   task.request of a subtask (delegation)  STEP_STARTED "<agent> → <agent>: <title>"
 *   a task ends                             STEP_FINISHED of its steps
 *   a task changes state                    STATE_SNAPSHOT { run_id, thread_id, channel, state,
 *                                           tasks: [{ task_id, parent_task_id, title, assignee, state }] }
 *   a question to people (the caller or     RUN_FINISHED, outcome interrupt: one Interrupt whose
 *     `user`) that nobody answered yet      id is the question's event id (see `interruptOf`)
 *   the root task's task.result             its report as a message (unless an agent said that
 *                                           text in this run), RUN_FINISHED with the payload as
 *                                           `result`
 *   its task.error / timeout / cancel       RUN_ERROR with its message (code: the error's code,
 *                                           TIMED_OUT, CANCELLED)
 *
 * Before RUN_FINISHED or RUN_ERROR every open text message is ended and every open step
 * finished, so the stream is balanced as the client's verifier requires. Text only grows in
 * AG-UI: when a stored message does not continue what its stream sent (a writer rewrote its
 * text), the stream is ended and the stored text follows as a message of its own. A model
 * turn's own text (stream kind `text`) is not sent: it is stored as no message.
 *
 * Pure apart from `emit` and the one read `stored` may make (`answered`): no HTTP, no store.
 */
import { EventType, PROTOCOL_VERSION, type Event as AgUiEvent, type Interrupt } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { isPeopleRecipient } from "@/lib/fold/questions";
import { foldTask, type TaskView } from "@/lib/fold/task-state";
import { runStateOf } from "@/lib/fold/run-state";
import { streamIdOf, type StreamDelta, type StreamEnd, type StreamInfo } from "@/lib/realtime/streams";

/** The Clutch run an AG-UI run follows, and the AG-UI ids the caller gave it. */
export interface FollowedRun {
  run_id: string;
  /** The run's root task. */
  task_id: string;
  /** The channel's thread. */
  thread_id: string;
  channel: string;
  /** The caller's `agent_id` (`user:…` or `agent:…`): a question to them interrupts too. */
  caller: string;
  /** AG-UI's RunAgentInput.threadId and .runId. */
  ag_ui: { thread_id: string; run_id: string };
}

/** What the live text streams say (server/streams/hub.ts HubEvent, those of streams). */
export type StreamMessage = { open: StreamInfo } | { delta: StreamDelta; run_id: string | null } | { end: StreamEnd; run_id: string | null };

/** How the AG-UI run ended, once it has. */
export type Ending = "finished" | "interrupted" | "error";

/** The answer schema of an interrupt: the Interrupt's `responseSchema` (a resume entry's `payload`). */
export const ANSWER_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string", minLength: 1, description: "The answer to the question, as a person would write it in the channel" } },
  required: ["answer"],
} as const;

/** Why a Clutch question interrupts the AG-UI run (Interrupt.reason). */
export const INTERRUPT_REASON = "input_required";

/** Longest step name (characters); longer progress messages are cut with "…". */
const MAX_STEP_NAME = 200;

const bare = (id: string) => id.replace(/^(agent|user):/, "");

/** True for a question to people in a run: a chat.message expecting a reply, to `user`, a person, or `caller`. */
export function isQuestionFor(ev: StoredEvent, caller: string): ev is StoredEventOf<"chat.message"> {
  return isEvent(ev, "chat.message") && ev.payload.expects_reply === true && ev.to.some((t) => t.agent_id === "user" || t.agent_id === caller);
}

/** The text a root task.result reports: its `report_markdown`, else its `summary`, else "". */
export function reportOf(payload: Record<string, unknown>): string {
  if (typeof payload.report_markdown === "string" && payload.report_markdown.trim()) return payload.report_markdown;
  return typeof payload.summary === "string" ? payload.summary : "";
}

/** A tool's result as the text of TOOL_CALL_RESULT: a string as it is, anything else as JSON. */
function resultText(result: unknown): string {
  if (typeof result === "string") return result;
  return JSON.stringify(result ?? null) ?? "null";
}

/** A text message being written from a stream. */
interface OpenText {
  messageId: string;
  info: StreamInfo;
  /** The stream's text as the hub has it. */
  text: string;
  /** What was sent as CONTENT so far. */
  sent: string;
  /** TEXT_MESSAGE_START was sent (a report's waits while it repeats what an agent said). */
  started: boolean;
  /** It ended here: TEXT_MESSAGE_END was sent, or (not started) it was dropped. */
  closed: boolean;
}

export class RunEventMapper {
  private readonly texts = new Map<string, OpenText>();
  /** Streams whose stored event was handled: their late hub messages are ignored. */
  private readonly storedStreams = new Set<string>();
  /** tool.call `<task_id>:<call_id>` → whether its TOOL_CALL_RESULT was sent. */
  private readonly toolCalls = new Map<string, boolean>();
  /** Open steps by what opened them (`progress:<task_id>`, `task:<task_id>`) → their stepName. */
  private readonly steps = new Map<string, string>();
  /** What each open step said, before it was cut or made unique. */
  private readonly stepLines = new Map<string, string>();
  private readonly tasks = new Map<string, TaskView>();
  private lastState = "";
  /** The texts of the agents' chat messages stored in this follow (a report that repeats one is not sent). */
  private readonly said: string[] = [];
  private ending: Ending | null = null;

  /**
   * `emit` sends one AG-UI event; `nameOf` gives an agent's display name; `answered` says whether
   * someone replied to a question already (read when a question comes, to interrupt only for
   * one that still waits).
   */
  constructor(
    private readonly run: FollowedRun,
    private readonly emit: (event: AgUiEvent) => void,
    private readonly nameOf: (agent_id: string) => string,
    private readonly answered: (question: StoredEventOf<"chat.message">) => Promise<boolean>,
  ) {}

  /** How the AG-UI run ended; null while it goes on. */
  get ended(): Ending | null {
    return this.ending;
  }

  /** Fold the run's events before the follow begins (a resumed run's earlier tasks), sending nothing. */
  seed(events: readonly StoredEvent[]): void {
    for (const ev of events) this.fold(ev);
    this.lastState = JSON.stringify(this.state());
  }

  /** RUN_STARTED, then the state as it stands. */
  start(): void {
    const { run_id, task_id, thread_id, channel } = this.run;
    this.send({
      type: EventType.RUN_STARTED,
      threadId: this.run.ag_ui.thread_id,
      runId: this.run.ag_ui.run_id,
      protocolVersion: PROTOCOL_VERSION,
      metadata: { clutch: { run_id, task_id, thread_id, channel } },
    });
    this.snapshot(true);
  }

  /** A message of the live streams (any run's: others are ignored). */
  stream(msg: StreamMessage): void {
    if (this.ending) return;
    if ("open" in msg) return this.opened(msg.open);
    if (msg.run_id !== this.run.run_id) return;
    if ("delta" in msg) return this.grew(msg.delta);
    this.streamEnded(msg.end);
  }

  /** One stored event of the run, in seq order. */
  async stored(ev: StoredEvent): Promise<void> {
    if (this.ending || ev.run_id !== this.run.run_id) return;
    const changed = this.fold(ev);
    const root = ev.task_id === this.run.task_id;
    if (isEvent(ev, "chat.message")) {
      if (!isPeopleRecipient(ev.from)) this.message(ev, ev.payload.text);
      if (changed) this.snapshot();
      if (isQuestionFor(ev, this.run.caller) && !(await this.answered(ev))) this.interrupt(ev);
      return;
    }
    if (isEvent(ev, "tool.call")) return this.toolCall(ev);
    if (isEvent(ev, "tool.result", "tool.error")) return this.toolResult(ev);
    if (isEvent(ev, "task.progress") && ev.payload.message) this.progress(ev);
    else if (isEvent(ev, "task.request") && ev.parent_task_id && !this.steps.has(`task:${ev.task_id}`)) this.delegated(ev);
    if (isEvent(ev, "task.result", "task.error", "task.timeout", "task.cancel")) {
      this.finishStep(`progress:${ev.task_id}`);
      this.finishStep(`task:${ev.task_id}`);
      if (root) return this.rootEnded(ev);
    }
    if (changed) this.snapshot();
  }

  /** Reading the run failed: RUN_ERROR. */
  failed(): void {
    if (this.ending) return;
    this.close();
    this.send({ type: EventType.RUN_ERROR, message: "Clutch could not read the run; it goes on in the channel", code: "INTERNAL" });
    this.ending = "error";
  }

  // Text messages ----------------------------------------------------------------------------

  /** Whether a stream becomes something sent as a message: an agent's message or question, or the root task's report. */
  private shows(info: StreamInfo): boolean {
    if (info.run_id !== this.run.run_id || this.storedStreams.has(info.stream_id)) return false;
    if (info.kind === "result") return info.task_id === this.run.task_id;
    return info.kind === "message" || info.kind === "question";
  }

  private opened(info: StreamInfo): void {
    if (!this.shows(info)) return;
    const held = this.texts.get(info.stream_id);
    if (held) {
      // Opened again (a late joiner's snapshot, a writer's wake): never shorter than what is held.
      if (!(held.text.length > info.text.length && held.text.startsWith(info.text))) held.text = info.text;
      return this.flush(held);
    }
    const open: OpenText = { messageId: info.stream_id, info, text: info.text, sent: "", started: false, closed: false };
    this.texts.set(info.stream_id, open);
    this.flush(open);
  }

  private grew(delta: StreamDelta): void {
    const held = this.texts.get(delta.stream_id);
    if (!held || held.closed || delta.offset > held.text.length) return;
    held.text = held.text.slice(0, delta.offset) + delta.text;
    this.flush(held);
  }

  private streamEnded(end: StreamEnd): void {
    const held = this.texts.get(end.stream_id);
    // `done`: its stored event is on its way and ends the message; stopped or interrupted: it may never come.
    if (!held || held.closed || end.status === "done") return;
    this.flush(held);
    if (held.started) this.send({ type: EventType.TEXT_MESSAGE_END, messageId: held.messageId });
    held.closed = true;
  }

  /** Whether an agent said `text` in this follow (stored), or is saying it (a message stream): exactly, or (`prefix`) starting so. */
  private saidAlready(text: string, prefix: boolean): boolean {
    const candidates = [...this.said, ...[...this.texts.values()].filter((t) => t.info.kind !== "result").map((t) => t.text)];
    return candidates.some((c) => (prefix ? c.startsWith(text) : c === text));
  }

  /** START when due (a report's once it says something new), then CONTENT with what the stream added since the last one, when it only added. */
  private flush(held: OpenText): void {
    if (held.closed) return;
    if (!held.started) {
      if (!held.text || (held.info.kind === "result" && this.saidAlready(held.text, true))) return;
      const { author, task_id, stream_id } = held.info;
      this.send({ type: EventType.TEXT_MESSAGE_START, messageId: held.messageId, role: "assistant", name: this.nameOf(author), metadata: { clutch: { agent_id: author, task_id, stream_id } } });
      held.started = true;
    }
    if (held.text.length <= held.sent.length || !held.text.startsWith(held.sent)) return;
    this.send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: held.messageId, delta: held.text.slice(held.sent.length) });
    held.sent = held.text;
  }

  /**
   * A stored message (an agent's chat.message; `report`: the root task's report): ends its
   * stream, or is sent whole; a report an agent said already in this follow is not sent.
   */
  private message(ev: StoredEvent, text: string, report = false): void {
    if (!text) return;
    const stream_id = streamIdOf(ev);
    const held = stream_id ? this.texts.get(stream_id) : undefined;
    if (stream_id) {
      this.storedStreams.add(stream_id);
      this.texts.delete(stream_id);
    }
    if (held?.started && !held.closed) {
      if (text.startsWith(held.sent)) {
        held.text = text;
        this.flush(held);
      }
      this.send({ type: EventType.TEXT_MESSAGE_END, messageId: held.messageId });
    }
    const heard = held?.started && held.sent === text;
    if (!report) this.said.push(text);
    if (heard || (report && this.saidAlready(text, false))) return;
    const author = ev.from.agent_id;
    this.send({ type: EventType.TEXT_MESSAGE_START, messageId: ev.id, role: "assistant", name: this.nameOf(author), metadata: { clutch: { agent_id: author, task_id: ev.task_id, event_id: ev.id } } });
    this.send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: ev.id, delta: text });
    this.send({ type: EventType.TEXT_MESSAGE_END, messageId: ev.id });
  }

  // Tool calls -------------------------------------------------------------------------------

  private toolCall(ev: StoredEventOf<"tool.call">): void {
    const toolCallId = `${ev.task_id}:${ev.payload.call_id}`;
    if (this.toolCalls.has(toolCallId)) return;
    this.toolCalls.set(toolCallId, false);
    const { tool, server_id } = ev.payload;
    this.send({
      type: EventType.TOOL_CALL_START,
      toolCallId,
      toolCallName: tool,
      metadata: { clutch: { agent_id: ev.from.agent_id, task_id: ev.task_id, call_id: ev.payload.call_id, ...(server_id ? { server_id } : {}) } },
    });
    this.send({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(ev.payload.arguments ?? {}) });
    this.send({ type: EventType.TOOL_CALL_END, toolCallId });
  }

  private toolResult(ev: StoredEventOf<"tool.result" | "tool.error">): void {
    const toolCallId = `${ev.task_id}:${ev.payload.call_id}`;
    // A result whose call was before this follow (a resumed run) has nothing to attach to.
    if (this.toolCalls.get(toolCallId) !== false) return;
    this.toolCalls.set(toolCallId, true);
    if (isEvent(ev, "tool.error")) {
      const { code, message } = ev.payload;
      this.send({ type: EventType.TOOL_CALL_RESULT, messageId: ev.id, toolCallId, role: "tool", content: `Error ${code}: ${message}`, metadata: { clutch: { error: { code, message } } } });
      return;
    }
    const { truncated, artifact_ref } = ev.payload;
    this.send({ type: EventType.TOOL_CALL_RESULT, messageId: ev.id, toolCallId, role: "tool", content: resultText(ev.payload.result), ...(truncated ? { metadata: { clutch: { truncated, ...(artifact_ref ? { artifact_ref } : {}) } } } : {}) });
  }

  // Steps ------------------------------------------------------------------------------------

  private progress(ev: StoredEventOf<"task.progress">): void {
    const key = `progress:${ev.task_id}`;
    const line = `${bare(ev.from.agent_id)}: ${ev.payload.message!.split("\n")[0]!.trim()}`;
    // The same words again (an agent that still waits) go on with the step already open.
    if (this.stepLines.get(key) === line && this.steps.has(key)) return;
    this.finishStep(key);
    this.startStep(key, line);
  }

  private delegated(ev: StoredEventOf<"task.request">): void {
    const to = ev.to[0]?.agent_id;
    const who = !to || to === "agent:orchestrator" ? (ev.requires?.join(", ") ?? "the router") : bare(to);
    this.startStep(`task:${ev.task_id}`, `${bare(ev.from.agent_id)} → ${who}: ${ev.payload.title ?? "a subtask"}`);
  }

  /** STEP_STARTED named `name`, made unique among the open steps (" (2)", " (3)", …). */
  private startStep(key: string, name: string): void {
    this.stepLines.set(key, name);
    const cut = name.length > MAX_STEP_NAME ? `${name.slice(0, MAX_STEP_NAME - 1)}…` : name;
    const open = new Set(this.steps.values());
    let stepName = cut;
    for (let n = 2; open.has(stepName); n++) stepName = `${cut} (${n})`;
    this.steps.set(key, stepName);
    this.send({ type: EventType.STEP_STARTED, stepName });
  }

  private finishStep(key: string): void {
    const stepName = this.steps.get(key);
    if (stepName === undefined) return;
    this.steps.delete(key);
    this.stepLines.delete(key);
    this.send({ type: EventType.STEP_FINISHED, stepName });
  }

  // State ------------------------------------------------------------------------------------

  /** Fold `ev` into the run's tasks; true when a task changed. */
  private fold(ev: StoredEvent): boolean {
    const prev = this.tasks.get(ev.task_id);
    const next = foldTask(prev, ev);
    if (!next || next === prev) return false;
    this.tasks.set(ev.task_id, next);
    return true;
  }

  /** The AG-UI state: the run and its tasks, as the channel shows them. */
  private state() {
    const tasks = [...this.tasks.values()];
    const roots = tasks.filter((t) => !t.parent_task_id);
    return {
      run_id: this.run.run_id,
      thread_id: this.run.thread_id,
      channel: this.run.channel,
      state: runStateOf(roots.map((t) => t.state)),
      tasks: tasks.map((t) => ({ task_id: t.task_id, parent_task_id: t.parent_task_id, title: t.title, assignee: t.assignee, state: t.state })),
    };
  }

  /** STATE_SNAPSHOT when the state changed since the last one (or `always`). */
  private snapshot(always = false): void {
    const snapshot = this.state();
    const json = JSON.stringify(snapshot);
    if (!always && json === this.lastState) return;
    this.lastState = json;
    this.send({ type: EventType.STATE_SNAPSHOT, snapshot });
  }

  // Ends -------------------------------------------------------------------------------------

  /** End every open text message and finish every open step. */
  private close(): void {
    for (const held of this.texts.values()) {
      if (held.closed) continue;
      this.flush(held);
      if (held.started) this.send({ type: EventType.TEXT_MESSAGE_END, messageId: held.messageId });
      held.closed = true;
    }
    for (const key of [...this.steps.keys()]) this.finishStep(key);
  }

  private interrupt(question: StoredEventOf<"chat.message">): void {
    this.close();
    this.snapshot();
    this.send({ type: EventType.RUN_FINISHED, threadId: this.run.ag_ui.thread_id, runId: this.run.ag_ui.run_id, outcome: { type: "interrupt", interrupts: [interruptOf(question, this.run, this.nameOf)] } });
    this.ending = "interrupted";
  }

  private rootEnded(ev: StoredEventOf<"task.result" | "task.error" | "task.timeout" | "task.cancel">): void {
    if (isEvent(ev, "task.result")) {
      const payload = ev.payload as Record<string, unknown>;
      this.message(ev, reportOf(payload), true);
      this.close();
      this.snapshot();
      this.send({ type: EventType.RUN_FINISHED, threadId: this.run.ag_ui.thread_id, runId: this.run.ag_ui.run_id, result: payload, outcome: { type: "success" } });
      this.ending = "finished";
      return;
    }
    this.close();
    this.snapshot();
    if (isEvent(ev, "task.error")) this.send({ type: EventType.RUN_ERROR, message: `${ev.payload.code}: ${ev.payload.message}`, code: ev.payload.code });
    else if (isEvent(ev, "task.timeout")) this.send({ type: EventType.RUN_ERROR, message: ev.payload.message ?? "The task timed out", code: "TIMED_OUT" });
    else this.send({ type: EventType.RUN_ERROR, message: `Cancelled: ${(ev as StoredEventOf<"task.cancel">).payload.reason ?? "the run was cancelled"}`, code: "CANCELLED" });
    this.ending = "error";
  }

  /** Check `event` against AG-UI's EventSchema, then send it. A failure is a bug here: it throws. */
  private send(event: AgUiEvent): void {
    const checked = EventSchema.safeParse(event);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new Error(`Clutch made an AG-UI ${event.type} event that AG-UI does not accept: ${issue.path.join(".")}: ${issue.message}`);
    }
    this.emit({ ...event, timestamp: Date.now() } as AgUiEvent);
  }
}

/**
 * The AG-UI Interrupt of a Clutch question: `id` is the question's event id (a resume entry
 * names it: `interruptId`), `reason` INTERRUPT_REASON, `message` the question, `responseSchema`
 * ANSWER_SCHEMA, and `metadata.clutch` the run, task, channel and who asked.
 */
export function interruptOf(question: StoredEventOf<"chat.message">, run: Pick<FollowedRun, "run_id" | "thread_id" | "channel">, nameOf: (agent_id: string) => string): Interrupt {
  return {
    id: question.id,
    reason: INTERRUPT_REASON,
    message: question.payload.text,
    responseSchema: ANSWER_SCHEMA,
    metadata: { clutch: { run_id: run.run_id, task_id: question.task_id, thread_id: run.thread_id, channel: run.channel, asked_by: question.from.agent_id, asked_by_name: nameOf(question.from.agent_id) } },
  };
}
