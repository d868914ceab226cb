/**
 * Durable dispatch (docs/lifecycle.md "Dispatch"): on PostgreSQL, the work a task.request gives an
 * agent of this workspace is a job in a PostgreSQL queue (graphile-worker), added in the same
 * transaction as the request (server/events/append.ts InTxHook). A request is stored with its job
 * or not at all, so a crash between the append and the dispatch loses nothing: whichever worker
 * runs next takes the job, and one worker takes it. The embedded database keeps the in-process
 * path (the orchestrator dispatches as it reacts to the request).
 *
 *   const queue = new DispatchQueue({ connectionString, identifier: "clutch.dispatch", isLocalAgent });
 *   await queue.migrate();                  // the queue's schema, once per database
 *   store.setInTx(queue.enqueueInTx);       // jobs commit with their requests
 *   await queue.start((job) => orchestrator.dispatchJob(job));   // on the leader only (docs/deploy.md)
 *   await queue.stop();                     // no longer the leader: stop taking jobs
 *   await queue.close();
 *
 * A job is `{ run_id, task_id, attempt }`; its handler dispatches the task (the policy gate, then
 * the agent's instance), which is idempotent, and a handler that throws is tried again by the
 * queue with backoff (at most 5 times).
 *
 * The same queue carries webhook deliveries (`<deployment>.webhook`, server/adapters/webhook/
 * webhook.ts): an event addressed to an external agent with a webhook commits with a job
 * `{ seq, agent_id }` (job key `<run>/<event id>>agent`, so one per event and agent), and any
 * node of the deployment delivers it (server/dispatch/turns.ts, beside the agents' turns); a
 * delivery cut short by a stop or a crash is delivered again after it, with the same `webhook-id`.
 */
import { Pool } from "pg";
import { Logger, makeWorkerUtils, run, runMigrations, type Runner } from "graphile-worker";
import type { StoredEvent } from "@/lib/protocol";
import type { Sql } from "../events/sql";
import { log } from "../log";
import { needsRouting } from "../router/router";

/** One dispatch: the task and the attempt whose request created it. */
export interface DispatchJob {
  run_id: string;
  task_id: string;
  attempt: number;
}

/** One webhook delivery: the stored event (by seq) and the agent it goes to. */
export interface WebhookJob {
  seq: number;
  agent_id: string;
}

/** The job `ev` creates: a task.request to an agent this Clutch runs (not one for the router). */
export function dispatchJobOf(ev: StoredEvent, isLocalAgent: (agent_id: string) => boolean): DispatchJob | null {
  if (ev.type !== "task.request" || needsRouting(ev)) return null;
  const to = ev.to[0]?.agent_id;
  if (!to || !isLocalAgent(to)) return null;
  return { run_id: ev.run_id, task_id: ev.task_id, attempt: ev.attempt ?? 1 };
}

/** Arbitrary constant naming the lock that serializes the queue's schema migrations. */
const MIGRATE_LOCK_KEY = 0x436c7564; // "Clud"

/** graphile-worker's log lines through Clutch's logger (warnings and errors only). */
const logger = new Logger(() => (level, message, meta) => {
  // A failed job is tried again (a delivery cut short by a stop, a dispatch that failed): a warning.
  if (level === "error" && !(meta as { failure?: boolean } | undefined)?.failure) log.error({ meta }, `dispatch queue: ${message}`);
  else if (level === "error") log.warn({ meta }, `dispatch queue: ${message}`);
  else if (level === "warning") log.warn({ meta }, `dispatch queue: ${message}`);
});

/**
 * Install or update graphile-worker's schema (`graphile_worker`) on `pool`'s database, one
 * process at a time (an advisory lock): the dispatch queue's and the turn queue's (turns.ts).
 */
export async function migrateJobSchema(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${MIGRATE_LOCK_KEY})`);
    try {
      await runMigrations({ pgPool: pool, logger });
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATE_LOCK_KEY})`);
    }
  } finally {
    client.release();
  }
}

export class DispatchQueue {
  private readonly pool: Pool;
  private runner: Runner | null = null;

  /**
   * `identifier` is the job kind this Clutch adds and takes (one per deployment: every node of
   * it uses the same); `isLocalAgent` says which agents this Clutch runs.
   */
  constructor(
    private readonly opts: {
      connectionString: string;
      identifier: string;
      isLocalAgent: (agent_id: string) => boolean;
      /** Webhook jobs: their kind, and the agents of `ev.to` that have a webhook. */
      webhooks?: { identifier: string; agentsOf: (ev: StoredEvent) => string[] };
    },
  ) {
    // Idle connections close soon: every node and process of the deployment shares the server's limit.
    this.pool = new Pool({ connectionString: opts.connectionString, max: 3, idleTimeoutMillis: 2000 });
  }

  /** Install or update the queue's schema (`graphile_worker`), one process at a time. */
  migrate(): Promise<void> {
    return migrateJobSchema(this.pool);
  }

  /** The append transaction's hook: one job for each new request to a local agent. */
  readonly enqueueInTx = async (sql: Sql, fresh: StoredEvent[]): Promise<void> => {
    for (const ev of fresh) {
      const job = dispatchJobOf(ev, this.opts.isLocalAgent);
      if (job) await sql.query(`SELECT 1 FROM graphile_worker.add_job($1, $2::json, max_attempts => 5)`, [this.opts.identifier, JSON.stringify(job)]);
      const hooks = this.opts.webhooks;
      for (const agent_id of hooks?.agentsOf(ev) ?? []) {
        const delivery: WebhookJob = { seq: ev.seq, agent_id };
        await sql.query(`SELECT 1 FROM graphile_worker.add_job($1, $2::json, max_attempts => 5, job_key => $3, job_key_mode => 'preserve_run_at')`, [
          hooks!.identifier,
          JSON.stringify(delivery),
          `${ev.run_id}/${ev.id}>${agent_id}`,
        ]);
      }
    }
  };


  /**
   * Take dispatch jobs (a LISTEN wakes the worker as a job is added; it also polls every 2 s) and
   * hand each to `handle`. Webhook deliveries are every node's (turns.ts).
   */
  async start(handle: (job: DispatchJob) => Promise<void>): Promise<void> {
    this.runner = await run({
      pgPool: this.pool,
      logger,
      concurrency: 2,
      pollInterval: 2000,
      noHandleSignals: true,
      taskList: {
        [this.opts.identifier]: async (payload) => handle(payload as DispatchJob),
      },
    });
  }

  /**
   * Jobs left locked by workers of this queue that are not running: a node that died or stopped
   * leading while it held them (graphile-worker would keep them locked for 4 hours). Called by
   * the leader before it starts taking jobs, when no other worker of this queue runs.
   */
  async unlockAbandoned(): Promise<number> {
    const r = await this.pool.query(
      `SELECT DISTINCT j.locked_by FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier = $1 AND j.locked_by IS NOT NULL`,
      [this.opts.identifier],
    );
    const workers = r.rows.map((row: { locked_by: string }) => row.locked_by);
    if (workers.length) {
      const utils = await makeWorkerUtils({ pgPool: this.pool, logger });
      try {
        await utils.forceUnlockWorkers(workers);
      } finally {
        await utils.release();
      }
    }
    return workers.length;
  }

  /** Stop taking jobs; resolves when the jobs in hand have finished. `start()` may follow. */
  async stop(): Promise<void> {
    await this.runner?.stop();
    this.runner = null;
  }

  /** Stop taking jobs, then close the queue's connections. */
  async close(): Promise<void> {
    await this.stop();
    await this.pool.end();
  }

  /** The job kinds this queue adds. */
  private identifiers(): string[] {
    return [this.opts.identifier, ...(this.opts.webhooks ? [this.opts.webhooks.identifier] : [])];
  }

  /** Jobs of this queue not yet done, of every kind or of `kind` (tests, the health of the queue). */
  async pending(kind?: "dispatch" | "webhook"): Promise<number> {
    const kinds = kind === "webhook" ? [this.opts.webhooks?.identifier ?? ""] : kind === "dispatch" ? [this.opts.identifier] : this.identifiers();
    const r = await this.pool.query(
      `SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = ANY($1::text[])`,
      [kinds],
    );
    return (r.rows[0] as { n: number }).n;
  }
}
