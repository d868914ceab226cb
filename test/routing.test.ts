/**
 * Routing by capability end to end against PostgreSQL (Clutch Protocol §4.2): a person's `@skill:…`
 * request is routed and done; `@agent` names the recipient; no match waits for an agent that
 * registers later, or fails, as configured; CAP allowed_agents limits an agent's delegation by
 * capability; and 50 concurrent requests never put more tasks on an agent than its
 * max_concurrency.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, makeMessage, newId, RoutingDecisionPayload, type StoredEvent } from "@/lib/protocol";
import { recordHeartbeat, registerAgent } from "@/server/router/registration";
import { AgentRegistry } from "@/server/router/registry";
import { ORCHESTRATOR, Router } from "@/server/router/router";
import { forkRun } from "@/server/runs/runs";
import type { Clutch } from "@/server/clutch";
import { databaseOf } from "@/server/events/testing";
import { newThread, taskRow } from "./helpers";
import { say, scratchWorkspace, startAgents, threadEvents, waitFor, answer } from "./agents";

let rt: Clutch;
let thread_id: string;
const PERSON = { agent_id: "user:dana", role: "human", display_name: "Dana" } as const;

beforeAll(async () => {
  const ws = scratchWorkspace(undefined, undefined, { routing: { on_no_match: "wait", wait_timeout_sec: null } });
  rt = await startAgents(ws.dir);
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
});

/** A request with no fixed recipient, as a client of the API sends it (§10 step 1). */
function request(thread: string, requires: string[], extra: Record<string, unknown> = {}) {
  const run_id = newId("run");
  return makeMessage({
    type: "task.request",
    thread_id: thread,
    run_id,
    task_id: newId("task"),
    parent_task_id: null,
    from: PERSON,
    to: [ORCHESTRATOR],
    requires,
    payload: { title: `needs ${requires.join(" + ")}` },
    ...extra,
  } as Parameters<typeof makeMessage>[0]);
}

/** The stored task.request that `append` returned, narrowed to its type. */
function stored(ev: StoredEvent) {
  if (!isEvent(ev, "task.request")) throw new Error(`${ev.type} is not a task.request`);
  return ev;
}

type Rejections = { rejected?: { agent_id: string; filter: string; reason: string }[]; rejected_summary?: { filter: string; count: number }[] };

/**
 * The team's agents `ids` were rejected by `filter` (with `reason`, when given): listed one by one,
 * or, past the listed few (docs/routing.md: agents other test files registered on the shared
 * database count too), counted in `rejected_summary` under that filter.
 */
function expectRejected(p: Rejections, ids: string[], want: { filter: string; reason?: string }) {
  const listed = (p.rejected ?? []).filter((r) => ids.includes(r.agent_id));
  for (const r of listed) expect(r).toMatchObject(want);
  const missing = ids.length - listed.length;
  if (missing > 0) expect(p.rejected_summary?.find((s) => s.filter === want.filter)?.count ?? 0).toBeGreaterThanOrEqual(missing);
}

const card = (name: string, capability: string, max = 2) => ({
  v: "clutch/0.1",
  agent_id: `agent:${name}`,
  display: { name },
  capabilities: [{ id: capability, version: "1.0" }],
  limits: { max_concurrency: max },
});

describe("routing by capability", () => {
  it("routes a person's @skill request to the agent that offers it, and the run finishes", async () => {
    const asked = await say(rt, thread_id, "@skill:data-analysis Which region had the highest sales?");
    expect(asked.payload.mentions).toEqual(["skill:data-analysis"]);
    const decision = await waitFor(rt, thread_id, "the routing decision", (evs) =>
      evs.find((e) => e.type === "routing.decision" && (e.payload as { requires?: string[] }).requires?.includes("skill:data-analysis")),
    );
    const p = RoutingDecisionPayload.parse(decision.payload);
    expect(p).toMatchObject({ selected: "agent:analyst-1", mode: "capability", candidates: ["agent:analyst-1"] });
    expectRejected(p, ["agent:pm-1", "agent:qa-1"], { filter: "requires" });
    const events = await threadEvents(rt, thread_id);
    const requests = events.filter((e) => e.type === "task.request" && e.task_id === decision.task_id);
    expect(requests.map((e) => [e.from.agent_id, e.to[0]?.agent_id])).toEqual([
      ["user:dana", "agent:orchestrator"],
      ["user:dana", "agent:analyst-1"],
    ]);
    expect(requests[1]!.seq).toBe(decision.seq + 1);
    // analyst-1 asks whoever asked it (here the person) a follow-up; answer it.
    const question = await waitFor(rt, thread_id, "analyst-1's question", (evs) =>
      evs.find((e) => e.task_id === decision.task_id && e.from.agent_id === "agent:analyst-1" && e.payload.expects_reply),
    );
    expect(question.to).toEqual([{ agent_id: "user", role: "human" }]);
    await answer(rt, thread_id, "Yes, compare with last year.");
    await waitFor(rt, thread_id, "the analyst's reviewed result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === decision.task_id), 100_000);
    const task = await taskRow(rt, decision.task_id);
    expect(task).toMatchObject({ state: "succeeded", assignee: "agent:analyst-1", title: "Which region had the highest sales?", requester: "user:dana" });

    // A fork that copies both requests is not routed a second time.
    const fork = await forkRun(rt.store, decision.run_id, requests[1]!.seq);
    await rt.orchestrator.settled();
    await waitFor(rt, thread_id, "the fork's analyst at work", (evs) => evs.find((e) => e.run_id === fork.run_id && e.type === "task.accept"));
    const forked = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === fork.run_id);
    expect(forked.filter((e) => e.type === "routing.decision")).toHaveLength(1);
    expect(forked.filter((e) => e.type === "task.request").map((e) => e.to[0]?.agent_id)).toEqual(["agent:orchestrator", "agent:analyst-1"]);
  }, 120_000);

  it("a person naming @qa-1 gives the task to qa-1, with a fixed routing decision", async () => {
    const asked = await say(rt, thread_id, "@qa-1 please double-check last quarter's totals");
    expect(asked.payload.mentions).toEqual(["agent:qa-1"]);
    const decision = await waitFor(rt, thread_id, "the routing decision", (evs) => evs.find((e) => e.type === "routing.decision" && e.seq > asked.seq));
    expect(decision.payload).toMatchObject({ selected: "agent:qa-1", mode: "fixed", reason: expect.stringMatching(/Dana addressed QA Agent by name/) });
    // A fixed decision: the named agent alone, scored 1, from the orchestrator, right before its request in the same task.
    expect(decision.payload).toEqual({ selected: "agent:qa-1", candidates: ["agent:qa-1"], reason: decision.payload.reason, scores: { "agent:qa-1": 1 }, mode: "fixed", rejected: [] });
    expect(decision).toMatchObject({ from: { agent_id: "agent:orchestrator" }, to: [], parent_task_id: null });
    const request = (await threadEvents(rt, thread_id)).find((e) => e.seq === decision.seq + 1)!;
    expect(request).toMatchObject({ type: "task.request", task_id: decision.task_id, from: { agent_id: "agent:orchestrator" }, to: [{ agent_id: "agent:qa-1" }] });
  });

  it("waits when nothing matches, then routes to an agent that registers later", async () => {
    const skill = `skill:astrology-${newId("task").slice(-6).toLowerCase()}`;
    const ask = (await rt.store.append(request(thread_id, [skill]))).events[0]!;
    const failure = await waitFor(rt, thread_id, "routing.failure", (evs) => evs.find((e) => e.type === "routing.failure" && e.task_id === ask.task_id));
    expect(failure.payload).toMatchObject({ outcome: "waiting", requires: [skill], reason: expect.stringMatching(/no agent matches requires\[skill:astrology-.*\]; waiting for an agent/) });
    expectRejected(failure.payload as Rejections, ["agent:pm-1", "agent:analyst-1", "agent:qa-1"], { filter: "requires", reason: `no ${skill}` });

    const name = `astro-${newId("task").slice(-6).toLowerCase()}`;
    await registerAgent(rt.store, rt.registry, card(name, skill));
    const decision = await waitFor(rt, thread_id, "the routing decision", (evs) => evs.find((e) => e.type === "routing.decision" && e.task_id === ask.task_id));
    expect(decision.payload).toMatchObject({ selected: `agent:${name}`, mode: "capability" });
    const routed = await waitFor(rt, thread_id, "the routed request", (evs) => evs.find((e) => e.type === "task.request" && e.task_id === ask.task_id && e.to[0]?.agent_id === `agent:${name}`));
    expect(routed).toMatchObject({ from: { agent_id: "user:dana" }, meta: { routed_from: ask.id, routed_by: "agent:orchestrator" } });
  });

  it("fails a request nobody can take when so configured, and after the wait timeout", async () => {
    const thread = await newThread(rt, "routing");
    const settings = { on_no_match: "fail" as const, wait_timeout_sec: null, weights: {} };
    const router = new Router({ store: rt.store, registry: rt.registry, settings, allowedAgentsOf: () => null });
    const ask = stored((await rt.store.append(request(thread, ["skill:nobody-has-this"]))).events[0]!);
    expect(await router.route(ask)).toBe("failed");
    const events = await threadEvents(rt, thread);
    expect(events.find((e) => e.type === "routing.failure")!.payload).toMatchObject({ outcome: "failed", requires: ["skill:nobody-has-this"] });
    const error = events.find((e) => e.type === "task.error")!;
    expect(error).toMatchObject({ task_id: ask.task_id, to: [{ agent_id: "user:dana" }], payload: { code: "NO_MATCHING_AGENT", retryable: true } });
    expect((await taskRow(rt, ask.task_id)).state).toBe("failed");

    const patient = new Router({ store: rt.store, registry: rt.registry, settings: { ...settings, on_no_match: "wait", wait_timeout_sec: 0.05 }, allowedAgentsOf: () => null });
    const later = stored((await rt.store.append(request(thread, ["skill:nobody-has-this"]))).events[0]!);
    expect(await patient.route(later)).toBe("waiting");
    await new Promise((r) => setTimeout(r, 80));
    await patient.retryWaiting();
    const failed = (await threadEvents(rt, thread)).filter((e) => e.type === "routing.failure" && e.task_id === later.task_id);
    expect(failed.map((e) => (e.payload as { outcome: string }).outcome)).toEqual(["waiting", "failed"]);
    expect((failed[1]!.payload as { reason: string }).reason).toMatch(/gave up after waiting 0.05 s/);
    expect(patient.pending).toEqual([]);
  });

  it("routes an agent's delegation by capability only among its CAP allowed_agents", async () => {
    const thread = await newThread(rt, "routing");
    const ws = rt.workspace;
    const router = new Router({
      store: rt.store,
      registry: rt.registry,
      settings: { on_no_match: "fail", wait_timeout_sec: null, weights: {} },
      allowedAgentsOf: (id) => ws.agents.get(id)?.allowed_agents ?? null,
    });
    const fromPm = (requires: string[]) => request(thread, requires, { from: { agent_id: "agent:pm-1", role: "worker" } });
    const review = stored((await rt.store.append(fromPm(["skill:review"]))).events[0]!);
    expect(await router.route(review)).toBe("failed");
    const failure = (await threadEvents(rt, thread)).find((e) => e.type === "routing.failure")!;
    expect((failure.payload as { rejected: unknown[] }).rejected).toContainEqual({
      agent_id: "agent:qa-1",
      filter: "allowed_agents",
      reason: "agent:pm-1 may delegate only to [agent:analyst-1]",
    });
    const analysis = stored((await rt.store.append(fromPm(["skill:data-analysis@^1.2"]))).events[0]!);
    expect(await router.route(analysis)).toBe("routed");
    const decision = (await threadEvents(rt, thread)).find((e) => e.type === "routing.decision" && e.task_id === analysis.task_id)!;
    expect(decision.payload).toMatchObject({ selected: "agent:analyst-1", requires: ["skill:data-analysis@^1.2"] });
  });

  it("a restarted registry reads each agent's card and newest heartbeat back from the log", async () => {
    const name = `ken-${newId("task").slice(-6).toLowerCase()}`;
    await registerAgent(rt.store, rt.registry, card(name, "skill:research"));
    await registerAgent(rt.store, rt.registry, { ...card(name, "skill:research"), display: { name: "Ken v2" } });
    await recordHeartbeat(rt.store, rt.registry, `agent:${name}`, { status: "online" });
    await recordHeartbeat(rt.store, rt.registry, `agent:${name}`, {});
    const beats = (await databaseOf(rt.store).event.findMany({ where: { from_agent_id: `agent:${name}`, type: "agent.heartbeat" }, orderBy: { seq: "asc" } })).map((r) => r.ts.getTime());
    expect(beats).toHaveLength(2);

    const fresh = new AgentRegistry();
    await fresh.load(rt.store.queries);
    expect(fresh.get(`agent:${name}`)).toMatchObject({ source: "external", card: { display: { name: "Ken v2" } }, last_seen: beats[1] });
    expect(fresh.isOnline(`agent:${name}`)).toBe(true);
  });

  it("never gives an agent more tasks than its max_concurrency under 50 concurrent requests", async () => {
    const skill = `skill:load-${newId("task").slice(-6).toLowerCase()}`;
    const names = ["a", "b", "c"].map((n) => `load-${n}-${newId("task").slice(-6).toLowerCase()}`);
    for (const n of names) await registerAgent(rt.store, rt.registry, card(n, skill, 2));
    const asks = Array.from({ length: 50 }, () => request(thread_id, [skill]));
    await Promise.all(asks.map((a) => rt.store.append(a)));
    const taskIds = new Set(asks.map((a) => a.task_id));

    // The external agents: finish each task routed to them a second after it arrives.
    const done = new Set<string>();
    const seen = new Map<string, number>();
    const deadline = Date.now() + 120_000;
    while (done.size < 50) {
      if (Date.now() > deadline) throw new Error(`only ${done.size} of 50 tasks finished`);
      const mine = await databaseOf(rt.store).task.findMany({ where: { id: { in: [...taskIds] }, assignee: { in: names.map((n) => `agent:${n}`) }, state: "pending" } });
      for (const t of mine) {
        if (!seen.has(t.id)) seen.set(t.id, Date.now());
        if (Date.now() - seen.get(t.id)! < 1000) continue;
        await rt.store.append(
          makeMessage({
            type: "task.result",
            thread_id,
            run_id: t.run_id,
            task_id: t.id,
            parent_task_id: null,
            from: { agent_id: t.assignee!, role: "worker" },
            to: [{ agent_id: "user:dana" }],
            payload: { summary: "done" },
          }),
        );
        done.add(t.id);
      }
      await new Promise((r) => setTimeout(r, 20));
    }

    // Fold the log: at no point does an agent hold more than 2 unfinished tasks.
    const events = (await threadEvents(rt, thread_id)).filter((e: StoredEvent) => taskIds.has(e.task_id));
    const active = new Map<string, number>();
    const peak = new Map<string, number>();
    const assigned = new Map<string, number>();
    for (const e of events) {
      const agent = e.type === "task.request" && e.meta?.routed_by ? e.to[0]!.agent_id : e.type === "task.result" ? e.from.agent_id : null;
      if (!agent) continue;
      const n = (active.get(agent) ?? 0) + (e.type === "task.request" ? 1 : -1);
      active.set(agent, n);
      peak.set(agent, Math.max(peak.get(agent) ?? 0, n));
      if (e.type === "task.request") assigned.set(agent, (assigned.get(agent) ?? 0) + 1);
    }
    expect([...peak.values()].every((n) => n <= 2)).toBe(true);
    expect(Math.max(...peak.values())).toBe(2);
    expect([...assigned.values()].reduce((a, b) => a + b, 0)).toBe(50);
    expect(names.every((n) => (assigned.get(`agent:${n}`) ?? 0) > 0)).toBe(true);
    const waited = events.filter((e) => e.type === "routing.failure" && (e.payload as { outcome: string }).outcome === "waiting");
    expect(waited.length).toBeGreaterThan(20); // 6 slots for 50 requests
    expect(waited[0]!.payload).toMatchObject({ rejected: expect.arrayContaining([expect.objectContaining({ filter: "concurrency" })]) });
  }, 150_000);
});
