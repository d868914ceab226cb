/**
 * Agents' turns (and webhook deliveries) on every node (docs/deploy.md "Where agents run"; docs/lifecycle.md "Dispatch").
 * On PostgreSQL, each wake of an agent's instance (`<agent id>/<task id>`: a new task, an answer,
 * a subtask's outcome, a review) is a job of the deployment's queue (graphile-worker, on the
 * database the deployment already has), and any node of the deployment takes it, up to its own
 * concurrency (`CLUTCH_AGENT_CONCURRENCY`). The node that takes a job carries the instance on from
 * the log (server/agents/runner.ts): its model calls, its tool calls (each once, by the log's
 * idempotency keys) and the MCP servers they need, started on that node.
 *
 *   const turns = new TurnQueue({ connectionString, deployment: "clutch", concurrency: 4, bus });
 *   await turns.add({ agent_id: "agent:pm-1", task_id });     // the orchestrator wakes an instance
 *   await turns.start((job, signal) => runner.runTurn(job.agent_id, job.task_id, signal));
 *   await turns.abort({ agent_id, task_id });                 // a cancel: stopped on whichever node runs it
 *   await turns.stop();  await turns.close();
 *
 * Invariants:
 *   - One pass of an instance at a time, deployment-wide: each instance's jobs are in a named
 *     queue of its own (`<deployment>.turn:<agent>/<task>`), which graphile-worker runs one job at
 *     a time, in order.
 *   - Wakes coalesce: the job key is the instance's, so wakes while a job waits are one job; a
 *     wake while the job runs adds one more (graphile-worker moves the key to a new job), which
 *     runs after it: nothing that arrived during a pass is missed. That job keeps the running
 *     one's place in the queue (its `run_at`), so work in progress goes on before the backlog.
 *   - A node's claims end with it: each worker of a node holds a session advisory lock named after
 *     its worker id on the node's liveness connection. Every node sweeps every `sweepMs`: a job
 *     locked for longer than `SWEEP_GRACE_MS` by a worker whose lock is free (its process died,
 *     its connection closed) is unlocked, keeping its place in the queue, and the idle workers are
 *     told at once. A killed node's turns resume within `sweepMs` + `SWEEP_GRACE_MS` (≤ 4 s by
 *     default; a leader's too: the new leader's recovery wakes no instance that has a job); a
 *     vanished machine's within its session's TCP keepalive time (about 25 s, as the leader lease).
 *   - A pass cut short by this node's stop (or its lost liveness session) is handed back: the
 *     handler adds the instance's job again before it returns, so another node carries it on.
 *
 * The deployment's webhook deliveries (`<deployment>.webhook`, jobs committed with their events by
 * the dispatch queue, ./queue.ts) are taken the same way, by any node, and swept the same way.
 */
import { EventEmitter } from "node:events";
import { Client, Pool } from "pg";
import { Logger, run, type Runner, type WorkerEvents } from "graphile-worker";
import { z } from "zod";
import { log } from "../log";
import type { StreamBus } from "../streams/bus";
import { migrateJobSchema, type WebhookJob } from "./queue";

/** One wake of an agent's instance. */
export interface TurnJob {
  agent_id: string;
  task_id: string;
}

const TurnJobSchema = z.object({ agent_id: z.string().min(1), task_id: z.string().min(1) });
const WebhookJobSchema = z.object({ seq: z.number().int().positive(), agent_id: z.string().min(1) });

/** What became of a job's pass: `done` (or nothing left to do), or `interrupted` by this node's stop. */
export type TurnOutcome = "done" | "interrupted";

/** The first key of the two-key advisory lock space of workers' liveness ("Cluw"; the leader lease uses "Clut"). */
export const WORKER_SPACE = 0x436c7577;

/** How long a job must have been locked before a sweep looks at its worker, ms (a new worker takes its lock at once). */
export const SWEEP_GRACE_MS = 2000;

/** Default concurrency of a node: agents' passes at once (CLUTCH_AGENT_CONCURRENCY). */
export const DEFAULT_AGENT_CONCURRENCY = 4;

/** graphile-worker's log lines through Clutch's logger (warnings and errors only). */
const logger = new Logger(() => (level, message, meta) => {
  // The pool is small on purpose (see the constructor): graphile-worker's advice to size it to the concurrency does not apply.
  if (message.includes("maxPoolSize")) return;
  if (level === "error" || level === "warning") log.warn({ meta }, `turn queue: ${message}`);
});

export interface TurnQueueOptions {
  connectionString: string;
  /** The deployment's name: its nodes share its turns. */
  deployment: string;
  /** Passes this node runs at once (CLUTCH_AGENT_CONCURRENCY; default 4). */
  concurrency?: number;
  /** The deployment's bus: a cancel reaches the node running the instance (`{ turn_abort: key }`). */
  bus: StreamBus;
  /** How often this node looks for turns left locked by nodes that are gone, ms (default 2000). */
  sweepMs?: number;
  /** The job kind of the deployment's webhook deliveries (`<deployment>.webhook`), taken here too. */
  webhookIdentifier?: string;
}

export class TurnQueue {
  private readonly pool: Pool;
  private readonly identifier: string;
  private runner: Runner | null = null;
  private liveness: Client | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  /** The passes running here, by instance key: their abort. */
  private readonly here = new Map<string, AbortController>();
  /** This node's workers' ids: its liveness session holds their locks (a sweep must not take them for gone). */
  private readonly workers = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private stopping = false;
  private closed = false;
  private sweeping = false;
  private pass: ((job: TurnJob, signal: AbortSignal) => Promise<TurnOutcome>) | null = null;
  private deliver: ((job: WebhookJob) => Promise<void>) | null = null;

  constructor(private readonly opts: TurnQueueOptions) {
    // A pass holds no connection while it runs (its events go through the store): these only take
    // and finish jobs, and idle ones close soon, since every node and process shares the server's limit.
    this.pool = new Pool({ connectionString: opts.connectionString, max: 2, idleTimeoutMillis: 2000 });
    this.identifier = `${opts.deployment}.turn`;
  }

  /** The job kinds this node takes: turns, and webhook deliveries when there are any. */
  private kinds(): string[] {
    return [this.identifier, ...(this.opts.webhookIdentifier ? [this.opts.webhookIdentifier] : [])];
  }

  /** The instance key of a job: `<agent id>/<task id>`. */
  static key(job: TurnJob): string {
    return `${job.agent_id}/${job.task_id}`;
  }

  /** The named queue of an instance's jobs. */
  private queueName(job: TurnJob): string {
    return `${this.identifier}:${TurnQueue.key(job)}`;
  }

  /** Install or update the queue's schema (`graphile_worker`), once per database. */
  migrate(): Promise<void> {
    return migrateJobSchema(this.pool);
  }

  /**
   * Wake the instance: its job is added (or joined, when one waits). A new job of an instance that
   * has one (running, or taken over from a node that died) is dated as that one: work in progress
   * goes on before the backlog. `unless-queued`: nothing when
   * the instance has a job waiting or running already (a recovery's wake: a job swept from a node
   * that died keeps its place, which joining would move to the back). Rejects when the database
   * cannot take it.
   */
  async add(job: TurnJob, mode: "again" | "unless-queued" = "again"): Promise<void> {
    await this.pool.query(
      `SELECT (graphile_worker.add_job($1, $2::json, queue_name => $3, job_key => $3, job_key_mode => 'preserve_run_at', max_attempts => 5, run_at => (
                 SELECT min(j.run_at) FROM graphile_worker._private_jobs j JOIN graphile_worker._private_job_queues q ON q.id = j.job_queue_id WHERE q.queue_name = $3))).id
        WHERE NOT ($4 AND EXISTS (SELECT 1 FROM graphile_worker._private_jobs WHERE key = $3 OR (locked_by IS NOT NULL AND job_queue_id = (SELECT id FROM graphile_worker._private_job_queues WHERE queue_name = $3))))`,
      [this.identifier, JSON.stringify({ agent_id: job.agent_id, task_id: job.task_id }), this.queueName(job), mode === "unless-queued"],
    );
  }

  /**
   * Take turns: up to `concurrency` jobs at once, each handed to `pass` with a signal that aborts
   * when the instance is cancelled (anywhere in the deployment) or this node stops. A pass that
   * throws is tried again by the queue with backoff (at most 5 times); an `interrupted` one is
   * handed back at once. Webhook deliveries go to `deliver` (one that throws is tried again).
   */
  async start(pass: (job: TurnJob, signal: AbortSignal) => Promise<TurnOutcome>, deliver?: (job: WebhookJob) => Promise<void>): Promise<void> {
    this.pass = pass;
    this.deliver = deliver ?? null;
    const webhooks = this.opts.webhookIdentifier;
    this.stopping = false;
    const liveness = new Client({ connectionString: this.opts.connectionString, keepAlive: true, application_name: `clutch turns ${this.opts.deployment}` });
    liveness.on("error", (err) => this.lost(liveness, err));
    await liveness.connect();
    await liveness.query("SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3");
    this.liveness = liveness;
    this.unsubscribe ??= this.opts.bus.subscribe((raw) => this.heard(raw));
    // Each worker's lock says it lives; taken before its first job is old enough to be swept.
    const events: WorkerEvents = new EventEmitter();
    let held: Promise<unknown> = Promise.resolve();
    events.on("worker:create", ({ worker }) => {
      this.workers.add(worker.workerId);
      // One statement at a time on the session.
      held = held.then(() => liveness.query("SELECT pg_advisory_lock($1, hashtext($2))", [WORKER_SPACE, worker.workerId])).catch(() => undefined);
    });
    this.runner = await run({
      pgPool: this.pool,
      logger,
      events,
      concurrency: this.concurrency,
      pollInterval: 2000,
      noHandleSignals: true,
      taskList: {
        [this.identifier]: async (payload) => {
          const job = TurnJobSchema.parse(payload);
          const key = TurnQueue.key(job);
          const controller = new AbortController();
          this.here.set(key, controller);
          try {
            const outcome = await pass(job, controller.signal);
            // Cut short by this node's stop: another node (or this one, started again) carries it on.
            if (outcome === "interrupted" || (this.stopping && controller.signal.aborted)) await this.add(job);
          } finally {
            this.here.delete(key);
          }
        },
        ...(webhooks && deliver ? { [webhooks]: async (payload: unknown) => deliver(WebhookJobSchema.parse(payload)) } : {}),
      },
    });
    await held;
    this.sweeper = setInterval(() => void this.sweep().catch((err) => log.warn({ err }, "turn queue: sweeping abandoned turns failed")), this.opts.sweepMs ?? 2000);
    this.sweeper.unref();
  }

  /**
   * Unlock the turns held by workers that are gone (their liveness lock is free), so live nodes
   * take them; returns how many workers' turns were unlocked. Set-based: one statement finds the
   * abandoned workers, one unlocks them.
   */
  async sweep(): Promise<number> {
    const liveness = this.liveness;
    if (!liveness || this.sweeping) return 0;
    this.sweeping = true;
    try {
      return await this.sweepWith(liveness);
    } finally {
      this.sweeping = false;
    }
  }

  private async sweepWith(liveness: Client): Promise<number> {
    // A free lock is taken by this probe and let go just after; a live worker's is not free. This
    // node's own workers are left out: their locks are this session's, so the probe would get them.
    const r = await liveness.query<{ worker: string }>(
      `SELECT worker FROM (
         SELECT DISTINCT j.locked_by AS worker FROM graphile_worker._private_jobs j
           JOIN graphile_worker._private_tasks t ON t.id = j.task_id
          WHERE t.identifier = ANY($1::text[]) AND j.locked_by IS NOT NULL AND NOT (j.locked_by = ANY($4::text[]))
            AND j.locked_at < now() - make_interval(secs => $3::float8 / 1000)
       ) held WHERE pg_try_advisory_lock($2, hashtext(worker))`,
      [this.kinds(), WORKER_SPACE, SWEEP_GRACE_MS, [...this.workers]],
    );
    const gone = r.rows.map((row) => row.worker);
    if (!gone.length) return 0;
    const held = await this.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE locked_by = ANY($1::text[])", [gone]);
    await this.pool.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [gone]);
    // Idle workers hear of the freed jobs at once (graphile-worker's own channel), not at their next poll.
    await this.pool.query(`SELECT pg_notify('jobs:insert', json_build_object('r', random(), 'count', $1::int)::text)`, [held.rows[0]?.n ?? 1]);
    await liveness.query("SELECT pg_advisory_unlock($1, hashtext(w)) FROM unnest($2::text[]) w", [WORKER_SPACE, gone]);
    // A job woken again while it ran was superseded by a newer one (graphile-worker cleared its key
    // and spent its attempts): unlocked, it has nothing left to do.
    await this.pool.query(
      `DELETE FROM graphile_worker._private_jobs j USING graphile_worker._private_tasks t
        WHERE t.id = j.task_id AND t.identifier = $1 AND j.locked_by IS NULL AND j.key IS NULL AND j.last_error IS NULL AND j.attempts >= j.max_attempts`,
      [this.identifier],
    );
    log.info({ workers: gone }, "turns of workers that are gone unlocked: live nodes carry them on");
    return gone.length;
  }

  /**
   * Stop the instance's pass wherever it runs (a cancel, a timeout): here at once, on another node
   * as it hears the bus. Resolves once no node runs it (at most `waitMs`, default 10 s).
   */
  async abort(job: TurnJob, waitMs = 10_000): Promise<void> {
    const key = TurnQueue.key(job);
    this.here.get(key)?.abort(new Error(`task ${job.task_id} ended`));
    this.opts.bus.publish(JSON.stringify({ turn_abort: key }));
    const until = Date.now() + waitMs;
    while (Date.now() < until && (await this.running(job))) await new Promise((r) => setTimeout(r, 100));
  }

  /** Whether some node runs the instance's pass now (its queue is locked). */
  async running(job: TurnJob): Promise<boolean> {
    const r = await this.pool.query(`SELECT 1 FROM graphile_worker._private_job_queues WHERE queue_name = $1 AND locked_by IS NOT NULL`, [this.queueName(job)]);
    return (r.rowCount ?? 0) > 0;
  }

  /** Turns of this deployment not yet done (waiting or running, on any node; not those that failed for good). */
  async pending(): Promise<number> {
    const r = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier = $1 AND (j.locked_by IS NOT NULL OR j.attempts < j.max_attempts)`,
      [this.identifier],
    );
    return r.rows[0]?.n ?? 0;
  }

  /** How many passes this node may run at once. */
  get concurrency(): number {
    return this.opts.concurrency ?? DEFAULT_AGENT_CONCURRENCY;
  }

  /** How many passes this node runs now. */
  get load(): number {
    return this.here.size;
  }

  /**
   * Take no new turns; the passes in hand finish (their handler hands an interrupted one back)
   * before this resolves. `abortAfterMs`: passes still running then are aborted (and handed back).
   */
  async stop(abortAfterMs?: number): Promise<void> {
    this.stopping = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    const timer = abortAfterMs === undefined ? null : setTimeout(() => this.abortAll("this node is stopping"), abortAfterMs);
    timer?.unref();
    try {
      await this.runner?.stop();
    } finally {
      if (timer) clearTimeout(timer);
    }
    this.runner = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    const liveness = this.liveness;
    this.liveness = null;
    this.workers.clear();
    await liveness?.end().catch(() => undefined);
  }

  /** Abort every pass running here (`reason` is their signal's). */
  abortAll(reason: string): void {
    for (const c of this.here.values()) c.abort(new Error(reason));
  }

  /** Stop taking turns, then close the queue's connections. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
    await this.pool.end();
  }

  /** Another node's cancel of an instance this node may run. */
  private heard(raw: string): void {
    if (!raw.includes("turn_abort")) return;
    let key: unknown;
    try {
      key = (JSON.parse(raw) as { turn_abort?: unknown }).turn_abort;
    } catch {
      return;
    }
    if (typeof key === "string") this.here.get(key)?.abort(new Error("the task ended"));
  }

  /**
   * The liveness session is gone: the other nodes may take this node's turns now, so its passes
   * stop at once (handed back), and it takes turns again on a new session, trying every 2 s.
   */
  private lost(session: Client, err: unknown): void {
    if (this.stopping || this.liveness !== session) return;
    log.warn({ err }, "turn queue: the liveness session was lost; the passes here stop and are handed back");
    this.abortAll("this node lost its database session");
    const pass = this.pass!;
    const deliver = this.deliver ?? undefined;
    const again = async (): Promise<void> => {
      await this.stop();
      while (!this.closed) {
        try {
          await this.start(pass, deliver);
          log.info("turn queue: taking turns again on a new session");
          return;
        } catch (e) {
          log.warn({ err: e }, "turn queue: the database cannot be reached; trying again in 2 s");
          await this.stop().catch(() => undefined);
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    };
    void again();
  }
}
