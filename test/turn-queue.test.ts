/**
 * The turn queue itself (server/dispatch/turns.ts) on a real PostgreSQL: wakes of one instance
 * coalesce into one waiting job; a recovery's wake (`unless-queued`) adds nothing when a job waits,
 * so that job keeps its place; a turn left locked by a worker that is gone is swept, keeps its
 * place, and runs on a live node within seconds.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { newId } from "@/lib/protocol";
import { TurnQueue, type TurnJob } from "@/server/dispatch/turns";
import { LocalBus } from "@/server/streams/bus";

describe.skipIf(inject("embeddedDatabase"))("the turn queue", () => {
  let db: pg.Client;
  const queues: TurnQueue[] = [];
  const queue = () => {
    const q = new TurnQueue({ connectionString: inject("databaseUrl"), deployment: `test.${newId("task")}`, bus: new LocalBus(), concurrency: 2, sweepMs: 200 });
    queues.push(q);
    return q;
  };
  /** The jobs of `q`'s turns: their payload, run_at and lock. */
  const jobs = async (q: TurnQueue) =>
    (
      await db.query<{ payload: TurnJob; run_at: Date; locked_by: string | null }>(
        `SELECT j.payload, j.run_at, j.locked_by FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = $1 ORDER BY j.id`,
        [`${(q as unknown as { opts: { deployment: string } }).opts.deployment}.turn`],
      )
    ).rows;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: inject("databaseUrl") });
    await db.connect();
    await queue().migrate();
  });
  afterAll(async () => {
    for (const q of queues) await q.close();
    await db?.end();
  });

  it("coalesces wakes of one instance into one waiting job; a recovery's wake adds one only where none waits", async () => {
    const q = queue();
    const job = { agent_id: "agent:pm-1", task_id: newId("task") };
    await q.add(job);
    await q.add(job);
    expect(await jobs(q)).toHaveLength(1);
    // Another instance with nothing queued: the recovery's wake adds its job.
    const other = { agent_id: "agent:qa-1", task_id: newId("task") };
    await q.add(other, "unless-queued");
    expect((await jobs(q)).map((j) => j.payload)).toEqual([job, other]);
    expect(await q.pending()).toBe(2);
  });

  it("sweeps a turn locked by a worker that is gone: it keeps its place and runs here within seconds", async () => {
    const q = queue();
    const job = { agent_id: "agent:analyst-1", task_id: newId("task") };
    await q.add(job);
    // A node took it and died: the job and its queue are locked by a worker whose liveness lock nobody holds.
    const [before] = await jobs(q);
    await db.query(
      `UPDATE graphile_worker._private_jobs SET locked_by = 'worker-gone', locked_at = now() - interval '10 seconds', attempts = 1 WHERE payload->>'task_id' = $1`,
      [job.task_id],
    );
    await db.query(`UPDATE graphile_worker._private_job_queues SET locked_by = 'worker-gone', locked_at = now() - interval '10 seconds' WHERE queue_name LIKE $1`, [`%${job.task_id}`]);
    // The recovery of a new leader wakes it again: the job stays where it was.
    await new Promise((r) => setTimeout(r, 50));
    await q.add(job, "unless-queued");
    expect((await jobs(q)).map((j) => j.run_at)).toEqual([before!.run_at]);
    // A new message for the instance wakes it before the sweep: the job that follows keeps the place too.
    await q.add(job);
    expect((await jobs(q)).map((j) => j.run_at)).toEqual([before!.run_at, before!.run_at]);
    const ran: string[] = [];
    const started = Date.now();
    await q.start(async (j) => {
      ran.push(j.task_id);
      return "done";
    });
    // The job taken over was superseded by the newer one: the instance runs once, and nothing is left.
    await expect.poll(() => ran, { timeout: 10_000 }).toEqual([job.task_id]);
    expect(Date.now() - started).toBeLessThan(6_000);
    await expect.poll(() => jobs(q), { timeout: 5_000 }).toEqual([]);
  });
});
