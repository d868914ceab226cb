/**
 * The run-graph fold (lib/fold/run-graph.ts):
 * - on a recorded run of the #sales agents, the state at every N equals the state built live
 *   event by event, and seek(N) equals folding events 1..N from scratch;
 * - property: tasks' events interleaved in random orders give each task the state of folding
 *   its own events alone, the right tree, event lists and run state; seeking anywhere equals a
 *   fold from scratch, with checkpoints close together so many seeks cross them.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isEvent, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { foldTask, TERMINAL_STATES, type TaskView } from "./task-state";
import { runStateOf } from "./run-state";
import {
  applyEvent,
  childIds,
  foldRun,
  getNode,
  getTask,
  graphFromTasks,
  initialRunGraph,
  nodesOf,
  rootIds,
  RunTimeline,
  snapshot,
  taskEventIndexes,
  type RunGraphState,
} from "./run-graph";

const FIXTURE = path.resolve(import.meta.dirname, "../../test/fixtures/runs/sales-run.jsonl");

/** The #sales run recorded from the built-in agents (tool outputs trimmed). */
function recordedRun(): StoredEvent[] {
  return fs
    .readFileSync(FIXTURE, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as StoredEvent);
}

describe("the recorded #sales run", () => {
  const events = recordedRun();

  it("is the same at every N live, folded from scratch and sought on a timeline", () => {
    const live: RunGraphState[] = [initialRunGraph()];
    for (const ev of events) live.push(applyEvent(live[live.length - 1]!, ev));
    const timeline = new RunTimeline(8);
    timeline.append(events);
    // Seek in a scrambled order so the timeline's cache and checkpoints are both exercised.
    const order = events.map((_, i) => i).concat(events.length);
    order.sort((a, b) => ((a * 7919) % 53) - ((b * 7919) % 53));
    for (const n of order) {
      const fromScratch = snapshot(foldRun(events, n));
      expect(snapshot(live[n]!), `live at ${n}`).toEqual(fromScratch);
      expect(snapshot(timeline.seek(n)), `seek(${n})`).toEqual(fromScratch);
    }
  });

  it("draws pm-1's task, its delegation to analyst-1 and qa-1's oversight review, each with its routing", () => {
    const state = foldRun(events);
    expect(state.run_state).toBe("succeeded");
    expect(state.task_total).toBe(3);
    expect(state.task_done).toBe(3);
    const [root] = rootIds(state);
    expect(getTask(state, root!)).toMatchObject({ assignee: "agent:pm-1", title: "Analyze last quarter's sales trends", state: "succeeded" });
    const [analysis] = childIds(state, root!);
    const a = getNode(state, analysis!)!;
    expect(a).toMatchObject({ edge: "delegation", parent_id: root, routing: { kind: "decision", selected: "agent:analyst-1" } });
    expect(a.task).toMatchObject({ assignee: "agent:analyst-1", state: "succeeded" });
    const [review] = childIds(state, analysis!);
    const r = getNode(state, review!)!;
    expect(r).toMatchObject({ edge: "review", review_of: analysis, routing: { selected: "agent:qa-1" } });
    expect(r.routing!.reason).toMatch(/oversees/);
    // Every event of the run is in its task's list, in order.
    const all = [root!, analysis!, review!].flatMap((id) => taskEventIndexes(state, id)).sort((x, y) => x - y);
    expect(all).toEqual(events.map((_, i) => i));
    expect(state.ended_at).toBe(events[events.length - 1]!.ts);
  });

  it("waits for input at pm-1's question and runs again after the answer", () => {
    const q = events.findIndex((e) => isEvent(e, "chat.message") && e.payload.expects_reply);
    const a = events.findIndex((e) => e.payload.reply_to === events[q]!.id);
    const root = events[q]!.task_id;
    expect(getTask(foldRun(events, q + 1), root)!.state).toBe("waiting_input");
    expect(getTask(foldRun(events, a), root)!.state).toBe("waiting_input");
    expect(getTask(foldRun(events, a + 1), root)!.state).toBe("running");
    expect(foldRun(events, a + 1).run_state).toBe("running");
  });

  it("draws the same tree from the task projection (graphFromTasks) as from the events", () => {
    const folded = foldRun(events);
    const tasks = nodesOf(folded).flatMap((n) => (n.task ? [{ ...n.task, review_of: n.review_of }] : []));
    const projected = graphFromTasks(tasks);
    const shape = (st: RunGraphState) => ({
      roots: rootIds(st),
      run_state: st.run_state,
      task_total: st.task_total,
      task_done: st.task_done,
      state_counts: st.state_counts,
      nodes: nodesOf(st)
        .filter((n) => n.task)
        .map((n) => ({ id: n.id, task: n.task, parent_id: n.parent_id, edge: n.edge, children: childIds(st, n.id) })),
    });
    expect(shape(projected)).toEqual(shape(folded));
    expect(projected.count).toBe(0);
  });

  it("keeps the identity of the nodes an event does not touch", () => {
    const n = events.findIndex((e) => e.type === "task.request" && e.meta?.review_of);
    const before = foldRun(events, n);
    const after = applyEvent(before, events[n]!);
    const root = rootIds(before)[0]!;
    expect(getNode(after, root)).toBe(getNode(before, root));
    expect(getNode(after, events[n]!.task_id)).not.toBe(getNode(before, events[n]!.task_id));
  });
});

// ---------------------------------------------------------------------------------------------
// Property: random lifecycles, randomly interleaved

type Step = Omit<ClutchMessage, "v" | "id" | "ts" | "thread_id" | "run_id">;

const OUTCOMES = ["task.result", "task.error", "task.cancel", "task.timeout", null] as const;

/** One task's events in order: routing, request, accept, work, a question and its answer, an outcome, maybe a retry. */
const lifecycle = fc.record({
  parent: fc.option(fc.nat(), { nil: null }),
  review: fc.boolean(),
  routed: fc.boolean(),
  accept: fc.boolean(),
  progress: fc.nat({ max: 3 }),
  tools: fc.nat({ max: 2 }),
  question: fc.constantFrom("none", "open", "answered"),
  outcome: fc.constantFrom(...OUTCOMES),
  retry: fc.boolean(),
  agent: fc.constantFrom("agent:pm-1", "agent:analyst-1", "agent:qa-1"),
});
type Lifecycle = typeof lifecycle extends fc.Arbitrary<infer T> ? T : never;

function stepsOf(l: Lifecycle, i: number): Step[] {
  const task_id = `task_${i}`;
  // Parents point at earlier tasks only, so the tree has no cycles.
  const parentIndex = l.parent !== null && i > 0 ? l.parent % i : null;
  const parent_task_id = parentIndex === null ? null : `task_${parentIndex}`;
  const review = Boolean(parent_task_id && l.review);
  const agent = { agent_id: l.agent };
  const s = (type: ClutchMessage["type"], payload: Record<string, unknown>, extra: Partial<Step> = {}): Step => ({
    type,
    payload,
    task_id,
    parent_task_id,
    from: agent,
    to: [],
    ...extra,
  });
  const out: Step[] = [];
  if (l.routed) out.push(s("routing.decision", { selected: l.agent, candidates: [l.agent], reason: `picked for ${task_id}`, scores: { [l.agent]: 1 } }, { from: { agent_id: "agent:orchestrator" } }));
  out.push(s("task.request", { title: `Task ${i}` }, { from: { agent_id: "agent:orchestrator" }, to: [agent], ...(review ? { meta: { review_of: parent_task_id } } : {}) }));
  if (l.accept) out.push(s("task.accept", {}));
  for (let k = 0; k < l.tools; k++) {
    out.push(s("tool.call", { call_id: `call_${i}_${k}`, tool: "query", arguments: {} }), s("tool.result", { call_id: `call_${i}_${k}`, tool: "query", result: { k } }));
  }
  for (let k = 0; k < l.progress; k++) out.push(s("task.progress", { percent: (k + 1) * 20 }));
  if (l.question !== "none") {
    out.push(s("chat.message", { text: "Which region?", expects_reply: true }, { id: `q_${i}`, to: [{ agent_id: "user" }] } as Partial<Step>));
    if (l.question === "answered") out.push(s("chat.message", { text: "West", reply_to: `q_${i}` }, { from: { agent_id: "user:ada", role: "human" } }));
  }
  if (l.outcome) {
    out.push(s(l.outcome, l.outcome === "task.error" ? { code: "X", message: "boom" } : {}));
    if (l.retry) out.push(s("task.request", { title: `Task ${i}, again` }, { from: { agent_id: "agent:orchestrator" }, to: [agent] }), s("task.accept", {}));
  }
  return out;
}

/** Merges the lifecycles by a random schedule, keeping each task's own order; numbers seq and ts. */
function interleave(lifecycles: Step[][], schedule: number[]): StoredEvent[] {
  const queues = lifecycles.map((q) => q.slice());
  const out: StoredEvent[] = [];
  let k = 0;
  const t0 = Date.parse("2026-01-01T00:00:00.000Z");
  while (queues.some((q) => q.length)) {
    const open = queues.filter((q) => q.length);
    const q = open[(schedule[k++ % Math.max(1, schedule.length)] ?? 0) % open.length]!;
    const step = q.shift()!;
    const seq = out.length + 1;
    out.push({
      v: "clutch/0.1",
      thread_id: "thr_p",
      run_id: "run_p",
      ...step,
      id: (step as { id?: string }).id ?? `msg_${seq}`,
      ts: new Date(t0 + seq * 1000).toISOString(),
      seq,
    } as StoredEvent);
  }
  return out;
}

const run = fc
  .array(lifecycle, { minLength: 1, maxLength: 8 })
  .chain((ls) => fc.tuple(fc.constant(ls), fc.array(fc.nat(), { minLength: 1, maxLength: 200 })))
  .map(([ls, schedule]) => ({ ls, events: interleave(ls.map((l, i) => stepsOf(l, i)), schedule) }));

describe("events of different tasks interleaved in random orders", () => {
  it("give each task the state of its own events folded alone, and the right tree and run state", () => {
    fc.assert(
      fc.property(run, ({ ls, events }) => {
        const state = foldRun(events);
        const alone = new Map<string, TaskView | undefined>();
        const positions = new Map<string, number[]>();
        events.forEach((ev, i) => {
          alone.set(ev.task_id, foldTask(alone.get(ev.task_id), ev));
          positions.set(ev.task_id, [...(positions.get(ev.task_id) ?? []), i]);
        });
        for (let i = 0; i < ls.length; i++) {
          const id = `task_${i}`;
          const node = getNode(state, id)!;
          expect(node.task).toEqual(alone.get(id));
          expect(taskEventIndexes(state, id)).toEqual(positions.get(id));
          const request = events.find((e) => e.task_id === id && e.type === "task.request")!;
          expect(node.parent_id).toBe(request.parent_task_id ?? null);
          expect(node.edge).toBe(request.parent_task_id ? (request.meta?.review_of ? "review" : "delegation") : null);
          const routing = events.filter((e) => e.task_id === id && e.type === "routing.decision").pop();
          expect(node.routing?.selected ?? null).toBe(routing ? ls[i]!.agent : null);
        }
        // Children in order of their first task event; roots likewise.
        const firsts = events.filter((e) => e.type === "task.request" && !events.some((o) => o.seq < e.seq && o.task_id === e.task_id && o.type === "task.request"));
        for (let i = 0; i < ls.length; i++) {
          expect(childIds(state, `task_${i}`)).toEqual(firsts.filter((e) => e.parent_task_id === `task_${i}`).map((e) => e.task_id));
        }
        const roots = firsts.filter((e) => !e.parent_task_id).map((e) => e.task_id);
        expect(rootIds(state)).toEqual(roots);
        expect(state.run_state).toBe(runStateOf(roots.map((id) => alone.get(id)!.state)));
        const tasks = [...alone.values()].filter(Boolean) as TaskView[];
        expect(state.task_total).toBe(tasks.length);
        expect(state.task_done).toBe(tasks.filter((t) => TERMINAL_STATES.has(t.state)).length);
      }),
      { numRuns: 300 },
    );
  });

  it("seek(N) equals folding events 1..N from scratch, for every N", () => {
    fc.assert(
      fc.property(run, fc.integer({ min: 1, max: 9 }), ({ events }, every) => {
        const timeline = new RunTimeline(every);
        // Half the events first, then the rest, the way pages and live events arrive.
        timeline.append(events.slice(0, events.length >> 1));
        timeline.append(events.slice(events.length >> 1));
        expect(timeline.append(events.slice(-3))).toBe(0);
        for (let n = events.length; n >= 0; n--) expect(snapshot(timeline.seek(n))).toEqual(snapshot(foldRun(events, n)));
        expect(timeline.countAtSeq(events[events.length - 1]!.seq)).toBe(events.length);
        expect(timeline.countAtSeq(0)).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it("an earlier state extended with other events does not disturb the states of the first history", () => {
    fc.assert(
      fc.property(run, run, fc.nat(), ({ events: a }, { events: b }, cut) => {
        const n = cut % (a.length + 1);
        const mid = foldRun(a, n);
        const first = a.slice(n).reduce(applyEvent, mid);
        const before = snapshot(first);
        // A second history from the same state, with events that reuse the same task ids.
        const other = b.map((e, i) => ({ ...e, seq: a.length + i + 1 }));
        const second = other.reduce(applyEvent, mid);
        expect(snapshot(first)).toEqual(before);
        expect(snapshot(mid)).toEqual(snapshot(foldRun(a, n)));
        expect(snapshot(second)).toEqual(snapshot(foldRun([...a.slice(0, n), ...other])));
      }),
      { numRuns: 150 },
    );
  });
});
