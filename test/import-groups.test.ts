/**
 * A large import appends in bounded groups, so other writers are not held until it ends: a small
 * append made while a 10,000-event import runs is stored between the import's events, not after
 * them all. Everything is still validated first: one bad line stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { importRun } from "@/server/runs/runs";
import { chat, newThread, testClutch } from "./helpers";

let rt: Clutch;
beforeAll(async () => {
  rt = await testClutch();
});
afterAll(() => rt.stop());

describe("importing a large run", () => {
  it("lets a small append in between its groups", async () => {
    const thread_id = await newThread(rt, "big-import");
    const run_id = newId("run");
    const lines = Array.from({ length: 10_000 }, (_, i) => JSON.stringify(chat(`line ${i}`, { thread_id, run_id }))).join("\n");
    let firstGroupSeen!: () => void;
    const firstGroup = new Promise<void>((r) => (firstGroupSeen = r));
    const unfollow = rt.tail.subscribe((ev) => ev.run_id === run_id && firstGroupSeen());
    const importing = importRun(rt.store, lines);
    await firstGroup;
    const other = await rt.store.append(chat("a person's message meanwhile", { thread_id, run_id: newId("run") }));
    const imported = await importing;
    unfollow();
    expect(imported).toMatchObject({ run_id, events: 10_000, created: 10_000 });
    const seqs = (await rt.store.readAll({ run_id }, 0)).map((e) => e.seq);
    expect(seqs).toHaveLength(10_000);
    expect(other.events[0]!.seq).toBeGreaterThan(seqs[0]!);
    expect(other.events[0]!.seq).toBeLessThan(seqs.at(-1)!); // stored before the import ended
  });

  it("stores nothing when one line is invalid", async () => {
    const thread_id = await newThread(rt, "bad-import");
    const run_id = newId("run");
    const good = Array.from({ length: 1_200 }, (_, i) => JSON.stringify(chat(`line ${i}`, { thread_id, run_id })));
    good.push(JSON.stringify({ ...chat("bad", { thread_id, run_id }), ts: "yesterday" }));
    await expect(importRun(rt.store, good.join("\n"))).rejects.toMatchObject({ code: "invalid_jsonl", message: expect.stringMatching(/^line 1201 at ts/) });
    expect((await rt.store.read({ run_id })).events).toHaveLength(0);
  });
});
