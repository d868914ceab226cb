/**
 * How the stream hubs of a deployment's processes hear each other (server/streams/hub.ts;
 * docs/architecture.md "Streaming"). A process that writes a stream (the leader's agents, a
 * route an external agent calls) and the processes that serve the sockets (every node's
 * gateway, or its realtime process) may be different processes on different machines, so each
 * hub publishes what it writes on the bus and applies what the others publish.
 *
 * - `LocalBus`: one process (the embedded default): nothing to send.
 * - `PgBus`: PostgreSQL's `NOTIFY` / `LISTEN` on the deployment's channel (`streamsChannel`:
 *   `clutch_streams_<hash of its name>`), on the database the deployment already has. A notification carries at most 8,000 bytes, so the hub keeps
 *   its messages under MAX_MESSAGE_BYTES; notifications from one session arrive in the order
 *   they were sent; the bus sends one statement at a time (through the append path's pool), so
 *   each stream's deltas stay in order. What is published while a statement is on its way goes
 *   in the next one, all of it in one statement. A lost
 *   listening connection is opened again (1 s, doubling to 30 s); what was said meanwhile is
 *   lost, which a stream survives (its stored message replaces it when it ends).
 */
import pg from "pg";
import { log } from "../log";
import type { Sql } from "../events/sql";

export const STREAMS_CHANNEL = "clutch_streams";

/**
 * The notification channel of a deployment's streams: STREAMS_CHANNEL and a hash of its name, so
 * deployments that share a database (tests, staging beside production) do not hear each other.
 */
export function streamsChannel(deployment: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < deployment.length; i++) {
    h ^= deployment.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${STREAMS_CHANNEL}_${(h >>> 0).toString(16).padStart(8, "0")}`;
}
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
  private sending: Promise<unknown> = Promise.resolve();
  /** Messages waiting for the next round trip: each round trip sends all that queued meanwhile. */
  private queue: string[] = [];
  private readonly listeners = new Set<(message: string) => void>();
  private reconnectMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly sql: Sql,
  ) {}

  /**
   * Listening on `channel` (streamsChannel of the deployment) with a connection of its own, and
   * sending through `sql` (the append path's pool: no connection of its own for that); rejects
   * when the database cannot be reached.
   */
  static async connect(connectionString: string, sql: Sql, channel = STREAMS_CHANNEL): Promise<PgBus> {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`the stream channel "${channel}" must be a lowercase identifier`);
    const bus = new PgBus(connectionString, channel, sql);
    await bus.listen();
    return bus;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("notification", (n) => {
      if (n.channel !== this.channel || !n.payload) return;
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
      await client.query(`LISTEN ${this.channel}`);
    } catch (err) {
      lost(err);
      throw err;
    }
  }

  publish(message: string): void {
    if (this.closed) return;
    this.queue.push(message);
    if (this.queue.length > 1) return; // a send is already on its way for this batch
    this.sending = this.sending
      .then(async () => {
        const batch = this.queue;
        this.queue = [];
        // One statement for the batch, in order (one transaction keeps its notifications' order).
        await this.sql.query("SELECT pg_notify($1, m) FROM unnest($2::text[]) WITH ORDINALITY AS t(m, i) ORDER BY i", [this.channel, batch]);
      })
      .catch((err: unknown) => log.warn({ err }, "stream messages could not be sent to the other processes"));
  }

  subscribe(listener: (message: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.sending;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }
}
