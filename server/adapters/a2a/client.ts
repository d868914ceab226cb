/**
 * Clutch as an A2A client (Clutch Protocol §7.2, docs/adapters.md "A2A"): a workspace agent whose
 * manifest names `runtime: { kind: "a2a", card_url, headers }` is an external agent spoken to with
 * the official `@a2a-js/sdk` client (A2A 1.0, or 0.3 when its card says so).
 *
 * A task given to it goes out as `SendStreamingMessage` (its title, instructions and context as
 * text; `contextId` kept per Clutch run), and what streams back becomes the task's events:
 *   task / working status with a message       → task.progress (meta.a2a holds the remote ids)
 *   input-required                             → a question (chat.message expects_reply) to whoever
 *                                                asked; the answer goes back on the same A2A task
 *   completed (artifacts, or a final message)  → task.result { summary, report_markdown, artifacts }
 *   failed / rejected / canceled / auth-required → task.error A2A_FAILED, A2A_REJECTED, …
 * A Clutch cancel or timeout aborts the stream and sends `CancelTask`. After a restart a wake
 * finds the remote task's id in the log and resubscribes to it. A card or stream that cannot be
 * reached is tried again with backoff; when every attempt failed the task ends with task.error
 * A2A_UNREACHABLE (retryable).
 *
 * Streaming (docs/adapters.md "A2A", with the wake's StreamHub, server/streams/hub.ts): when the
 * card says `capabilities.streaming` the SDK streams (`message/stream`; otherwise it sends
 * `message/send` and what comes back is the final task, which stores the same events and streams
 * nothing). Each artifact that arrives as `TaskArtifactUpdateEvent`s (`append: true` chunks up to
 * `lastChunk`) grows one hub stream (kind `result`, from the agent to whoever asked) whose text is
 * always what the result's report will hold of it (`partsText` of its parts so far); the
 * task.result names the first artifact's stream in `meta.stream_id` and every artifact stream
 * ends `done` once it is stored, `interrupted` (with the reason) when the task fails, waits for
 * input or the wake ends without it. A `working` status message is also the agent's hub status
 * (cleared when the wake ends). A person's Stop on an artifact stream cancels the remote task and
 * stores nothing more: the Stop stores the partial text. The stored events are the same as
 * unstreamed: streaming adds none.
 */
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { Role, TaskState, type Artifact, type Message, type Part, type StreamResponse, type TaskStatus } from "@a2a-js/sdk";
import { newId, type StoredEvent } from "@/lib/protocol";
import { STREAM_META } from "@/lib/realtime/streams";
import { log } from "../../log";
import type { StreamWriter } from "../../streams/hub";
import { withRetries } from "../../agents/retry";
import { answerTo, expandEnv, expandHeaders, requestText, summarize, type DriverWake, type RuntimeDriver } from "../../agents/driver";

/** Where the remote task stands, as recorded in the log (meta.a2a of the agent's events). */
interface RemoteTask {
  task_id: string;
  context_id: string;
  state: "working" | "input-required";
  /** The question asked for input-required. */
  question_id?: string;
}

/** The text of A2A parts: text parts as they are, data parts as JSON, files by name or URL. */
export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((p) => {
      const c = p.content;
      if (!c) return "";
      if (c.$case === "text") return c.value;
      if (c.$case === "data") return "```json\n" + JSON.stringify(c.value, null, 2) + "\n```";
      if (c.$case === "url") return `[${p.filename || c.value}](${c.value})`;
      return p.filename ? `(file ${p.filename})` : "";
    })
    .filter(Boolean)
    .join("\n\n");
}

/** An A2A text part. */
export function textPart(value: string): Part {
  return { content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** A user message for the remote agent. */
function userMessage(messageId: string, text: string, ids: { taskId?: string; contextId?: string }, metadata: Record<string, unknown>): Message {
  return { messageId, role: Role.ROLE_USER, parts: [textPart(text)], taskId: ids.taskId ?? "", contextId: ids.contextId ?? "", metadata, extensions: [], referenceTaskIds: [] };
}

/** The remote task as the log last recorded it for this attempt, or null before the first send. */
function remoteTaskOf(events: readonly StoredEvent[], w: DriverWake): RemoteTask | null {
  let found: RemoteTask | null = null;
  let since = false;
  for (const e of events) {
    if (e.id === w.request.id) since = true;
    if (!since || e.task_id !== w.ctx.task_id || e.from.agent_id !== w.ctx.agent.agent_id) continue;
    const a2a = (e.meta as { a2a?: RemoteTask } | undefined)?.a2a;
    if (a2a?.task_id) found = { ...a2a, ...(a2a.state === "input-required" ? { question_id: e.id } : {}) };
  }
  return found;
}

function artifactsOut(artifacts: Map<string, Artifact>) {
  return [...artifacts.values()].map((a) => ({ name: a.name || a.artifactId, ...(a.description ? { description: a.description } : {}), text: partsText(a.parts) }));
}

/** What one wake's stream has seen. */
interface StreamState {
  remote: RemoteTask | null;
  artifacts: Map<string, Artifact>;
  /** The task ended (a result or an error is stored). */
  ended: boolean;
  /** This wake sent the answer to the remote's input-required. */
  answering: boolean;
  /** The hub streams of the artifacts being written, by artifact id (none without a hub). */
  streams: Map<string, StreamWriter>;
  /** A person stopped one of them: nothing more is stored in this wake. */
  stopped: boolean;
  /** Why streams still open when the wake ends did not become a stored event. */
  unfinished: string;
}

/** At most this many characters of a status message show as the agent's status. */
const STATUS_CHARS = 200;

/** A status message as the agent's hub status: its first line, at most STATUS_CHARS; null when empty. */
function statusLine(text: string): string | null {
  const line = text.trim().split("\n")[0]!.trim();
  if (!line) return null;
  return line.length > STATUS_CHARS ? `${line.slice(0, STATUS_CHARS - 1)}…` : line;
}

const FAILURES: Partial<Record<TaskState, { code: string; what: string }>> = {
  [TaskState.TASK_STATE_FAILED]: { code: "A2A_FAILED", what: "failed" },
  [TaskState.TASK_STATE_REJECTED]: { code: "A2A_REJECTED", what: "rejected the task" },
  [TaskState.TASK_STATE_CANCELED]: { code: "A2A_CANCELED", what: "cancelled the task" },
  [TaskState.TASK_STATE_AUTH_REQUIRED]: { code: "A2A_AUTH_REQUIRED", what: "needs authentication Clutch cannot give" },
};

export class A2AClientDriver implements RuntimeDriver {
  private readonly clients = new Map<string, Promise<Client>>();
  private readonly factory = new ClientFactory();

  /** The client of a card URL, made once (the card is fetched on first use, again after a failure). */
  private client(card_url: string): Promise<Client> {
    let c = this.clients.get(card_url);
    if (!c) {
      c = this.factory.createFromUrl(card_url, "");
      c.catch(() => this.clients.delete(card_url));
      this.clients.set(card_url, c);
    }
    return c;
  }

  async wake(w: DriverWake): Promise<void> {
    const runtime = w.ctx.agent.manifest.runtime;
    if (runtime.kind !== "a2a") return;
    const headers = expandHeaders(runtime.headers);
    const card_url = expandEnv(runtime.card_url);
    const events = await w.events();
    const remote = remoteTaskOf(events, w);
    const metadata = { clutch: { run_id: w.ctx.run_id, task_id: w.ctx.task_id, thread_id: w.ctx.thread_id } };

    // A person's Stop on one of this wake's streams ends the wake like a cancel (see the module doc).
    const stop = new AbortController();
    const signal = AbortSignal.any([w.signal, stop.signal]);
    let open: (client: Client) => AsyncGenerator<StreamResponse>;
    if (!remote) {
      const message = userMessage(w.request.id, requestText(w.request), { contextId: w.ctx.run_id }, metadata);
      open = (client) => client.sendMessageStream({ tenant: "", message, configuration: undefined, metadata }, { signal, serviceParameters: headers });
    } else if (remote.state === "input-required") {
      const answer = remote.question_id ? answerTo(events, remote.question_id) : null;
      if (!answer) return; // still waiting for the answer
      const message = userMessage(answer.id, answer.payload.text, { taskId: remote.task_id, contextId: remote.context_id }, metadata);
      open = (client) => client.sendMessageStream({ tenant: "", message, configuration: undefined, metadata }, { signal, serviceParameters: headers });
    } else {
      open = (client) => client.resubscribeTask({ tenant: "", id: remote.task_id }, { signal, serviceParameters: headers });
    }

    const state: StreamState = {
      remote,
      artifacts: new Map(),
      ended: false,
      answering: remote?.state === "input-required",
      streams: new Map(),
      stopped: false,
      unfinished: `${w.ctx.agent.card.display.name}'s A2A stream ended before its result`,
    };
    const unlisten = w.streams?.listen((e) => {
      if (!("end" in e) || e.end.status !== "stopped" || ![...state.streams.values()].some((s) => s.stream_id === e.end.stream_id)) return;
      state.stopped = true;
      stop.abort(new Error(`stopped by ${e.end.stopped_by ?? "a person"}`));
    });
    try {
      const { outcome: failure, attempts } = await withRetries<string | null>(
        { attempts: w.retry.attempts, first_ms: w.retry.delay_ms, signal },
        async () => {
          try {
            const client = await this.client(card_url);
            for await (const response of open(client)) {
              if (await this.onResponse(w, response, state)) break;
            }
            return { outcome: null, again: false };
          } catch (err) {
            if (signal.aborted) return { outcome: null, again: false };
            // Once the remote task exists, a lost stream is picked up again by resubscribing.
            const id = state.remote?.task_id;
            if (id) open = (client) => client.resubscribeTask({ tenant: "", id }, { signal, serviceParameters: headers });
            return { outcome: (err as Error).message, again: true };
          }
        },
      );
      if (w.signal.aborted || state.stopped) {
        state.unfinished = state.stopped ? "a person stopped the reply" : "the task was cancelled or timed out";
        if (state.remote) await this.cancelRemote(card_url, state.remote.task_id, headers);
        return;
      }
      if (failure !== null) {
        log.warn({ agent_id: w.ctx.agent.agent_id, card_url, failure, attempts }, "A2A agent unreachable");
        await this.fail(w, state, "A2A_UNREACHABLE", `${w.ctx.agent.agent_id} (A2A, ${card_url || runtime.card_url}) could not be reached after ${attempts} attempts: ${failure}`, true);
        return;
      }
      if (!state.ended && state.remote?.state !== "input-required") {
        await this.fail(w, state, "A2A_STREAM_ENDED", `${w.ctx.agent.agent_id}'s A2A stream ended before its task did`, true);
      }
    } finally {
      unlisten?.();
      for (const s of state.streams.values()) s.end("interrupted", { reason: state.unfinished });
      w.streams?.status({ thread_id: w.ctx.thread_id, run_id: w.ctx.run_id, task_id: w.ctx.task_id, agent_id: w.ctx.agent.agent_id, status: null });
    }
  }

  /** One streamed response; true when the stream is done for this wake (an end, or input-required). */
  private async onResponse(w: DriverWake, response: StreamResponse, state: StreamState): Promise<boolean> {
    const p = response.payload;
    if (!p) return false;
    const key = (what: string) => `${w.ctx.instance_id}:a2a:${w.attempt}:${what}`;
    switch (p.$case) {
      case "message": {
        // A direct answer, without a task: it is the result.
        const text = partsText(p.value.parts);
        await this.finish(w, text, [], key(`message:${p.value.messageId}`), state);
        state.ended = true;
        return true;
      }
      case "task": {
        const t = p.value;
        for (const a of t.artifacts) {
          state.artifacts.set(a.artifactId, a);
          state.streams.get(a.artifactId)?.set(partsText(a.parts));
        }
        const first = !state.remote || state.remote.task_id !== t.id;
        state.remote = { task_id: t.id, context_id: t.contextId, state: "working" };
        if (first) {
          await w.store.append(
            w.ctx.envelope("task.progress", { message: `Started on the A2A agent (task ${t.id})`, status: "working" }, { idempotency_key: key(`task:${t.id}`), meta: { a2a: state.remote } }),
          );
        }
        // The snapshot that opens a stream repeats the task's state: the input-required being answered is not asked again.
        if (!t.status || (state.answering && t.status.state === TaskState.TASK_STATE_INPUT_REQUIRED)) return false;
        return this.onStatus(w, t.id, t.contextId, t.status, state, key);
      }
      case "statusUpdate": {
        const u = p.value;
        return u.status ? this.onStatus(w, u.taskId, u.contextId, u.status, state, key) : false;
      }
      case "artifactUpdate": {
        const a = p.value.artifact;
        if (!a) return false;
        const prev = state.artifacts.get(a.artifactId);
        const artifact = p.value.append && prev ? { ...prev, parts: [...prev.parts, ...a.parts] } : a;
        state.artifacts.set(a.artifactId, artifact);
        return this.grow(w, state, artifact);
      }
    }
  }

  private async onStatus(
    w: DriverWake,
    task_id: string,
    context_id: string,
    status: TaskStatus,
    state: StreamState,
    key: (what: string) => string,
  ): Promise<boolean> {
    const text = partsText(status.message?.parts);
    const at = status.timestamp ?? "";
    state.remote = { task_id, context_id, state: "working" };
    switch (status.state) {
      case TaskState.TASK_STATE_SUBMITTED:
      case TaskState.TASK_STATE_WORKING: {
        const line = statusLine(text);
        if (line) w.streams?.status({ thread_id: w.ctx.thread_id, run_id: w.ctx.run_id, task_id: w.ctx.task_id, agent_id: w.ctx.agent.agent_id, status: line });
        if (text) {
          await w.store.append(w.ctx.envelope("task.progress", { message: text, status: "working" }, { idempotency_key: key(`status:${task_id}:${at}:${text.length}`), meta: { a2a: state.remote } }));
        }
        return false;
      }
      case TaskState.TASK_STATE_INPUT_REQUIRED: {
        state.remote = { task_id, context_id, state: "input-required" };
        state.unfinished = `${w.ctx.agent.card.display.name} asked for more input before finishing`;
        await w.store.append(
          w.ctx.envelope(
            "chat.message",
            { text: text || `${w.ctx.agent.card.display.name} needs more input to go on.`, expects_reply: true },
            { id: newId("message"), to: [w.asker], idempotency_key: key(`input:${task_id}:${at}`), meta: { a2a: state.remote } },
          ),
        );
        return true;
      }
      case TaskState.TASK_STATE_COMPLETED:
        state.ended = true;
        await this.finish(w, text, artifactsOut(state.artifacts), key(`completed:${task_id}`), state);
        return true;
      default: {
        const failure = FAILURES[status.state];
        if (!failure) return false;
        state.ended = true;
        if (status.state === TaskState.TASK_STATE_CANCELED && w.signal.aborted) return true;
        await this.fail(w, state, failure.code, `${w.ctx.agent.agent_id} (A2A) ${failure.what}${text ? `: ${text}` : ""}`, false);
        return true;
      }
    }
  }

  /**
   * The artifact's hub stream, opened on its first text, grown to the text it has now; true (the
   * wake is over) when a person stopped it.
   */
  private grow(w: DriverWake, state: StreamState, artifact: Artifact): boolean {
    if (!w.streams) return false;
    const text = partsText(artifact.parts);
    let writer = state.streams.get(artifact.artifactId);
    if (!writer) {
      if (!text) return false;
      writer = w.streams.open({ thread_id: w.ctx.thread_id, run_id: w.ctx.run_id, task_id: w.ctx.task_id, author: w.ctx.agent.agent_id, to: [w.request.from.agent_id], kind: "result" });
      state.streams.set(artifact.artifactId, writer);
    }
    if (writer.ended?.status === "stopped") {
      state.stopped = true;
      return true;
    }
    writer.set(text);
    return false;
  }

  private async finish(w: DriverWake, text: string, artifacts: { name: string; text: string }[], idempotency_key: string, state: StreamState): Promise<void> {
    // A person stopped the result as it streamed: the Stop stores what they saw, nothing else is.
    if ([...state.streams.values()].some((s) => s.ended?.status === "stopped")) {
      state.stopped = true;
      return;
    }
    // The artifacts are the work; the final status message, a remark about it, stands in only when there are none.
    const report = artifacts.length ? artifacts.map((a) => (artifacts.length > 1 ? `### ${a.name}\n\n${a.text}` : a.text)).join("\n\n") : text;
    const summary = summarize(report) || "Done.";
    // The result names the first artifact's stream (an event names one stream; the others end with it).
    const streamed = [...state.artifacts.keys()].map((id) => state.streams.get(id)).find(Boolean);
    await w.store.append(
      w.ctx.envelope(
        "task.result",
        { summary, report_markdown: report || summary, ...(artifacts.length ? { artifacts } : {}) },
        { to: [{ agent_id: w.request.from.agent_id }], attempt: w.attempt, idempotency_key, ...(streamed ? { meta: { [STREAM_META]: streamed.stream_id } } : {}) },
      ),
    );
    for (const s of state.streams.values()) s.end("done");
  }

  private async fail(w: DriverWake, state: StreamState, code: string, message: string, retryable: boolean): Promise<void> {
    state.unfinished = message;
    await w.store.append(
      w.ctx.envelope("task.error", { code, message, retryable }, { to: [{ agent_id: w.request.from.agent_id }], attempt: w.attempt, idempotency_key: `${w.ctx.instance_id}:a2a:${w.attempt}:error` }),
    );
  }

  /** Tell the remote agent to stop (a Clutch cancel or timeout); a failure is only logged. */
  private async cancelRemote(card_url: string, id: string, headers: Record<string, string>): Promise<void> {
    try {
      const client = await this.client(card_url);
      await client.cancelTask({ tenant: "", id, metadata: {} }, { signal: AbortSignal.timeout(5000), serviceParameters: headers });
    } catch (err) {
      log.warn({ err: (err as Error).message, card_url, a2a_task_id: id }, "A2A cancel failed");
    }
  }
}
