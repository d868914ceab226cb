/**
 * StreamHub: replies that stream as they are written, agents' status and people typing, for
 * the whole deployment (docs/architecture.md "Streaming"; wire shapes in lib/realtime/streams.ts).
 *
 * Writers (the agent runner, runtime drivers, the streaming API for external agents) open a
 * stream with `open()` and write to it through its `StreamWriter`; the gateway listens
 * (`listen`) and sends what it hears to the sockets that watch the stream's channel or run,
 * and gives a socket that subscribes mid-stream the text so far (`openIn`). Nothing here is
 * stored: the writer appends the one event a stream becomes, as it would unstreamed.
 *
 * Invariants:
 * - Deltas are coalesced: a stream publishes at most one delta every `coalesceMs` (default
 *   50 ms, so ≤ 20 a second), the first at once.
 * - Every hub of the deployment holds every open stream with its text (each applies what the
 *   others publish on the bus, server/streams/bus.ts), so any node can serve a late joiner.
 * - Every stream ends. Its owner (the process that opened it) ends it when its writer does,
 *   and, for a stream written from outside (`external`), when nothing was appended for
 *   `externalIdleMs` (interrupted). The owner says every `heartbeatMs` which of its streams
 *   are alive; another process ends a stream as interrupted when its owner has said nothing of
 *   it for `deadlineMs` (the owner's process or node died), so no reply types forever.
 * - An ended stream takes no more text: a writer whose stream a person stopped learns it from
 *   `writer.ended`.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { statusKey, type AgentStatus, type StreamDelta, type StreamEnd, type StreamInfo, type Typing } from "@/lib/realtime/streams";
import { log } from "../log";
import { LocalBus, MAX_MESSAGE_BYTES, type StreamBus } from "./bus";

/** What a listener hears: a stream opened (with its text so far), grew, ended; an agent's status; a person typing. */
export type HubEvent =
  | { open: StreamInfo }
  | { delta: StreamDelta; thread_id: string; run_id: string | null }
  | { end: StreamEnd; thread_id: string; run_id: string | null }
  | { status: AgentStatus }
  | { typing: Typing };

type Wire =
  | { t: "open"; info: StreamInfo; owner: string }
  | { t: "delta"; delta: StreamDelta }
  | { t: "end"; end: StreamEnd }
  | { t: "alive"; owner: string; ids: string[]; statuses: string[] }
  | { t: "status"; status: AgentStatus; owner: string }
  | { t: "typing"; typing: Typing };

interface Held {
  info: StreamInfo;
  owner: string;
  /** ms since the epoch after which the stream counts as interrupted (not for this process's own). */
  expires_at: number;
  external: boolean;
  ended: StreamEnd | null;
}

/** Where a stream is written: everything of StreamInfo but what the hub fills in. */
export type StreamTarget = Omit<StreamInfo, "stream_id" | "started_at" | "text"> & { stream_id?: string };

export interface StreamHubOptions {
  bus?: StreamBus;
  /** This process's name in the deployment (default host, pid and a random suffix). */
  node?: string;
  coalesceMs?: number;
  heartbeatMs?: number;
  deadlineMs?: number;
  externalIdleMs?: number;
}

/** One stream being written. */
export interface StreamWriter {
  readonly stream_id: string;
  readonly info: StreamInfo;
  /** The text written so far (what people see once the next delta is out). */
  readonly text: string;
  /** How it ended (by this writer, a person's Stop, or its deadline); null while open. */
  readonly ended: StreamEnd | null;
  /** Add `text` at the end. */
  append(text: string): void;
  /** Make the whole text `text` (sends only what changed; usually an append). */
  set(text: string): void;
  /** End it (once; later calls do nothing): the rest is sent first. */
  end(status?: StreamEnd["status"], extra?: Omit<StreamEnd, "stream_id" | "status">): void;
}

/** Cut `text` into pieces whose JSON stays well under the bus's message size. */
function pieces(text: string): string[] {
  const max = Math.floor(MAX_MESSAGE_BYTES / 8); // ≤ 4 bytes a character, escaped at most twice over
  if (text.length <= max) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += max) out.push(text.slice(i, i + max));
  return out;
}

/** `items` in groups whose JSON stays under half the bus's message size. */
function chunked<T>(items: T[]): T[][] {
  const out: T[][] = [];
  let group: T[] = [];
  let size = 0;
  for (const item of items) {
    const n = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (group.length && size + n > MAX_MESSAGE_BYTES / 2) {
      out.push(group);
      group = [];
      size = 0;
    }
    group.push(item);
    size += n;
  }
  if (group.length) out.push(group);
  return out;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export class StreamHub {
  readonly node: string;
  private readonly bus: StreamBus;
  private readonly held = new Map<string, Held>();
  private readonly writers = new Map<string, Writer>();
  private readonly statuses = new Map<string, { status: AgentStatus; owner: string; expires_at: number }>();
  private readonly listeners = new Set<(e: HubEvent) => void>();
  private readonly unsubscribeBus: () => void;
  private readonly timer: NodeJS.Timeout;
  readonly coalesceMs: number;
  private readonly heartbeatMs: number;
  private readonly deadlineMs: number;
  private readonly externalIdleMs: number;
  private lastBeat = 0;

  constructor(opts: StreamHubOptions = {}) {
    this.bus = opts.bus ?? new LocalBus();
    this.node = opts.node ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.coalesceMs = opts.coalesceMs ?? 50;
    this.heartbeatMs = opts.heartbeatMs ?? 5_000;
    this.deadlineMs = opts.deadlineMs ?? 15_000;
    this.externalIdleMs = opts.externalIdleMs ?? 60_000;
    this.unsubscribeBus = this.bus.subscribe((raw) => this.fromBus(raw));
    this.timer = setInterval(() => this.tick(), Math.min(1_000, this.heartbeatMs));
    this.timer.unref();
  }

  /** Hear every open, delta, end, status and typing, this process's and the others'. */
  listen(listener: (e: HubEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Open a stream written here. `external`: written from outside over the API, so it is
   * interrupted after `externalIdleMs` without an append. A `stream_id` already open returns
   * its writer (a wake that writes the same step again continues it).
   */
  open(target: StreamTarget, opts: { external?: boolean } = {}): StreamWriter {
    const stream_id = target.stream_id ?? `stream_${randomUUID()}`;
    const existing = this.writers.get(stream_id);
    if (existing && !existing.ended) return existing;
    const info: StreamInfo = { ...target, stream_id, started_at: Date.now(), text: "" };
    const writer = new Writer(this, info);
    this.writers.set(stream_id, writer);
    this.publish({ t: "open", info, owner: this.node }, opts.external ?? false);
    return writer;
  }

  /** The stream `stream_id` as this process holds it (its text so far), or null. */
  get(stream_id: string): (StreamInfo & { ended: StreamEnd | null; external: boolean; owner: string }) | null {
    const h = this.held.get(stream_id);
    return h ? { ...h.info, ended: h.ended, external: h.external, owner: h.owner } : null;
  }

  /** This process's writer of `stream_id`, or null (written elsewhere, or ended). */
  writer(stream_id: string): StreamWriter | null {
    return this.writers.get(stream_id) ?? null;
  }

  /** The open streams of a channel or a run, with their text so far (for a late joiner). */
  openIn(scope: { thread_id: string } | { run_id: string }): StreamInfo[] {
    const out: StreamInfo[] = [];
    for (const h of this.held.values()) {
      if (h.ended) continue;
      if ("thread_id" in scope ? h.info.thread_id === scope.thread_id : h.info.run_id === scope.run_id) out.push({ ...h.info });
    }
    return out;
  }

  /** The agents' statuses in a channel or a run now. */
  statusIn(scope: { thread_id: string } | { run_id: string }): AgentStatus[] {
    return [...this.statuses.values()].map((s) => s.status).filter((s) => ("thread_id" in scope ? s.thread_id === scope.thread_id : s.run_id === scope.run_id));
  }

  /** Say what an agent is doing in a task (`status` null: nothing any more). Repeats are not sent. */
  status(s: AgentStatus): void {
    if ((this.statuses.get(statusKey(s))?.status.status ?? null) === s.status) return;
    this.publish({ t: "status", status: s, owner: this.node });
  }

  /** A person is typing (the gateway throttles each socket). */
  typing(t: Typing): void {
    this.publish({ t: "typing", typing: t });
  }

  /**
   * End `stream_id` from outside its writer (a person's Stop, taken on whichever process the
   * request reached). False when it is not open here.
   */
  endFromOutside(end: StreamEnd): boolean {
    const h = this.held.get(end.stream_id);
    if (!h || h.ended) return false;
    this.publish({ t: "end", end });
    return true;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const w of this.writers.values()) w.end("interrupted", { reason: "Clutch stopped" });
    this.unsubscribeBus();
    await this.bus.close();
  }

  /** Apply here, tell the listeners, and send to the other processes. */
  publish(wire: Wire, external = false): void {
    this.apply(wire, external);
    const message = JSON.stringify({ o: this.node, w: wire });
    if (Buffer.byteLength(message) <= MAX_MESSAGE_BYTES) return this.bus.publish(message);
    if (wire.t === "open") {
      // A long text so far goes as the open with none, then deltas.
      this.bus.publish(JSON.stringify({ o: this.node, w: { ...wire, info: { ...wire.info, text: "" } } }));
      let offset = 0;
      for (const p of pieces(wire.info.text)) {
        this.bus.publish(JSON.stringify({ o: this.node, w: { t: "delta", delta: { stream_id: wire.info.stream_id, offset, text: p } } }));
        offset += p.length;
      }
    } else if (wire.t === "delta") {
      let offset = wire.delta.offset;
      for (const p of pieces(wire.delta.text)) {
        this.bus.publish(JSON.stringify({ o: this.node, w: { t: "delta", delta: { ...wire.delta, offset, text: p } } }));
        offset += p.length;
      }
    } else log.warn({ type: wire.t }, "a stream message too long for the bus was not sent to the other processes");
  }

  private fromBus(raw: string): void {
    let parsed: { o?: unknown; w?: Wire };
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch {
      return;
    }
    if (parsed.o === this.node || !parsed.w || typeof parsed.w !== "object") return;
    try {
      this.apply(parsed.w, false);
    } catch (err) {
      log.warn({ err }, "a stream message from another process could not be applied");
    }
  }

  private apply(wire: Wire, external: boolean): void {
    const now = Date.now();
    switch (wire.t) {
      case "open": {
        const idle = wire.owner === this.node && external ? this.externalIdleMs : this.deadlineMs;
        this.held.set(wire.info.stream_id, { info: { ...wire.info }, owner: wire.owner, expires_at: now + idle, external, ended: null });
        return this.emit({ open: { ...wire.info } });
      }
      case "delta": {
        const h = this.held.get(wire.delta.stream_id);
        if (!h || h.ended || wire.delta.offset > h.info.text.length) return;
        h.info.text = h.info.text.slice(0, wire.delta.offset) + wire.delta.text;
        if (h.external && h.owner === this.node) h.expires_at = now + this.externalIdleMs;
        return this.emit({ delta: wire.delta, thread_id: h.info.thread_id, run_id: h.info.run_id });
      }
      case "end": {
        const h = this.held.get(wire.end.stream_id);
        if (!h || h.ended) return;
        h.ended = wire.end;
        h.expires_at = now + 30_000; // kept a while, so a late Stop learns it already ended
        this.writers.get(wire.end.stream_id)?.markEnded(wire.end);
        return this.emit({ end: wire.end, thread_id: h.info.thread_id, run_id: h.info.run_id });
      }
      case "alive": {
        for (const id of wire.ids) {
          const h = this.held.get(id);
          if (h && !h.ended) h.expires_at = now + this.deadlineMs;
        }
        for (const key of wire.statuses ?? []) {
          const s = this.statuses.get(key);
          if (s) s.expires_at = now + this.deadlineMs;
        }
        return;
      }
      case "status": {
        const key = statusKey(wire.status);
        if (wire.status.status === null) this.statuses.delete(key);
        else this.statuses.set(key, { status: wire.status, owner: wire.owner, expires_at: now + this.deadlineMs });
        return this.emit({ status: wire.status });
      }
      case "typing":
        return this.emit({ typing: wire.typing });
    }
  }

  private emit(e: HubEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        log.warn({ err }, "a stream listener failed");
      }
    }
  }

  /** Heartbeats for this process's streams; deadlines for every stream; forget ended ones. */
  private tick(): void {
    const now = Date.now();
    if (now - this.lastBeat >= this.heartbeatMs) {
      this.lastBeat = now;
      // Every stream this process owns, those written from outside too: it ends those itself when they go idle.
      const ids = [...this.held.entries()].filter(([, h]) => h.owner === this.node && !h.ended).map(([id]) => id);
      const statuses = [...this.statuses.entries()].filter(([, s]) => s.owner === this.node).map(([key]) => key);
      // In as many messages as the bus's size needs.
      for (const part of chunked([...ids.map((id) => ({ id })), ...statuses.map((key) => ({ key }))])) {
        const wire: Wire = { t: "alive", owner: this.node, ids: part.flatMap((x) => ("id" in x ? [x.id] : [])), statuses: part.flatMap((x) => ("key" in x ? [x.key] : [])) };
        this.bus.publish(JSON.stringify({ o: this.node, w: wire }));
      }
    }
    for (const [id, h] of this.held) {
      if (h.ended) {
        if (h.expires_at < now) {
          this.held.delete(id);
          this.writers.delete(id);
        }
        continue;
      }
      if (h.expires_at >= now) continue;
      if (h.owner === this.node && !h.external) continue; // its writer ends it
      const end: StreamEnd = {
        stream_id: id,
        status: "interrupted",
        reason: h.external ? `nothing was written for ${Math.round(this.externalIdleMs / 1000)} s` : "the process writing it stopped",
      };
      if (h.owner === this.node) {
        this.writers.get(id)?.end("interrupted", { reason: end.reason! });
      } else this.apply({ t: "end", end }, false); // every process decides this alone: nothing to send
    }
    // A status whose owner died goes with its deadline, as its streams do.
    for (const s of [...this.statuses.values()]) {
      if (s.owner !== this.node && s.expires_at < now) this.apply({ t: "status", status: { ...s.status, status: null }, owner: s.owner }, false);
    }
  }
}

/** A stream written in this process: coalesces its deltas (see the hub's invariants). */
class Writer implements StreamWriter {
  private sent = "";
  private current = "";
  private timer: NodeJS.Timeout | null = null;
  private lastFlush = 0;
  ended: StreamEnd | null = null;

  constructor(
    private readonly hub: StreamHub,
    readonly info: StreamInfo,
  ) {}

  get stream_id(): string {
    return this.info.stream_id;
  }

  get text(): string {
    return this.current;
  }

  append(text: string): void {
    if (text) this.set(this.current + text);
  }

  set(text: string): void {
    if (this.ended || text === this.current) return;
    this.current = text;
    const wait = this.lastFlush + this.hub.coalesceMs - Date.now();
    if (wait <= 0) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), wait);
  }

  end(status: StreamEnd["status"] = "done", extra: Omit<StreamEnd, "stream_id" | "status"> = {}): void {
    if (this.ended) return;
    this.flush();
    this.hub.publish({ t: "end", end: { stream_id: this.stream_id, status, ...extra } });
  }

  /** The hub heard this stream end (here or from a person's Stop elsewhere). */
  markEnded(end: StreamEnd): void {
    this.ended = end;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ended || this.current === this.sent) return;
    this.lastFlush = Date.now();
    const offset = commonPrefix(this.sent, this.current);
    this.hub.publish({ t: "delta", delta: { stream_id: this.stream_id, offset, text: this.current.slice(offset) } });
    this.sent = this.current;
  }
}
