/**
 * The run-graph fold (lib/fold/run-graph.ts):
 * - on a recorded run of the #sales agents, the state at every N equals the state built live
 *   event by event, and seek(N) equals folding events 1..N from scratch;
 * - property: tasks' events interleaved in random orders give each task the state of folding
 *   its own events alone, the right tree, event lists and run state; seeking anywhere equals a
 *   fold from scratch, with checkpoints close together so many seeks cross them;
 * - the run's status at any N (`runStatusAt`) is the server's RunSummary fold
 *   (lib/fold/run-status.ts) over the same tasks and approvals: "Waiting on you" for an approver
 *   and "Waiting on an admin" for a member while an approval is open at N, "Cancelled by Lee",
 *   "Not done", and the tasks that succeeded of all.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isEvent, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { foldTask, TERMINAL_STATES, type TaskView } from "./task-state";
import { runStateOf } from "./run-state";
import { foldApprovals } from "./approvals";
import { runStatusFacts, runStatusLabel, taskStatusLabel, waitingOnOf, type ApprovalFacts, type WaitingOn } from "./run-status";
import { ADMIN, APPROVAL_ID, approvalRun, cancelledRun, DANA, declinedRun, LEE, nameOf, QUESTION_ID, questionRun, TASK_ID } from "@/test/fixtures/status-runs";
import {
  applyEvent,
  childIds,
  foldRun,
  getNode,
  getTask,
  graphFromTasks,
  initialRunGraph,
  nodesOf,
  progressAt,
  rootIds,
  runStatusAt,
  RunTimeline,
  snapshot,
  taskEventIndexes,
  taskWaitsAt,
  waitingOnAt,
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

  it("reads 'Waiting on you' while pm-1's question to the channel is open, 'Running' once Dana answered, then 'Succeeded' with 3 of 3 tasks done", () => {
    const q = events.findIndex((e) => isEvent(e, "chat.message") && e.payload.expects_reply);
    const a = events.findIndex((e) => e.payload.reply_to === events[q]!.id);
    expect(runStatusLabel(runStatusAt(foldRun(events, q)), LEE, nameOf)).toBe("Running");
    for (const n of [q + 1, a]) {
      const at = foldRun(events, n);
      expect(runStatusAt(at).status).toBe("waiting");
      expect(runStatusLabel(runStatusAt(at), LEE, nameOf)).toBe("Waiting on you");
      expect(taskStatusLabel(getTask(at, events[q]!.task_id)!, taskWaitsAt(at, getTask(at, events[q]!.task_id)!), LEE, nameOf)).toBe("Waiting on you");
    }
    expect(runStatusLabel(runStatusAt(foldRun(events, a + 1)), LEE, nameOf)).toBe("Running");
    const end = foldRun(events);
    expect(runStatusLabel(runStatusAt(end), LEE, nameOf)).toBe("Succeeded");
    expect(progressAt(end).text).toBe("3 of 3 tasks done");
  });

  it("keeps the run 'Running' while the analyst waits on Project Manager, and says so on the analyst's task", () => {
    const q = events.findIndex((e) => isEvent(e, "chat.message") && e.payload.expects_reply && e.from.agent_id === "agent:analyst-1");
    const at = foldRun(events, q + 1);
    const analyst = getTask(at, events[q]!.task_id)!;
    expect(runStatusLabel(runStatusAt(at), ADMIN, nameOf)).toBe("Running");
    expect(taskStatusLabel(analyst, taskWaitsAt(at, analyst), ADMIN, nameOf)).toBe("Waiting on Project Manager");
    expect(progressAt(at).text).toBe("0 of 2 tasks done");
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
// The run's status at any N: the server's fold, in people's words

/** The run at every N of `events`: its status words for `person`, and its progress. */
function wordsAt(events: StoredEvent[], person: typeof ADMIN) {
  return events.map((_, i) => {
    const at = foldRun(events, i + 1);
    const task = getTask(at, TASK_ID)!;
    return { run: runStatusLabel(runStatusAt(at), person, nameOf), task: taskStatusLabel(task, taskWaitsAt(at, task), person, nameOf), progress: progressAt(at).text };
  });
}

describe("the run's status at every N", () => {
  it("waits on an approval: 'Waiting on you' for an admin, 'Waiting on an admin' for a member, until it is granted", () => {
    const events = approvalRun();
    const admin = wordsAt(events, ADMIN);
    const member = wordsAt(events, DANA);
    expect(admin.map((w) => w.run)).toEqual(["Running", "Running", "Waiting on you", "Waiting on you", "Running", "Succeeded"]);
    expect(member.map((w) => w.run)).toEqual(["Running", "Running", "Waiting on an admin", "Waiting on an admin", "Running", "Succeeded"]);
    expect(admin.map((w) => w.task)).toEqual(["Pending", "Running", "Waiting on you", "Waiting on you", "Running", "Succeeded"]);
    expect(member.map((w) => w.task)).toEqual(["Pending", "Running", "Waiting on an admin", "Waiting on an admin", "Running", "Succeeded"]);
    expect(member.map((w) => w.progress)).toEqual([...Array(5).fill("0 of 1 task done"), "1 of 1 task done"]);
    expect(waitingOnAt(foldRun(events, 3))).toEqual([
      { kind: "approval", task_id: TASK_ID, approval_id: APPROVAL_ID, agent_id: "agent:pm-1", approvers: ["role:admin"], requesters: ["user:dana"], forbid_self_approval: false },
    ]);
  });

  it("waits on Dana's answer: 'Waiting on you' for her, 'Waiting on Dana' for Lee", () => {
    const events = questionRun();
    expect(wordsAt(events, DANA).map((w) => w.run)).toEqual(["Running", "Running", "Waiting on you", "Waiting on you", "Running", "Succeeded"]);
    expect(wordsAt(events, LEE).map((w) => w.task)).toEqual(["Pending", "Running", "Waiting on Dana", "Waiting on Dana", "Running", "Succeeded"]);
    expect(waitingOnAt(foldRun(events, 3))).toEqual([{ kind: "answer", task_id: TASK_ID, message_id: QUESTION_ID, from: "agent:pm-1", to: ["user:dana"] }]);
  });

  it("reads 'Cancelled by Lee Park' with 0 of 1 task done once Lee cancelled its one task", () => {
    const end = foldRun(cancelledRun());
    expect(runStatusAt(end)).toMatchObject({ status: "cancelled", cancelled_by: { id: "user:lee", name: "Lee Park" } });
    expect(runStatusLabel(runStatusAt(end), DANA, nameOf)).toBe("Cancelled by Lee Park");
    expect(progressAt(end)).toMatchObject({ text: "0 of 1 task done", fraction: 0 });
    expect(end.task_done).toBe(1);
  });

  it("reads 'Not done' with 0 of 1 task done when pm-1 declined", () => {
    const end = foldRun(declinedRun());
    expect(runStatusLabel(runStatusAt(end), DANA, nameOf)).toBe("Not done");
    expect(wordsAt(declinedRun(), DANA).at(-1)).toEqual({ run: "Not done", task: "Not done", progress: "0 of 1 task done" });
  });
});

/** What the server folds for a run after `events` (server/events/runs.ts): its tasks and approvals projections, then run-status.ts. */
function serverFold(events: readonly StoredEvent[]): { waiting_on: WaitingOn[]; status: string } {
  const tasks = new Map<string, TaskView>();
  for (const ev of events) {
    const t = foldTask(tasks.get(ev.task_id), ev);
    if (t) tasks.set(ev.task_id, t);
  }
  const approvals: ApprovalFacts[] = [...foldApprovals(events).values()].map((a) => ({
    approval_id: a.approval_id,
    task_id: a.request.task_id,
    agent_id: a.payload.subject.agent,
    approvers: a.approvers,
    state: a.state,
    request: a.payload,
  }));
  const all = [...tasks.values()];
  const waiting_on = waitingOnOf(all, approvals);
  return { waiting_on, status: runStatusFacts(all.filter((t) => !t.parent_task_id), waiting_on).status };
}

/** Waits in a stable order, to compare what two folds list. */
const byId = (ws: readonly WaitingOn[]) => [...ws].sort((a, b) => (a.kind === "answer" ? a.message_id : a.approval_id).localeCompare(b.kind === "answer" ? b.message_id : b.approval_id));

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
  approval: fc.constantFrom("none", "open", "granted"),
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
  if (l.approval !== "none") {
    const approval = {
      approval_id: `apr_${i}`,
      subject: { kind: "tool_call", agent: l.agent, tool: "reply" },
      approvers: ["role:admin"],
      summary: `Task ${i} will reply`,
      expires_at: "2026-01-02T00:00:00.000Z",
    };
    out.push(s("approval.requested", approval, { from: { agent_id: "agent:policy" } }));
    if (l.approval === "granted") out.push(s("approval.granted", { approval_id: `apr_${i}`, by: "user:ada" }, { from: { agent_id: "user:ada", role: "human" } }));
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
        expect(progressAt(state).done).toBe(tasks.filter((t) => t.state === "succeeded").length);
      }),
      { numRuns: 300 },
    );
  });

  it("at every N, wait on whom and read as the server's RunSummary fold of the same events says", () => {
    fc.assert(
      fc.property(run, ({ events }) => {
        const timeline = new RunTimeline(4);
        timeline.append(events);
        for (let n = 0; n <= events.length; n++) {
          const at = timeline.seek(n);
          const server = serverFold(events.slice(0, n));
          expect(byId(waitingOnAt(at))).toEqual(byId(server.waiting_on));
          expect(runStatusAt(at).status).toBe(server.status);
        }
      }),
      { numRuns: 150 },
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
