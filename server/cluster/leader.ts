/**
 * Leader election on PostgreSQL (docs/deploy.md "Several nodes"): the nodes of one deployment
 * compete for a session-level advisory lock named after the deployment; the node whose session
 * holds it is the leader and does the agents' work, the others stand by and try again every
 * `retryMs`. A leader's lock goes with its session: when the process dies, its connection closes
 * and PostgreSQL releases the lock at once; when the machine vanishes, the session's TCP keepalives
 * (10 s idle, then 3 probes 5 s apart) end it within about 25 s. A leader that loses its session
 * (the database restarted, the network dropped, a liveness probe got no answer) stops being one
 * before it tries again.
 *
 *   const lease = new LeaderLease({ connectionString, name: "clutch", onAcquire, onRelease });
 *   const leader = await lease.start();   // true: this node leads (onAcquire has run)
 *   await lease.stop();                   // onRelease(false) while still holding, then the lock goes
 *
 * `onAcquire` runs once per term, before `held` says so to anyone; `onRelease(lost)` ends the
 * term: `lost` true when the session was already gone (another node may lead by now), false when
 * `stop()` releases it (the lock is held until onRelease resolves). Neither runs concurrently with
 * the other.
 */
import { Client } from "pg";
import { log } from "../log";

/** The first key of the two-key advisory lock space Clutch's leases use ("Clut"). */
const LEASE_SPACE = 0x436c7574;

export interface LeaderLeaseOptions {
  connectionString: string;
  /** The deployment's name; every node of one deployment uses the same. */
  name: string;
  /** Become the leader: start the work. Its error on the first try rejects `start()`; later ones are logged and the term is given up. */
  onAcquire: () => Promise<void>;
  /** Stop the work; `lost` says the session is already gone. Must not throw. */
  onRelease: (lost: boolean) => Promise<void>;
  /** How often a standby node tries for the lock and a leader probes its session, ms (default 2000). */
  retryMs?: number;
}

export class LeaderLease {
  private stopped = false;
  private leading = false;
  private loop: Promise<void> | null = null;
  /** Ends the wait of the current term or pause (a lost session, `stop()`). */
  private wakeUp: () => void = () => {};

  constructor(private readonly opts: LeaderLeaseOptions) {}

  /** Whether this node is the leader now. */
  get held(): boolean {
    return this.leading;
  }

  /**
   * Try for the lock once, becoming the leader if it is free, then keep trying in the background.
   * Resolves with whether this node leads; rejects with onAcquire's error (the lock is let go) or
   * the database's when it cannot be reached.
   */
  async start(): Promise<boolean> {
    const first = await this.attempt();
    if (first.error) throw first.error;
    this.loop = this.run(first.client);
    return first.client !== null;
  }

  /** Stop trying; a leader ends its term (onRelease(false)) before the lock goes. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp();
    await this.loop;
  }

  /** One try: a connected session that holds the lock with onAcquire done, or none (and why, if it failed). */
  private async attempt(): Promise<{ client: Client | null; error?: unknown }> {
    const client = new Client({ connectionString: this.opts.connectionString, keepAlive: true, query_timeout: 10_000, application_name: `clutch leader lease ${this.opts.name}` });
    client.on("error", () => this.wakeUp()); // a lost session; the term's wait notices
    try {
      await client.connect();
      await client.query("SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3");
      const r = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok", [LEASE_SPACE, this.opts.name]);
      if (!r.rows[0]?.ok) {
        await client.end().catch(() => undefined);
        return { client: null };
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      return { client: null, error };
    }
    try {
      await this.opts.onAcquire();
      this.leading = true;
      log.info({ deployment: this.opts.name }, "this node leads: the agents work here");
      return { client };
    } catch (error) {
      await this.opts.onRelease(false);
      await client.end().catch(() => undefined);
      return { client: null, error };
    }
  }

  /** Terms and pauses until stop(): hold while the session answers, then try again every retryMs. */
  private async run(held: Client | null): Promise<void> {
    let client = held;
    for (;;) {
      if (client) {
        // A term, also one won just as stop() came: it ends here either way.
        const lost = await this.holdWhileAlive(client);
        this.leading = false;
        if (lost) log.warn({ deployment: this.opts.name }, "the leader's database session was lost: the agents stop here until this node leads again");
        await this.opts.onRelease(lost);
        await client.end().catch(() => undefined);
        client = null;
      }
      if (this.stopped) return;
      await this.pause(this.opts.retryMs ?? 2000);
      if (this.stopped) return;
      const next = await this.attempt();
      if (next.error) log.warn({ err: next.error, deployment: this.opts.name }, "could not become the leader; trying again");
      client = next.client;
    }
  }

  /** Wait until `stop()` (resolves false) or the session is gone (true): an error, its end, or a probe without answer. */
  private async holdWhileAlive(client: Client): Promise<boolean> {
    let lost = false;
    const onEnd = () => {
      lost = true;
      this.wakeUp();
    };
    client.on("end", onEnd);
    client.on("error", onEnd);
    try {
      while (!this.stopped && !lost) {
        await this.pause(this.opts.retryMs ?? 2000);
        if (this.stopped || lost) break;
        await client.query("SELECT 1").catch(onEnd);
      }
    } finally {
      client.off("end", onEnd);
      client.off("error", onEnd);
    }
    return lost;
  }

  /** Sleep `ms`, or less when wakeUp() is called. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
