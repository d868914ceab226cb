/**
 * The streaming HTTP API (docs/adapters.md "Streaming replies"; in the spirit of Slack's
 * chat.startStream / appendStream / stopStream): an agent's key, or a person, writes a reply that
 * people watch grow, through the StreamHub (server/streams/hub.ts), and the log gets ONE
 * chat.message when it ends. Nothing is stored while it streams.
 *
 *   POST /api/streams                      startStream: { thread_id, run_id?, task_id?, to?, reply_to?, markdown_text? }
 *                                          → 201 { stream_id, thread_id, run_id, task_id }
 *   POST /api/streams/:stream_id/append    appendToStream: { markdown_text } → 200 { stream_id, length }
 *   POST /api/streams/:stream_id/stop      stopStream, by its author: { markdown_text?, payload_type?, payload? }
 *                                          → 201 { event } (200 with the same event for a retried stop);
 *                                          by a person who may stop it: {} → 200 { events }
 *
 * Who writes: the signed-in principal, as itself. Starting a stream is allowed exactly when
 * `POST /api/events` would let the principal append a chat.message from itself to that thread,
 * run and task: a draft of the message is validated and put through the append authorizer
 * (server/auth/authorize-append.ts, `identity.authorizer`) without being stored, and the author's
 * final message goes through it again when it is stored. Every call is one write against the
 * principal's write limit (the route wrapper counts each request; never each token).
 *
 * Where it goes: without `run_id` the message is plain chat in the channel (the channel's
 * conversation run and task, lib/conversation.ts), or, with `reply_to`, in the run and task of the
 * message it replies to; `run_id` without `task_id` is a message of its own in that run (a new
 * task id). `to` (default `[]`, the channel) are agent ids, `user` or `user:<id>`.
 *
 * How it ends:
 * - its author stops it: the final text (`markdown_text`, else the text so far) becomes a
 *   chat.message from the author with `meta.stream_id`, to/reply_to/task as opened, idempotency
 *   key `stream:<stream_id>` (so a retried stop, or a Stop racing it, stores nothing twice), then
 *   the stream ends `done`;
 * - a person stops it (Stop): the run's requester (server/events/requester.ts) or an admin may stop
 *   anyone's stream they can see. The stream ends `stopped` first (so its writer, an agent runner
 *   or an external agent, stores nothing of its own and every process holds the same final text),
 *   then ONE append (one transaction) stores the text so far as a chat.message from the stream's
 *   author with `meta: { stream_id, stopped_by: "user:<id>" }` (none when nothing was written
 *   yet) and, when the stream's task is still open, that task's task.cancel (and its subtree's,
 *   server/lifecycle/cancel.ts) with the reason "stopped the reply as it was being written" (the cancel names who). A Stop retried by the same
 *   person after a failure stores what the first did not (idempotency keys), else 409;
 * - nothing was appended for the hub's `externalIdleMs` (60 s): it ends `interrupted`, and nothing
 *   is stored.
 *
 * A stream remembers what the hub's StreamInfo holds (thread, run, task, author, `to`, the
 * message it replies to) on every process, so any process can store it.
 *
 * Errors (ClutchError; the route answers `{ error: { code, message } }`):
 * - 400 invalid_body: a body field (zod), an append past MAX_STREAM_CHARS in all, an empty final
 *   text, `task_id` without `run_id`, a person's Stop with a final text;
 * - 403 not_your_stream: an append or a stop by anyone but its author, a Stop by a person who is
 *   neither the run's requester nor an admin (the message names who may);
 * - 403 from the append authorizer (from_mismatch, reserved_meta, signature_required, ...);
 * - 404 unknown_stream: no such stream on this process (never opened, or ended more than 30 s ago),
 *   or one in a channel the principal may not read;
 * - 409 stream_ended: it has ended; the message says how ("Stopped by Dana Whitfield");
 * - 409 stream_elsewhere: an append reached a process that does not write the stream (several
 *   nodes: send a stream's appends to the node that started it);
 * - 422 unknown_thread / unknown_run / unknown_task / unknown_message: what the start names does not
 *   exist in the channel (or the channel is not readable).
 */
import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { conversationIds } from "@/lib/conversation";
import { ChatMessagePayload, makeMessage, newId, type ClutchMessage, type Participant, type StoredEvent } from "@/lib/protocol";
import { STREAM_META, type StreamEnd, type StreamInfo } from "@/lib/realtime/streams";
import type { Identity } from "../auth/identity";
import type { StreamHub } from "./hub";
import { ClutchError, isClutchError } from "../errors";
import type { AppendResult } from "../events/append";
import type { EventStore } from "../events/store";
import { validateMessages } from "../events/validate";
import { actorOf } from "../lifecycle/authorize";
import { cancelTask } from "../lifecycle/cancel";
import { isAdmin, type PersonPrincipal, type Principal } from "../auth/principal";
import { requesterOfRun } from "../events/requester";

/** What this module uses of the running Clutch. */
export interface StreamDeps {
  store: EventStore;
  identity: Identity;
  streams: StreamHub;
}

/** Most characters a stream's text may reach: a chat.message's text limit (lib/protocol/payloads.ts). */
export const MAX_STREAM_CHARS = ChatMessagePayload.shape.text.maxLength ?? 100_000;

const id = (what: string) => z.string().min(1, `${what} must not be empty`).max(200, `${what} is at most 200 characters`);
const chunk = z.string().max(MAX_STREAM_CHARS, `a message is at most ${MAX_STREAM_CHARS.toLocaleString("en-US")} characters`);

/** `POST /api/streams` body. */
export const StartStreamSchema = z.strictObject({
  thread_id: id("thread_id"),
  run_id: id("run_id").optional(),
  task_id: id("task_id").optional(),
  /** Who the message is for: agent ids, `user`, `user:<id>`; default `[]`, the channel. */
  to: z.array(id("a recipient")).optional(),
  /** The message (or result) this replies to, in the same channel. */
  reply_to: id("reply_to").optional(),
  /** The first chunk of text. */
  markdown_text: chunk.min(1, "markdown_text must not be empty; leave it out to start with no text").optional(),
});
export type StartStream = z.infer<typeof StartStreamSchema>;

/** `POST /api/streams/:stream_id/append` body. */
export const AppendStreamSchema = z.strictObject({ markdown_text: chunk.min(1, "markdown_text must not be empty") });
export type AppendStream = z.infer<typeof AppendStreamSchema>;

/** `POST /api/streams/:stream_id/stop` body (may be empty). Only the author sends any of it. */
export const StopStreamSchema = z.strictObject({
  /** The final text, replacing the whole text so far (default: the text so far). */
  markdown_text: chunk.optional(),
  /** The stored chat.message's `payload_type`, e.g. `chat.report.v1` for a report (docs/protocol.md). */
  payload_type: z.string().min(1, "payload_type must not be empty").max(200).optional(),
  /** More fields of the chat.message's payload (`mentions`, `expects_reply`, ...); its text is `markdown_text`. */
  payload: z
    .record(z.string(), z.unknown())
    .refine((p) => !("text" in p), "send the final text as markdown_text, not as payload.text")
    .refine((p) => !("reply_to" in p), "a stream replies to what it was started with (reply_to of POST /api/streams), not payload.reply_to")
    .optional(),
});
export type StopStream = z.infer<typeof StopStreamSchema>;

export interface StartedStream {
  stream_id: string;
  thread_id: string;
  run_id: string;
  task_id: string;
}

/** What a stop did: the author's message stored (`created` false for a retry), or a person's Stop. */
export type StopOutcome = { by: "author"; event: StoredEvent; created: boolean } | { by: "person"; events: StoredEvent[] };

// ---------------------------------------------------------------------------------------------
// Ids

/** The idempotency key of the one message a stream becomes (ids are at most 200 characters). */
export function streamIdempotencyKey(stream_id: string): string {
  const key = `stream:${stream_id}`;
  return key.length <= 200 ? key : `stream:sha256:${createHash("sha256").update(stream_id).digest("hex")}`;
}

// ---------------------------------------------------------------------------------------------
// Messages

/** The `from` of `p`'s own messages. */
function senderOf(p: Principal): Participant {
  return p.kind === "person" ? { agent_id: p.agent_id, role: "human", display_name: p.name } : { agent_id: p.agent_id, role: "worker" };
}

/** The `from` of a stream's author when someone else stores its message (a person's Stop). */
async function authorOf(deps: StreamDeps, author: string): Promise<Participant> {
  if (!author.startsWith("user:")) return { agent_id: author, role: "worker" };
  return { agent_id: author, role: "human", display_name: await deps.identity.nameOf(author) };
}

type Where = Pick<StreamInfo, "stream_id" | "thread_id" | "run_id" | "task_id" | "to">;

/** The chat.message a stream becomes (or, at its start, the draft that is authorized). */
async function streamMessage(
  deps: StreamDeps,
  s: Where & { run_id: string; task_id: string },
  from: Participant,
  text: string,
  extra: { reply_to?: string; payload?: Record<string, unknown>; payload_type?: string; meta?: Record<string, unknown> } = {},
): Promise<ClutchMessage> {
  const task = await deps.store.queries.task(s.task_id);
  return makeMessage({
    type: "chat.message",
    thread_id: s.thread_id,
    run_id: s.run_id,
    task_id: s.task_id,
    ...(task?.parent_task_id ? { parent_task_id: task.parent_task_id } : {}),
    from,
    to: s.to.map((agent_id) => ({ agent_id })),
    payload: { ...extra.payload, text, ...(extra.reply_to ? { reply_to: extra.reply_to } : {}) },
    ...(extra.payload_type ? { payload_type: extra.payload_type } : {}),
    meta: { [STREAM_META]: s.stream_id, ...extra.meta },
    idempotency_key: streamIdempotencyKey(s.stream_id),
  });
}

/** The append authorizer's refusal of the one message a stream is, said of the stream. */
function asStreamRefusal(err: unknown): unknown {
  if (!isClutchError(err)) return err;
  let message = err.message.replace(/^message 0: /, "");
  if (err.code === "signature_required") {
    message += `. A stream's message is made by Clutch and cannot carry your signature: send signed messages through POST /api/events instead`;
  }
  return new ClutchError(err.code, message, err.status, err.issues, err.retryAfterSec);
}

/** Check, without storing it, that `p` may append `draft` (as POST /api/events would). */
async function authorizeDraft(deps: StreamDeps, p: Principal, draft: ClutchMessage): Promise<void> {
  try {
    await deps.identity.authorizer(p)(validateMessages(draft));
  } catch (err) {
    throw asStreamRefusal(err);
  }
}

// ---------------------------------------------------------------------------------------------
// Streams as the hub holds them

type Held = NonNullable<ReturnType<StreamDeps["streams"]["get"]>>;

/** The stream `stream_id` when `p` may see it (its channel is readable); else 404 unknown_stream. */
async function visibleStream(deps: StreamDeps, p: Principal, stream_id: string): Promise<Held> {
  const s = deps.streams.get(stream_id);
  if (!s || !(await deps.identity.channels.canRead(p, s.thread_id))) {
    throw new ClutchError("unknown_stream", `stream ${stream_id} does not exist (a stream is forgotten 30 s after it ends; its message is in the channel)`, 404);
  }
  return s;
}

/** 409 stream_ended, saying how it ended and, if stopped, by whom. */
async function endedError(deps: StreamDeps, stream_id: string, end: StreamEnd, you?: string): Promise<ClutchError> {
  const how =
    end.status === "done"
      ? "its message was stored"
      : end.status === "stopped"
        ? `Stopped by ${!end.stopped_by ? "someone" : end.stopped_by === you ? "you" : await deps.identity.nameOf(end.stopped_by)}`
        : `interrupted (${end.reason ?? "its writer went away"})`;
  const next = end.status === "done" ? "" : "; to write more, start a new stream (POST /api/streams)";
  return new ClutchError("stream_ended", `stream ${stream_id} has already ended: ${how}${next}`, 409);
}

/** 403 not_your_stream for an append or a stop by someone who is not its author. */
async function notYours(deps: StreamDeps, s: Held, doing: "append to" | "stop"): Promise<ClutchError> {
  const author = await deps.identity.nameOf(s.author);
  const others = doing === "stop" ? "; a person who started its run, or an admin, may Stop it" : "";
  return new ClutchError("not_your_stream", `stream ${s.stream_id} is written by ${author}; only its author may ${doing} it${others}`, 403);
}

/** `s` with the run and task every stream started here has (a runner's stream has them too). */
function placed(s: Held): Held & { run_id: string; task_id: string } {
  if (!s.run_id || !s.task_id) {
    throw new ClutchError("invalid_body", `stream ${s.stream_id} belongs to no run and task, so it cannot become a message; it ends on its own`, 400);
  }
  return s as Held & { run_id: string; task_id: string };
}

// ---------------------------------------------------------------------------------------------
// The three calls

/** Open a stream written by `p` (see the module doc). */
export async function startStream(deps: StreamDeps, p: Principal, input: StartStream): Promise<StartedStream> {
  const { store, identity, streams } = deps;
  if (input.task_id && !input.run_id) throw new ClutchError("invalid_body", "task_id: a task belongs to a run; send its run_id too", 400);
  if (!(await identity.channels.canRead(p, input.thread_id))) throw new ClutchError("unknown_thread", `thread ${input.thread_id} does not exist`, 422);
  const parent = input.reply_to ? await store.queries.eventInThread(input.thread_id, input.reply_to) : null;
  if (input.reply_to && (!parent || (parent.type !== "chat.message" && parent.type !== "task.result"))) {
    throw new ClutchError("unknown_message", `there is no message or result ${input.reply_to} in thread ${input.thread_id} to reply to`, 422);
  }
  const at = input.run_id
    ? { run_id: input.run_id, task_id: input.task_id ?? newId("task") }
    : parent
      ? { run_id: parent.run_id, task_id: parent.task_id }
      : conversationIds(input.thread_id);
  const stream_id = `stream_${randomUUID()}`;
  const where = { stream_id, thread_id: input.thread_id, ...at, to: input.to ?? [], ...(input.reply_to ? { reply_to: input.reply_to } : {}) };
  // The first chunk, or a stand-in: the draft is only authorized, never stored.
  await authorizeDraft(deps, p, await streamMessage(deps, where, senderOf(p), input.markdown_text ?? "…", { reply_to: input.reply_to }));
  const writer = streams.open({ ...where, author: p.agent_id, kind: "message" }, { external: true });
  if (input.markdown_text) writer.append(input.markdown_text);
  return { stream_id, thread_id: input.thread_id, ...at };
}

/** Add text to `p`'s own open stream. Returns its length (characters) after the append. */
export async function appendToStream(deps: StreamDeps, p: Principal, stream_id: string, input: AppendStream): Promise<{ stream_id: string; length: number }> {
  const s = await visibleStream(deps, p, stream_id);
  if (s.author !== p.agent_id) throw await notYours(deps, s, "append to");
  if (s.ended) throw await endedError(deps, stream_id, s.ended, p.agent_id);
  const writer = deps.streams.writer(stream_id);
  if (!writer) {
    throw new ClutchError(
      "stream_elsewhere",
      `stream ${stream_id} was started through another Clutch node, which alone writes it; send its appends to the node that started it (sticky sessions), or stop it, which works on any node`,
      409,
    );
  }
  if (writer.ended) throw await endedError(deps, stream_id, writer.ended, p.agent_id);
  const length = writer.text.length + input.markdown_text.length;
  if (length > MAX_STREAM_CHARS) {
    throw new ClutchError(
      "invalid_body",
      `markdown_text: the stream would be ${length.toLocaleString("en-US")} characters, and a message is at most ${MAX_STREAM_CHARS.toLocaleString("en-US")}; stop this stream and start another for the rest; nothing was appended`,
      400,
    );
  }
  writer.append(input.markdown_text);
  return { stream_id, length: writer.text.length };
}

/** End a stream: its author's final message, or a person's Stop (see the module doc). */
export async function stopStream(deps: StreamDeps, p: Principal, stream_id: string, input: StopStream): Promise<StopOutcome> {
  const s = await visibleStream(deps, p, stream_id);
  if (s.author === p.agent_id) return stopOwn(deps, p, placed(s), input);
  if (p.kind !== "person") throw await notYours(deps, s, "stop");
  return stopOthers(deps, p, s, input);
}

/** The author stores its final text, then the stream ends `done`. */
async function stopOwn(deps: StreamDeps, p: Principal, s: Held & { run_id: string; task_id: string }, input: StopStream): Promise<StopOutcome> {
  const { store, identity, streams } = deps;
  if (s.ended) {
    // A retried stop: the message its first stop stored.
    const stored = s.ended.status === "done" ? await store.queries.eventByIdempotencyKey(streamIdempotencyKey(s.stream_id)) : null;
    if (stored) return { by: "author", event: stored, created: false };
    throw await endedError(deps, s.stream_id, s.ended, p.agent_id);
  }
  const writer = streams.writer(s.stream_id);
  const text = input.markdown_text ?? writer?.text ?? s.text;
  if (!text.trim()) {
    const why = input.markdown_text === undefined ? "the stream has no text yet: send the final text as markdown_text" : "markdown_text is empty: send the final text";
    throw new ClutchError("invalid_body", `${why}; nothing was stored and the stream is still open`, 400);
  }
  const message = await streamMessage(deps, s, senderOf(p), text, { reply_to: s.reply_to, payload: input.payload, payload_type: input.payload_type });
  let result: AppendResult;
  try {
    result = await store.append(message, { authorize: identity.authorizer(p) });
  } catch (err) {
    throw asStreamRefusal(err);
  }
  if (writer && !writer.ended) {
    writer.set(text); // people see the final text until the stored message replaces it
    writer.end("done");
  } else streams.endFromOutside({ stream_id: s.stream_id, status: "done" });
  return { by: "author", event: result.events[0]!, created: result.created[0]! };
}

/** Who may Stop a stream of run `run_id`: its requester or an admin. Throws 403 naming who may. */
async function assertMayStop(deps: StreamDeps, p: PersonPrincipal, s: Held): Promise<void> {
  if (isAdmin(p)) return;
  const requester = s.run_id ? await requesterOfRun(deps.store.queries, s.run_id) : null;
  if (requester === p.agent_id) return;
  const author = await deps.identity.nameOf(s.author);
  const who = requester?.startsWith("user:")
    ? `${await deps.identity.nameOf(requester)}, who started its run, or an admin`
    : `an admin (its run was not started by a person)`;
  throw new ClutchError("not_your_stream", `only ${who} may stop ${author}'s stream ${s.stream_id}`, 403);
}

/**
 * A person's Stop: end the stream `stopped`, then store in one append the text so far from its
 * author and the cancel of its task when that is still open.
 */
async function stopOthers(deps: StreamDeps, p: PersonPrincipal, s: Held, input: StopStream): Promise<StopOutcome> {
  const { store, streams } = deps;
  await assertMayStop(deps, p, s);
  if (input.markdown_text !== undefined || input.payload_type !== undefined || input.payload !== undefined) {
    throw new ClutchError("invalid_body", `only the stream's author sets its final text; a Stop keeps the text so far: send an empty body`, 400);
  }
  // Read again: the checks above awaited, and the stream may have ended meanwhile.
  const now = streams.get(s.stream_id) ?? s;
  const retry = now.ended?.status === "stopped" && now.ended.stopped_by === p.agent_id;
  if (now.ended && !retry) throw await endedError(deps, s.stream_id, now.ended, p.agent_id);
  if (!retry) {
    // Ended first: the writer then stores nothing of its own, and every process holds this text.
    const writer = streams.writer(s.stream_id);
    if (writer && !writer.ended) writer.end("stopped", { stopped_by: p.agent_id });
    else if (!streams.endFromOutside({ stream_id: s.stream_id, status: "stopped", stopped_by: p.agent_id })) {
      const ended = streams.get(s.stream_id)?.ended;
      throw ended ? await endedError(deps, s.stream_id, ended, p.agent_id) : new ClutchError("unknown_stream", `stream ${s.stream_id} does not exist`, 404);
    }
  }
  const text = streams.get(s.stream_id)?.text ?? now.text;
  const message =
    text.trim() && now.run_id && now.task_id
      ? [await streamMessage(deps, { ...now, run_id: now.run_id, task_id: now.task_id }, await authorOf(deps, now.author), text, { reply_to: now.reply_to, meta: { stopped_by: p.agent_id } })]
      : [];
  const task = now.task_id ? await store.queries.task(now.task_id) : null;
  let stored: AppendResult | undefined;
  if (task && task.ended_at === null && task.thread_id === now.thread_id) {
    await cancelTask(appendingFirst(store, message, (r) => (stored = r)), task, actorOf(p), "stopped the reply as it was being written");
  }
  if (!stored && message.length) stored = await store.append(message);
  const result = stored ?? { events: [], created: [] };
  if (retry && !result.created.some(Boolean)) throw await endedError(deps, s.stream_id, now.ended!, p.agent_id);
  return { by: "person", events: result.events };
}

/**
 * `store` as cancelTask (server/lifecycle/cancel.ts) sees it: its one append of the cancel's
 * events stores `first` before them in the same call (one transaction), and `done` hears the result.
 */
function appendingFirst(store: EventStore, first: ClutchMessage[], done: (r: AppendResult) => void): EventStore {
  const joined = Object.create(store) as EventStore;
  joined.append = async (input, opts) => {
    const r = await store.append([...first, ...(Array.isArray(input) ? input : [input])], opts);
    done(r);
    return r;
  };
  return joined;
}
