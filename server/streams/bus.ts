/**
 * How the stream hubs of a deployment's processes hear each other (server/streams/hub.ts;
 * docs/architecture.md "Streaming"). A process that writes a stream (the leader's agents, a
 * route an external agent calls) and the processes that serve the sockets (every node's
 * gateway, or its realtime process) may be different processes on different machines, so each
 * hub publishes what it writes on the bus and applies what the others publish.
 *
 * - `LocalBus`: one process (the embedded default): nothing to send.
 * - `PgBus`: PostgreSQL's `NOTIFY clutch_streams` / `LISTEN clutch_streams`, on the database
 *   the deployment already has. A notification carries at most 8,000 bytes, so the hub keeps
 *   its messages under MAX_MESSAGE_BYTES; notifications from one session arrive in the order
 *   they were sent, so one publishing connection keeps each stream's deltas in order. A lost
 *   listening connection is opened again (1 s, doubling to 30 s); what was said meanwhile is
 *   lost, which a stream survives (its stored message replaces it when it ends).
 */
import pg from "pg";
import { log } from "../log";

export const STREAMS_CHANNEL = "clutch_streams";
/** The longest message a bus carries (bytes of UTF-8), under PostgreSQL's 8,000-byte limit. */
export const MAX_MESSAGE_BYTES = 7_800;

export interface StreamBus {
  /** Send `message` (JSON, ≤ MAX_MESSAGE_BYTES) to the other processes; never throws. */
  publish(message: string): void;
  /** Hear the other processes' messages (and possibly this one's own: the hub skips them). */
  subscribe(listener: (message: string) => void): () => void;
  close(): Promise<void>;
}

/** One process: nobody else to tell. */
export class LocalBus implements StreamBus {
  publish(): void {}
  subscribe(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
}

const RECONNECT_MS = 1_000;
const MAX_RECONNECT_MS = 30_000;

/** PostgreSQL LISTEN/NOTIFY on `clutch_streams` (see the module doc). */
export class PgBus implements StreamBus {
  private listener: pg.Client | null = null;
  private sender: pg.Client | null = null;
  private sending: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(message: string) => void>();
  private reconnectMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(private readonly connectionString: string) {}

  /** Connected and listening; rejects when the database cannot be reached. */
  static async connect(connectionString: string): Promise<PgBus> {
    const bus = new PgBus(connectionString);
    await bus.listen();
    return bus;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("notification", (n) => {
      if (n.channel !== STREAMS_CHANNEL || !n.payload) return;
      for (const l of this.listeners) l(n.payload);
    });
    const lost = (err?: unknown) => {
      if (this.listener !== client) return;
      this.listener = null;
      client.end().catch(() => undefined);
      if (this.closed) return;
      if (!this.reconnectMs) log.warn({ err }, "the stream bus lost its connection; reconnecting");
      this.reconnectMs = Math.min(Math.max(RECONNECT_MS, this.reconnectMs * 2), MAX_RECONNECT_MS);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.listen().then(
          () => (this.reconnectMs = 0),
          () => undefined,
        );
      }, this.reconnectMs);
      this.timer.unref();
    };
    client.on("error", lost);
    client.on("end", () => lost());
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${STREAMS_CHANNEL}`);
    } catch (err) {
      lost(err);
      throw err;
    }
  }

  publish(message: string): void {
    if (this.closed) return;
    this.sending = this.sending
      .then(async () => {
        if (!this.sender) {
          const client = new pg.Client({ connectionString: this.connectionString });
          client.on("error", () => {
            if (this.sender === client) this.sender = null;
          });
          await client.connect();
          this.sender = client;
        }
        await this.sender.query("SELECT pg_notify($1, $2)", [STREAMS_CHANNEL, message]);
      })
      .catch((err: unknown) => {
        this.sender?.end().catch(() => undefined);
        this.sender = null;
        log.warn({ err }, "a stream message could not be sent to the other processes");
      });
  }

  subscribe(listener: (message: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.sending;
    await Promise.all([this.listener?.end().catch(() => undefined), this.sender?.end().catch(() => undefined)]);
    this.listener = this.sender = null;
  }
}
