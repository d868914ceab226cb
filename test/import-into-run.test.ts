/**
 * Importing into a run that exists (POST /api/runs/import without new_run): a dry run says which
 * run the lines would go into and how many events it holds, storing nothing, so the UI can ask
 * first; the import then says how many events it stored into which run, and lines the run already
 * holds are not stored twice. A copy (new_run=true) names no existing run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type ClutchMessage } from "@/lib/protocol";
import * as importRoute from "@/app/api/runs/import/route";
import type { Clutch } from "@/server/clutch";
import { chat, msg, newThread, requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let admin: TestPrincipal;
beforeAll(async () => {
  rt = await testClutch();
  admin = await testPerson(rt, "admin");
});
afterAll(() => rt.stop());

type Handler = (req: Request, ctx: never) => Promise<Response>;
const post = (lines: ClutchMessage[], query: string) =>
  (importRoute.POST as Handler)(
    requestAs(admin, `http://clutch.test/api/runs/import?${query}`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: lines.map((l) => JSON.stringify(l)).join("\n") }),
    undefined as never,
  );

/** A run of `n` events: its root request titled `title`, then chat. */
function runLines(thread_id: string, title: string, n: number): ClutchMessage[] {
  const run_id = newId("run");
  const task_id = newId("task");
  const from = { agent_id: "agent:lead-1", role: "worker" as const };
  const root = msg("task.request", { title, instructions: title }, { thread_id, run_id, task_id, from: { agent_id: "agent:orchestrator", role: "orchestrator" }, to: [from] });
  return [root, ...Array.from({ length: n - 1 }, (_, i) => chat(`step ${i + 1}`, { thread_id, run_id, task_id, from }))];
}

describe("importing into an existing run", () => {
  it("asks with a dry run naming the run and its events, then says how many it stored", async () => {
    const thread_id = await newThread(rt, "import-into");
    const lines = runLines(thread_id, "Quarterly revenue review", 12);
    const run_id = lines[0]!.run_id;
    await rt.store.appendAll(lines.slice(0, 5));

    const dry = await post(lines, `thread_id=${thread_id}&dry_run=true`);
    expect(dry.status).toBe(200);
    expect(await dry.json()).toEqual({ run_id, events: 12, created: 0, title: "Quarterly revenue review", existing: { title: "Quarterly revenue review", event_count: 5 }, dry_run: true });
    expect((await rt.store.readAll({ run_id }, 0)).length).toBe(5); // a dry run stores nothing

    const done = await post(lines, `thread_id=${thread_id}`);
    expect(done.status).toBe(201);
    // The 5 lines the run already held are not stored again.
    expect(await done.json()).toEqual({ run_id, events: 12, created: 7, title: "Quarterly revenue review", existing: { title: "Quarterly revenue review", event_count: 5 }, dry_run: false });
    expect((await rt.store.readAll({ run_id }, 0)).length).toBe(12);
  });

  it("names no existing run for a run that is new, or for a copy", async () => {
    const thread_id = await newThread(rt, "import-new");
    const lines = runLines(thread_id, "Churn by segment", 3);
    const fresh = await post(lines, `thread_id=${thread_id}&dry_run=true`);
    expect(await fresh.json()).toMatchObject({ run_id: lines[0]!.run_id, existing: null, title: "Churn by segment", dry_run: true });

    await rt.store.appendAll(lines);
    const copy = await post(lines, `thread_id=${thread_id}&new_run=true`);
    const body = await copy.json();
    expect(copy.status).toBe(201);
    expect(body).toMatchObject({ events: 3, created: 3, existing: null, title: "Churn by segment", dry_run: false });
    expect(body.run_id).not.toBe(lines[0]!.run_id);
  });

  it("refuses a bad dry_run value with the query's path", async () => {
    const thread_id = await newThread(rt, "import-bad");
    const res = await post(runLines(thread_id, "x", 1), `thread_id=${thread_id}&dry_run=maybe`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain("dry_run");
  });
});
