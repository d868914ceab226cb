/**
 * Fork, export and import of runs: a fork copies events 1..N, reuses what was
 * recorded before N and goes on live; export and import give the same events; a bad line is
 * reported with its number and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ForkCompareResponse, RunDetail } from "@/lib/api/types";
import { importedFrom, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import * as exportRoute from "@/app/api/runs/[run_id]/export/route";
import * as forkRoute from "@/app/api/runs/[run_id]/fork/route";
import * as importRoute from "@/app/api/runs/import/route";
import * as runRoute from "@/app/api/runs/[run_id]/route";
import * as compareRoute from "@/app/api/runs/[run_id]/compare/route";
import { inConversation } from "@/lib/conversation";
import { say, scratchWorkspace, startAgents, waitFor, answer } from "./agents";
import { requestAs, runRow, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let thread_id: string;
let source: StoredEvent[];

async function finished(run_id: string) {
  const end = Date.now() + 120_000;
  for (;;) {
    const r = await rt.store.queries.run(run_id);
    if (r && r.state !== "running") return r;
    if (Date.now() > end) throw new Error(`run ${run_id} still ${r?.state}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}
const params = <T>(p: T) => ({ params: Promise.resolve(p) });
/** Export, import (restoring a run with its own ids is for admins) and fork are called as an admin. */
let admin: TestPrincipal;
const strip = ({ seq, ...m }: StoredEvent) => (void seq, m);

beforeAll(async () => {
  rt = await startAgents(scratchWorkspace().dir);
  admin = await testPerson(rt, "admin");
  thread_id = rt.channels[0]!.thread_id;
  await say(rt, thread_id, "Analyze last quarter's sales trends");
  const q = await waitFor(rt, thread_id, "the question", (evs) => evs.find((e) => e.from.agent_id === "agent:pm-1" && e.payload.expects_reply));
  await answer(rt, thread_id, "Regional breakdown by major market");
  await finished(q.run_id);
  source = await rt.store.readAll({ run_id: q.run_id });
});
afterAll(async () => {
  await rt?.stop();
});

describe("export and import", () => {
  it("exports one ClutchMessage a line, and importing it as a new run gives the same events", async () => {
    const run_id = source[0]!.run_id;
    const res = await exportRoute.GET(requestAs(admin, "http://t"), params({ run_id }));
    expect(res.headers.get("content-type")).toContain("text/x-ndjson");
    const text = await res.text();
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual(source.map(strip));

    const again = await importRoute.POST(requestAs(admin, "http://t/api/runs/import", { method: "POST", body: text }), undefined as never);
    expect(again.status).toBe(201);
    expect(await again.json()).toMatchObject({ run_id, events: source.length, created: 0 }); // already stored: deduplicated

    const copy = await importRoute.POST(requestAs(admin, "http://t/api/runs/import?new_run=true", { method: "POST", body: text }), undefined as never);
    const body = (await copy.json()) as { run_id: string; created: number };
    expect(body.created).toBe(source.length);
    const imported = await rt.store.readAll({ run_id: body.run_id });
    // The copy is the importer's, quoting who the file says sent each event (docs/identity.md).
    expect(imported.map((e) => [e.type, importedFrom(e)?.from.agent_id, e.payload.text ?? null])).toEqual(source.map((e) => [e.type, e.from.agent_id, e.payload.text ?? null]));
    expect(new Set(imported.map((e) => e.from.agent_id))).toEqual(new Set([admin.agent_id]));
    const run = await runRow(rt, body.run_id);
    expect(run).toMatchObject({ state: "succeeded", task_total: 3, task_done: 3 });
  });

  it("reports a bad line with its number and the zod issue, and stores nothing", async () => {
    // Counted in the run's channel: other test files and agents' heartbeats append elsewhere meanwhile.
    const inThread = async () => (await rt.store.readAll({ thread_id: source[0]!.thread_id })).length;
    const before = await inThread();
    const good = JSON.stringify(strip(source[0]!));
    const bad = JSON.stringify({ ...strip(source[1]!), ts: "yesterday" });
    const res = await importRoute.POST(
      requestAs(admin, "http://t/api/runs/import?new_run=true", { method: "POST", body: [good, "", bad, "{nope"].join("\n") }),
      undefined as never,
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string; issues: { line: number; path: unknown[] }[] } };
    expect(error.code).toBe("invalid_jsonl");
    expect(error.message).toMatch(/^line 3 at ts: /);
    expect(error.issues.map((i) => [i.line, i.path])).toEqual([
      [3, ["ts"]],
      [4, []],
    ]);
    expect(await inThread()).toBe(before);
  });
});

describe("fork", () => {
  it("re-runs from the delegation: copies events 1..N, reuses what was recorded, and goes on live", async () => {
    const run_id = source[0]!.run_id;
    const delegation = source.find((e) => e.type === "task.request" && e.to[0]?.agent_id === "agent:analyst-1")!;
    const forkedAt = new Date().toISOString();
    const res = await forkRoute.POST(
      requestAs(admin, "http://t", { method: "POST", body: JSON.stringify({ at_seq: delegation.seq }) }),
      params({ run_id }),
    );
    expect(res.status).toBe(201);
    const { run } = (await res.json()) as { run: { run_id: string; forked_from: { run_id: string; seq: number } } };
    expect(run.forked_from).toEqual({ run_id, seq: delegation.seq });
    const fork = await finished(run.run_id);
    expect(fork.state).toBe("succeeded");

    const events = await rt.store.readAll({ run_id: run.run_id });
    const copies = events.filter((e) => e.meta?.forked_from);
    const copied = source.filter((e) => e.seq <= delegation.seq);
    expect(copies.map((e) => (e.meta!.forked_from as { seq: number }).seq)).toEqual(copied.map((e) => e.seq));
    expect(copies.map((e) => e.type)).toEqual(copied.map((e) => e.type));
    expect(events.slice(0, copies.length)).toEqual(copies); // the copies come first
    // Dated when the fork was made (its durations count from there); the original's time is kept.
    expect(copies.every((e) => e.ts >= forkedAt)).toBe(true);
    expect(copies.map((e) => (e.meta!.forked_from as { ts: string }).ts)).toEqual(copied.map((e) => e.ts));
    // The channel's conversation never shows the copies again.
    expect(copies.filter(inConversation)).toEqual([]);
    // What pm-1 recorded before N (its DocsServer and DataServer calls) was reused, not redone.
    const pmCalls = events.filter((e) => e.type === "tool.call" && e.from.agent_id === "agent:pm-1");
    expect(pmCalls.every((e) => e.meta?.forked_from)).toBe(true);
    // After N the fork went on: the analyst, qa-1's review, the report.
    const live = events.slice(copies.length);
    expect(live.some((e) => e.type === "task.result" && e.payload_type === "review.feedback.v1")).toBe(true);
    expect(live.some((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user")).toBe(true);
    // The tree is the same shape, with the fork's own task ids.
    const tasks = await rt.store.queries.tasksOfRun(run.run_id);
    expect(tasks.map((t) => t.assignee)).toEqual(["agent:pm-1", "agent:analyst-1", "agent:qa-1"]);
    expect(tasks.some((t) => source.some((e) => e.task_id === t.id))).toBe(false);
    // pm-1's task was dispatched before N: its copied request is not checked against the policy again.
    const regated = live.filter((e) => e.type === "policy.decision" && e.task_id === tasks[0]!.id && (e.payload.subject as { kind?: string }).kind === "dispatch");
    expect(regated).toEqual([]);
    expect(copies.filter((e) => e.type === "policy.decision" && e.task_id === tasks[0]!.id)).not.toEqual([]);

    const detail = (await (await runRoute.GET(requestAs(admin, "http://t"), params({ run_id }))).json()) as RunDetail;
    // Each fork with its number in the channel and its title, to be linked by ("#2 … (fork at #N)").
    expect(detail.run.forks).toEqual([
      expect.objectContaining({ run_id: run.run_id, at_seq: delegation.seq, run_number: expect.any(Number), title: expect.stringMatching(new RegExp(`\\(fork at #${delegation.seq}\\)$`)) }),
    ]);
    expect(detail.run.forks[0]!.run_number).toBeGreaterThan(detail.run.run_number);

    // Beside its parent: what each told people after the fork point, and which figures differ.
    const compared = await compareRoute.GET(requestAs(admin, "http://t"), params({ run_id: run.run_id }));
    expect(compared.status).toBe(200);
    const c = (await compared.json()) as ForkCompareResponse;
    expect(c.at_seq).toBe(delegation.seq);
    expect([c.runs.parent.run_id, c.runs.fork.run_id]).toEqual([run_id, run.run_id]);
    expect(c.said.parent.length).toBeGreaterThan(0);
    expect(c.said.fork.some((s) => s.kind === "message" && s.from.agent_id === "agent:pm-1")).toBe(true);
    expect(c.said.parent.every((s) => s.seq > delegation.seq)).toBe(true);
    // The built-in model is deterministic: the fork's report has the parent's figures.
    expect(c.same).toBeGreaterThan(5);
    expect(c.figures).toEqual([]);

    const notFork = await compareRoute.GET(requestAs(admin, "http://t"), params({ run_id }));
    expect(notFork.status).toBe(400);
    expect(((await notFork.json()) as { error: { code: string } }).error.code).toBe("not_a_fork");
  });

  it("refuses a fork before the run's first event", async () => {
    const res = await forkRoute.POST(requestAs(admin, "http://t", { method: "POST", body: JSON.stringify({ at_seq: 1 }) }), params({ run_id: source[0]!.run_id }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_fork");
  });
});
