/**
 * A run's events as JSON Lines (server/events/read.ts `readEventLines`, `GET
 * /api/runs/:run_id/events/stream`): every line parses to the stored event `read` gives, in seq
 * order, page after page, bounded by the run's newest event when asked; the route's answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { readEventLines } from "@/server/events/read";
import { prismaSql } from "@/server/events/sql";
import { databaseOf } from "@/server/events/testing";
import * as streamRoute from "@/app/api/runs/[run_id]/events/stream/route";
import { chat, msg, requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let person: TestPrincipal;
let thread_id: string;
const params = <T>(p: T) => ({ params: Promise.resolve(p) });

beforeAll(async () => {
  rt = await testClutch();
  person = await testPerson(rt, "admin");
  const res = await rt.store.createThread({ name: `stream-${newId("thread").slice(-8).toLowerCase()}` }, { agent_id: person.agent_id });
  thread_id = res.id;
});
afterAll(() => rt.stop());

async function collect(lines: AsyncGenerator<string>): Promise<string[]> {
  const pages: string[] = [];
  for await (const page of lines) pages.push(page);
  return pages;
}
const parse = (text: string): StoredEvent[] => text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);

/** A run with varied events (text to escape, an idempotency key, a parent, nested payloads), another run's events between them. */
async function seedRun(): Promise<string> {
  const run_id = newId("run");
  const other = newId("run");
  const task_id = newId("task");
  await rt.store.append([
    msg("task.request", { title: "Quarterly \"review\"", instructions: "line one\nline two\ttab \\ backslash — ünïcödé 🚀 \u2028" }, { thread_id, run_id, task_id }),
    chat("between", { thread_id, run_id: other }),
    msg("task.progress", { message: "half", percent: 50 }, { thread_id, run_id, task_id: newId("task"), parent_task_id: task_id, idempotency_key: newId("key") }),
    chat("again between", { thread_id, run_id: other }),
    msg("tool.result", { call_id: "c1", tool: "query", server_id: "mcp:Data", result: { rows: [{ a: 1.5, b: null, c: [1, "x", { d: false }] }], n: 1e21, small: 5e-7 }, duration_ms: 12 }, { thread_id, run_id, task_id }),
    ...Array.from({ length: 4 }, (_, i) => chat(`m${i}`, { thread_id, run_id })),
  ]);
  return run_id;
}

describe("readEventLines", () => {
  it("gives every event of the run in seq order as JSON Lines, each line the stored event, page by page", async () => {
    const run_id = await seedRun();
    const stored = await rt.store.readAll({ run_id });
    expect(stored).toHaveLength(7);
    const head = await rt.store.runHead(run_id);
    expect(head).toEqual({ thread_id, last_seq: stored.at(-1)!.seq });

    const pages = await collect(rt.store.readLines({ run_id }, 0, head!.last_seq, 3));
    expect(pages.map((p) => parse(p).length)).toEqual([3, 3, 1]);
    for (const page of pages) expect(page.endsWith("\n")).toBe(true);
    // Strictly equal: the same keys and values as the events `read` gives.
    expect(parse(pages.join(""))).toStrictEqual(stored);

    // The same text through the Prisma client (the embedded database's way) as through `pg`.
    expect((await collect(readEventLines(prismaSql(databaseOf(rt.store)), { run_id }, 0, head!.last_seq, 3))).join("")).toBe(pages.join(""));

    // After a seq, up to a seq.
    const middle = parse((await collect(rt.store.readLines({ run_id }, stored[1]!.seq, stored[4]!.seq))).join(""));
    expect(middle.map((e) => e.seq)).toEqual(stored.slice(2, 5).map((e) => e.seq));
    // A full last page ends with an empty read, not an empty page.
    expect(await collect(rt.store.readLines({ run_id }, 0, head!.last_seq, 7))).toHaveLength(1);
    expect(await collect(rt.store.readLines({ run_id }, head!.last_seq, head!.last_seq))).toEqual([]);
    expect(await rt.store.runHead(newId("run"))).toBeNull();
  });
});

describe("GET /api/runs/:run_id/events/stream", () => {
  const get = (run_id: string, query = "", as: TestPrincipal = person) => streamRoute.GET(requestAs(as, `http://test/api/runs/${run_id}/events/stream${query}`), params({ run_id }));

  it("streams the run's events after `after` up to its newest when asked, as JSON Lines", async () => {
    const run_id = await seedRun();
    const stored = await rt.store.readAll({ run_id });
    const res = await get(run_id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/x-ndjson");
    // Appended after the request: not in this answer (it comes over the socket).
    await rt.store.append([chat("later", { thread_id, run_id })]);
    expect(parse(await res.text())).toStrictEqual(stored);

    const after = parse(await (await get(run_id, `?after=${stored[3]!.seq}`)).text());
    expect(after.map((e) => e.payload.text ?? e.type)).toEqual([...stored.slice(4).map((e) => e.payload.text ?? e.type), "later"]);
  });

  it("answers an empty body for a run with no events, 400 for a bad cursor, 404 for a run in a channel the principal may not read", async () => {
    const empty = await get(newId("run"));
    expect(empty.status).toBe(200);
    expect(await empty.text()).toBe("");
    const bad = await get(newId("run"), "?after=-1");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_query");

    const secret = await rt.store.createThread({ name: `secret-${newId("thread").slice(-8).toLowerCase()}`, visibility: "private" }, { agent_id: person.agent_id });
    const run_id = newId("run");
    await rt.store.append([chat("hidden", { thread_id: secret.id, run_id })]);
    const guest = await testPerson(rt, "guest", "Stream Guest");
    const hidden = await get(run_id, "", guest);
    expect(hidden.status).toBe(404);
  });
});
