/**
 * The append path against real PostgreSQL (docs/architecture.md "The append path",
 * "Invariants"): ordering, gap-free seq under concurrent writers, dedup, all-or-nothing
 * batches, projections.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { isClutchError } from "@/server/errors";
import { databaseOf } from "@/server/events/testing";
import { chat, msg, newThread, runRow, testClutch } from "@/test/helpers";

let rt: Clutch;
let thread_id: string;

beforeAll(async () => {
  rt = await testClutch();
  thread_id = await newThread(rt, "append");
});
afterAll(() => rt.stop());

describe("append", () => {
  it("stores a message and reads back exactly what it returned", async () => {
    const run_id = newId("run");
    const m = chat("hello", { thread_id, run_id, parent_task_id: null, meta: { ui_channel: "x" } });
    const { events, created } = await rt.store.append(m);
    expect(created).toEqual([true]);
    expect(events[0]).toMatchObject({ ...m, seq: expect.any(Number) });
    const page = await rt.store.read({ run_id });
    expect(page.events).toEqual(events);
  });

  it("gives 2,000 events from 10 concurrent writers unique, gap-free seqs that a polling reader sees once, in order", async () => {
    const run_id = newId("run");
    const writers = Array.from({ length: 10 }, async (_, w) => {
      for (let i = 0; i < 200; ) {
        const n = Math.min(1 + ((i * 7 + w) % 5), 200 - i); // batches of 1..5
        await rt.store.append(Array.from({ length: n }, (_, k) => chat(`w${w}-${i + k}`, { thread_id, run_id })));
        i += n;
      }
    });
    const seen = new Map<string, number>();
    let cursor = 0;
    let done = false;
    const violations: string[] = [];
    const reader = (async () => {
      while (!done || cursor === 0 || seen.size < 2000) {
        // Whether the writers had finished before this read began: only then can an empty page end it.
        const finished = done;
        const page = await rt.store.read({ run_id }, { after: cursor, limit: 137 });
        for (const ev of page.events) {
          if (ev.seq <= cursor) violations.push(`seq ${ev.seq} after ${cursor}`);
          if (seen.has(ev.id)) violations.push(`${ev.id} seen twice`);
          seen.set(ev.id, ev.seq);
          cursor = ev.seq;
        }
        if (finished && page.events.length === 0) break;
      }
    })();
    await Promise.all(writers);
    done = true;
    await reader;

    expect(violations).toEqual([]);
    expect(seen.size).toBe(2000);
    expect(new Set(seen.values()).size).toBe(2000);
    // Gap-free over the writers' window (other test files write there too): every seq from this
    // run's first to its last is an event. The whole log is not: heartbeat compaction
    // (server/events/compaction.ts, test/compaction.test.ts) deletes old heartbeats by design.
    const own = [...seen.values()];
    const [first, last] = [Math.min(...own), Math.max(...own)];
    const [row] = await databaseOf(rt.store).$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM events WHERE seq BETWEEN ${first} AND ${last}`);
    expect(Number(row!.n)).toBe(last - first + 1);
  });

  it("stores a duplicate id once and returns the original", async () => {
    const run_id = newId("run");
    const m = chat("once", { thread_id, run_id });
    const first = await rt.store.append(m);
    const again = await rt.store.append({ ...m, payload: { text: "changed" } });
    expect(again.created).toEqual([false]);
    expect(again.events[0]).toEqual(first.events[0]);
    expect((await rt.store.read({ run_id })).events).toHaveLength(1);
  });

  it("stores a duplicate idempotency_key once, even under another id, and inside one batch", async () => {
    const run_id = newId("run");
    const key = newId("idempotency");
    const a = chat("a", { thread_id, run_id, idempotency_key: key });
    const b = chat("b", { thread_id, run_id, idempotency_key: key });
    const batch = await rt.store.append([a, b]);
    expect(batch.created).toEqual([true, false]);
    expect(batch.events[1]).toEqual(batch.events[0]);
    const later = await rt.store.append(chat("c", { thread_id, run_id: newId("run"), idempotency_key: key }));
    expect(later.created).toEqual([false]);
    expect(later.events[0]!.payload).toEqual({ text: "a" });
    expect((await rt.store.read({ run_id })).events.map((e) => e.payload.text)).toEqual(["a"]);
  });

  it("stores nothing of a batch with one invalid event, and says which one", async () => {
    const run_id = newId("run");
    const good = chat("good", { thread_id, run_id });
    const bad = { ...chat("bad", { thread_id, run_id }), payload: { text: 42 } };
    const err = await rt.store.append([good, bad]).catch((e: unknown) => e);
    expect(isClutchError(err) && err.code).toBe("invalid_event");
    expect((err as { issues: { path: unknown[] }[] }).issues[0]!.path).toEqual([1, "payload", "text"]);
    expect((await rt.store.read({ run_id })).events).toEqual([]);
  });

  it("rolls back a batch that names an unknown thread", async () => {
    const run_id = newId("run");
    const err = await rt.store
      .append([chat("ok", { thread_id, run_id }), chat("lost", { thread_id: newId("thread"), run_id })])
      .catch((e: unknown) => e);
    expect(isClutchError(err) && err.status).toBe(422);
    expect((await rt.store.read({ run_id })).events).toEqual([]);
  });

  it("commits concurrent appends together but keeps each batch all or nothing", async () => {
    const run_id = newId("run");
    const calls = [
      rt.store.append(chat("g1", { thread_id, run_id })),
      rt.store.append([chat("g2", { thread_id, run_id }), chat("g3", { thread_id, run_id })]),
      rt.store.append([chat("lost", { thread_id, run_id }), chat("lost2", { thread_id: newId("thread"), run_id })]),
      rt.store.append(chat("g4", { thread_id, run_id })),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((await rt.store.read({ run_id })).events.map((e) => e.payload.text)).toEqual(["g1", "g2", "g3", "g4"]);
  });

  it("refuses to update or delete a stored event", async () => {
    const run_id = newId("run");
    await rt.store.append(chat("immutable", { thread_id, run_id }));
    await expect(databaseOf(rt.store).$executeRawUnsafe(`UPDATE events SET type = 'x' WHERE run_id = $1`, run_id)).rejects.toThrow(/append-only/);
    await expect(databaseOf(rt.store).$executeRawUnsafe(`DELETE FROM events WHERE run_id = $1`, run_id)).rejects.toThrow(/append-only/);
  });

  it("publishes to the tail after commit, in seq order, each event once", async () => {
    const got: StoredEvent[] = [];
    const off = rt.tail.subscribe((ev) => got.push(ev));
    const run_id = newId("run");
    await Promise.all(Array.from({ length: 5 }, (_, i) => rt.store.append(chat(`p${i}`, { thread_id, run_id }))));
    await rt.store.append(chat("p0-dup", { thread_id, run_id, id: got[0]?.id ?? "x" }));
    await new Promise((r) => setTimeout(r, 100));
    off();
    const mine = got.filter((e) => e.run_id === run_id);
    expect(mine).toHaveLength(5 + (got[0]?.run_id === run_id ? 0 : 1));
    for (let i = 1; i < got.length; i++) expect(got[i]!.seq).toBe(got[i - 1]!.seq + 1);
  });
});

describe("projections", () => {
  it("folds task events into the task and run tables", async () => {
    const run_id = newId("run");
    const root = newId("task");
    const child = newId("task");
    const ctx = { thread_id, run_id };
    await rt.store.append([
      msg("task.request", { title: "Analyze Q4" }, { ...ctx, task_id: root, to: [{ agent_id: "agent:pm-1" }] }),
      msg("task.accept", {}, { ...ctx, task_id: root, from: { agent_id: "agent:pm-1" } }),
      msg("task.request", { title: "Crunch numbers" }, { ...ctx, task_id: child, parent_task_id: root, to: [{ agent_id: "agent:analyst-1" }] }),
    ]);
    let run = await runRow(rt, run_id);
    expect(run).toMatchObject({ state: "running", task_total: 2, task_done: 0, event_count: 3 });
    await rt.store.append(msg("task.error", { code: "BOOM", message: "failed" }, { ...ctx, task_id: child, parent_task_id: root }));
    await rt.store.append(msg("task.result", { summary: "done" }, { ...ctx, task_id: root, from: { agent_id: "agent:pm-1" } }));
    run = await runRow(rt, run_id);
    expect(run).toMatchObject({ state: "succeeded", task_total: 2, task_done: 2, event_count: 5 });
    expect(run.ended_at).not.toBeNull();
    const tasks = await databaseOf(rt.store).task.findMany({ where: { run_id }, orderBy: [{ created_at: "asc" }, { title: "asc" }] }); // one batch: equal created_at
    expect(tasks.map((t) => [t.title, t.state, t.assignee, t.parent_task_id])).toEqual([
      ["Analyze Q4", "succeeded", "agent:pm-1", null],
      ["Crunch numbers", "failed", "agent:analyst-1", root],
    ]);
  });

  it("counts unread-worthy events per thread", async () => {
    const t = await newThread(rt, "unread");
    const before = (await rt.store.getThread(t))!;
    expect(before.message_count).toBe(0); // the "created #x" notice is not news
    const run_id = newId("run");
    await rt.store.append([
      chat("one", { thread_id: t, run_id }),
      msg("agent.heartbeat", { agent_id: "agent:x" }, { thread_id: t, run_id }),
    ]);
    const after = (await rt.store.getThread(t))!;
    expect(after.message_count - before.message_count).toBe(1);
    expect(after.last_seq).toBeGreaterThan(before.last_seq);
  });
});
