/**
 * Replies that stream as they are written, agents' status and people typing: the ephemeral
 * side of the realtime contract (lib/realtime/contract.ts; docs/channels.md "Streaming replies").
 *
 * None of this is stored. A stream is one message being written: it opens (`stream.open`, which
 * also carries the text so far, so a client that subscribes mid-stream starts from there), grows
 * (`stream.delta`: the text from `offset` on replaces what the client holds from there, usually
 * an append; at most about 20 a second per stream) and ends (`stream.end`: `done` when its
 * message was stored, `stopped` when a person stopped it, `interrupted` when its writer went
 * away or failed). The log keeps one fact per message: the stored event that a stream becomes
 * names it (`streamIdOf`), and a client drops the stream once it holds that event.
 *
 * `agent.status` says what an agent is doing in a run ("querying DataServer"), null when it
 * stopped; `typing` says a person is typing in a channel (or a run's thread), for TYPING_MS.
 */
import { z } from "zod";
import type { StoredEvent } from "../protocol/envelope";

/** What a stream becomes when it ends: an agent's message (`reply`), its question (`ask`), its task's result, or the text of a model turn. */
export const STREAM_KINDS = ["message", "question", "result", "text"] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

export const StreamInfoSchema = z.strictObject({
  stream_id: z.string().min(1),
  thread_id: z.string().min(1),
  run_id: z.string().min(1).nullable(),
  task_id: z.string().min(1).nullable(),
  /** The agent (or person) writing it. */
  author: z.string().min(1),
  /** Who the message is for, as its stored event's `to` will be (agent ids, `user`, `user:…`). */
  to: z.array(z.string().min(1)),
  kind: z.enum(STREAM_KINDS),
  /** The message it answers, as its stored event's `payload.reply_to` will be. */
  reply_to: z.string().min(1).optional(),
  /** ms since the epoch. */
  started_at: z.number(),
  /** The text so far. */
  text: z.string(),
});
export type StreamInfo = z.infer<typeof StreamInfoSchema>;

export const StreamDeltaSchema = z.strictObject({
  stream_id: z.string().min(1),
  /** Where `text` goes: the client keeps its text up to `offset` and appends `text`. */
  offset: z.number().int().nonnegative(),
  text: z.string(),
});
export type StreamDelta = z.infer<typeof StreamDeltaSchema>;

export const STREAM_ENDINGS = ["done", "stopped", "interrupted"] as const;
export type StreamEnding = (typeof STREAM_ENDINGS)[number];

export const StreamEndSchema = z.strictObject({
  stream_id: z.string().min(1),
  status: z.enum(STREAM_ENDINGS),
  /** For `stopped`: who stopped it (`user:…`). */
  stopped_by: z.string().min(1).optional(),
  /** For `interrupted`: why, in people's words. */
  reason: z.string().optional(),
});
export type StreamEnd = z.infer<typeof StreamEndSchema>;

export const AgentStatusSchema = z.strictObject({
  thread_id: z.string().min(1),
  run_id: z.string().min(1).nullable(),
  task_id: z.string().min(1).nullable(),
  agent_id: z.string().min(1),
  /** What it is doing, e.g. "querying DataServer"; null: nothing to say any more. */
  status: z.string().min(1).nullable(),
});
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

/** One status per agent and task (or channel, outside a task): what a newer status replaces. */
export function statusKey(s: Pick<AgentStatus, "agent_id" | "task_id" | "thread_id">): string {
  return `${s.agent_id}|${s.task_id ?? s.thread_id}`;
}

/** Client → server: I am typing here. Send at most once every TYPING_THROTTLE_MS. */
export const TypingInputSchema = z.strictObject({ thread_id: z.string().min(1), run_id: z.string().min(1).optional() });
export type TypingInput = z.infer<typeof TypingInputSchema>;

/** Server → client: `agent_id` (a person) is typing in `thread_id` (in `run_id`'s thread when set). */
export const TypingSchema = TypingInputSchema.extend({ agent_id: z.string().min(1) });
export type Typing = z.infer<typeof TypingSchema>;

/** How long a `typing` shows after it arrives (ms), and how often a client sends one while typing. */
export const TYPING_MS = 5_000;
export const TYPING_THROTTLE_MS = 2_500;

/** The stored event's meta that names the stream it was written as (server-side writers set it). */
export const STREAM_META = "stream_id";

/**
 * The stream a stored event was written as, or null: `meta.stream_id`, or for a model agent's
 * tool call (`meta.agent`: instance, step, call) the id the runner gives that call's stream.
 */
export function streamIdOf(ev: Pick<StoredEvent, "meta">): string | null {
  const meta = ev.meta;
  if (!meta) return null;
  if (typeof meta[STREAM_META] === "string") return meta[STREAM_META];
  const agent = meta.agent as { instance_id?: unknown; step?: unknown; call_id?: unknown } | undefined;
  if (agent && typeof agent.instance_id === "string" && typeof agent.step === "number" && typeof agent.call_id === "string") {
    return stepStreamId(agent.instance_id, agent.step, agent.call_id);
  }
  return null;
}

/** The id of the stream of a model agent's step: its instance, step and tool call (or `text` for the turn's own text). */
export function stepStreamId(instance_id: string, step: number, call_id: string): string {
  return `${instance_id}#${step}#${call_id}`;
}

/** A stream as a client holds it: the info, and how it ended (null while open). */
export interface LiveStream extends StreamInfo {
  ended: StreamEnd | null;
  /** When it ended (ms since the epoch), for dropping a `done` stream whose event never comes. */
  ended_at: number | null;
}

/** `streams` with `msg` applied (open, delta or end); the same map when nothing changed. */
export function applyStream(
  streams: ReadonlyMap<string, LiveStream>,
  msg: { open: StreamInfo } | { delta: StreamDelta } | { end: StreamEnd },
  now = Date.now(),
): ReadonlyMap<string, LiveStream> {
  const next = new Map(streams);
  if ("open" in msg) {
    const held = streams.get(msg.open.stream_id);
    // A snapshot never shortens what a client already holds of the same stream.
    const text = held && !held.ended && held.text.length > msg.open.text.length && held.text.startsWith(msg.open.text) ? held.text : msg.open.text;
    next.set(msg.open.stream_id, { ...msg.open, text, ended: null, ended_at: null });
    return next;
  }
  if ("delta" in msg) {
    const held = streams.get(msg.delta.stream_id);
    if (!held || held.ended || msg.delta.offset > held.text.length) return streams;
    next.set(held.stream_id, { ...held, text: held.text.slice(0, msg.delta.offset) + msg.delta.text });
    return next;
  }
  const held = streams.get(msg.end.stream_id);
  if (!held || held.ended) return streams;
  next.set(held.stream_id, { ...held, ended: msg.end, ended_at: now });
  return next;
}
