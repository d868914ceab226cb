/**
 * Several Clutch nodes on one PostgreSQL (docs/deploy.md): each node tails the log itself, woken
 * by the events table's notification (server/events/tail.ts `listen`). A node whose tail never
 * polls still gets every event another node appends, in seq order, each once; when its
 * notification connection is cut, it reconnects and reads what it missed.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { createDb, type Db } from "@/server/db/client";
import { EventTail } from "@/server/events/tail";
import { prismaSql } from "@/server/events/sql";
import { chat, newThread, testClutch } from "./helpers";

describe.skipIf(inject("embeddedDatabase"))("two nodes on one database", () => {
  let nodeA: Clutch;
  let db: Db;
  let tailB: EventTail;
  const seen: StoredEvent[] = [];

  beforeAll(async () => {
    nodeA = await testClutch();
    // Node B's tail never polls: only the notifications can bring it node A's events.
    db = createDb(inject("databaseUrl"), { max: 2 });
    tailB = new EventTail(prismaSql(db), { pollMs: 0 });
    await tailB.start();
    await tailB.listen(inject("databaseUrl"));
    tailB.subscribe((ev) => seen.push(ev));
  });
  afterAll(async () => {
    tailB?.stop();
    await db?.$disconnect();
    await nodeA?.stop();
  });

  /** Node A appends `n` messages of a new run in `batches` concurrent appends; resolves with the run and the seqs. */
  async function appendOnA(thread_id: string, n: number, batches: number): Promise<{ run_id: string; seqs: number[] }> {
    const per = n / batches;
    const run_id = newId("run");
    const results = await Promise.all(
      Array.from({ length: batches }, (_, b) => nodeA.store.append(Array.from({ length: per }, (_, i) => chat(`message ${b}.${i}`, { thread_id, run_id })))),
    );
    return { run_id, seqs: results.flatMap((r) => r.events.map((e) => e.seq)).sort((a, b) => a - b) };
  }

  it("brings node B every event node A appends, in seq order, each once", async () => {
    const thread_id = await newThread(nodeA, "nodes");
    const { run_id, seqs } = await appendOnA(thread_id, 300, 6);
    await expect.poll(() => seen.filter((e) => e.run_id === run_id).length, { timeout: 10_000 }).toBe(300);
    expect(seen.filter((e) => e.run_id === run_id).map((e) => e.seq)).toEqual(seqs);
    // Everything B released, from any thread, is in order and without repeats.
    const all = seen.map((e) => e.seq);
    expect(all).toEqual([...new Set(all)].sort((a, b) => a - b));
  });

  it("reconnects after its notification connection is cut, and reads what it missed", async () => {
    const thread_id = await newThread(nodeA, "cut");
    const admin = new pg.Client({ connectionString: inject("databaseUrl") });
    await admin.connect();
    try {
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN clutch_events' AND datname = current_database()");
      expect(cut.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    const { run_id, seqs } = await appendOnA(thread_id, 20, 2);
    await expect.poll(() => seen.filter((e) => e.run_id === run_id).map((e) => e.seq), { timeout: 10_000 }).toEqual(seqs);
  });
});
