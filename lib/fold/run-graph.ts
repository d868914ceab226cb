/**
 * The state of a run after its events 1..N, folded incrementally, to watch a run's task tree live
 * and replay it event by event. Pure and dependency-free: the live run view, the replay
 * scrubber and tests all use this one fold, so the DAG at event N is the same however it was
 * reached (live, after a reload, by seeking).
 *
 * What it folds, per task (a task is identified by `task_id`):
 *   - the task itself: `foldTask` (lib/fold/task-state.ts) over its task.* events and its
 *     questions/answers, so the state, attempts, assignee and times match the channel's cards;
 *   - its place in the tree: `parent_task_id` of its first task event. A task.request with
 *     `meta.review_of` is an oversight review (edge kind `review`), any other child a
 *     `delegation`. A review without a parent hangs under the task it reviews;
 *   - its routing: the latest `routing.decision` (or `routing.failure`) with its task_id;
 *   - its events: the positions (0-based indexes into the run's event list) of every event whose
 *     task_id is the task's, routing decisions and tool calls included.
 * And for the run: the run state (`runStateOf` over the root tasks, those whose first task event
 * had no parent), counts of tasks by state, the time of the first and the latest event and the
 * time the run ended (durations), its approvals (`foldApproval`, lib/fold/approvals.ts) and the
 * tasks with open questions. So the run's status as people read it is known at every N
 * (`runStatusAt`: the server's RunSummary fold, lib/fold/run-status.ts, over the same tasks and
 * approvals), and whom each task waits on (`taskWaitsAt`).
 *
 * Cost: `applyEvent` is O(1) amortized and allocation-light. States are persistent: an event
 * changes one task node, a 32-way trie path (≤ 3 small arrays for 32,768 tasks) and appends to
 * append-only lists that later states share with earlier ones. Every node a step does not touch
 * keeps its identity, so React can memo on `node !== prev`. `RunTimeline` keeps a checkpoint
 * every K events; seeking to any N is a checkpoint plus at most K - 1 applications.
 *
 * Shared append-only buffers: a list is `{ buf, length }`; a state sees only `buf[0..length)`.
 * Appending at the tip pushes into the shared buffer (older states do not see the new item);
 * appending to an older state with a different item copies. Read lists through the accessors
 * (`childIds`, `taskEventIndexes`, `snapshot`), never `buf` directly.
 */
import type { StoredEvent } from "../protocol/envelope";
import { isEvent, type StoredEventOf } from "../protocol/events";
import { approvalIdOf, foldApproval, type ApprovalView } from "./approvals";
import { affectsTask, foldTask, TASK_STATES, TERMINAL_STATES, type TaskState, type TaskView } from "./task-state";
import { runStateOf, type RunState } from "./run-state";
import { progressOf, runStatusFacts, taskWaitingOn, waitingOnOf, type ApprovalFacts, type Progress, type RunStatusFacts, type WaitingOn } from "./run-status";

// ---------------------------------------------------------------------------------------------
// Persistent building blocks

/** An append-only list that later states share with earlier ones (see the file comment). */
export interface SharedList<T> {
  readonly buf: T[];
  readonly length: number;
}

// Never written: `append` starts a new buffer for an empty list. (Not frozen: a frozen object
// would get a hidden class of its own.)
const EMPTY_LIST: SharedList<never> = { buf: [] as never[], length: 0 };

function append<T>(list: SharedList<T>, item: T): SharedList<T> {
  if (list.length === 0) return { buf: [item], length: 1 };
  const { buf, length } = list;
  if (buf.length === length) {
    buf.push(item);
    return { buf, length: length + 1 };
  }
  // An earlier state extended again: the same item (a replay of the same log) shares the buffer.
  if (buf[length] === item) return { buf, length: length + 1 };
  const copy = buf.slice(0, length);
  copy.push(item);
  return { buf: copy, length: length + 1 };
}

/** The items of a shared list as a new array. */
export function listItems<T>(list: SharedList<T>): T[] {
  return list.buf.slice(0, list.length);
}

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** A persistent vector: a 32-way trie, path-copied on write. */
interface Vec<T> {
  readonly size: number;
  readonly shift: number;
  readonly root: readonly unknown[];
  /** Type only: what the vector holds. */
  readonly _item?: T;
}

const EMPTY_VEC: Vec<never> = { size: 0, shift: 0, root: [] };

function vecGet<T>(v: Vec<T>, i: number): T | undefined {
  if (i < 0 || i >= v.size) return undefined;
  let node = v.root;
  for (let s = v.shift; s > 0; s -= BITS) node = node[(i >>> s) & MASK] as unknown[];
  return node[i & MASK] as T;
}

function setIn(node: readonly unknown[] | undefined, shift: number, i: number, value: unknown): unknown[] {
  const copy = node ? node.slice() : [];
  if (shift === 0) copy[i & MASK] = value;
  else {
    const j = (i >>> shift) & MASK;
    copy[j] = setIn(copy[j] as unknown[] | undefined, shift - BITS, i, value);
  }
  return copy;
}

function vecSet<T>(v: Vec<T>, i: number, value: T): Vec<T> {
  return { size: v.size, shift: v.shift, root: setIn(v.root, v.shift, i, value) };
}

function vecPush<T>(v: Vec<T>, value: T): Vec<T> {
  let { root, shift } = v;
  if (v.size === WIDTH << shift) {
    root = [root];
    shift += BITS;
  }
  return { size: v.size + 1, shift, root: setIn(root, shift, v.size, value) };
}

/** task_id → position, shared by the states of one history (copied when histories diverge). */
interface Interner {
  readonly ids: string[];
  readonly index: Map<string, number>;
}

function newInterner(ids: string[] = []): Interner {
  return { ids, index: new Map(ids.map((id, i) => [id, i])) };
}

// ---------------------------------------------------------------------------------------------
// The state

/** How a task was handed to its agent: delegated by its parent, or an oversight review. */
export type EdgeKind = "delegation" | "review";

/** The routing decision (or failure) that chose a task's agent. */
export interface RoutingView {
  kind: "decision" | "failure";
  /** seq and position of the routing event. */
  seq: number;
  index: number;
  /** The agent chosen (decision only). */
  selected: string | null;
  reason: string;
  candidates: string[];
  scores: Record<string, number>;
}

/** One task of the run as of event N. */
export interface TaskNode {
  readonly id: string;
  /** The folded task; null while only non-task events of it were seen (a routing decision comes first). */
  readonly task: TaskView | null;
  /** Parent in the tree: `parent_task_id`, or for a review without one the task it reviews. */
  readonly parent_id: string | null;
  /** Kind of the edge from the parent; null for a root task. */
  readonly edge: EdgeKind | null;
  /** For a review task: the task under review (`meta.review_of`). */
  readonly review_of: string | null;
  readonly routing: RoutingView | null;
  /** Child task ids in the order they appeared. Read with `childIds`. */
  readonly children: SharedList<string>;
  /** Positions of this task's events in the run's event list. Read with `taskEventIndexes`. */
  readonly events: SharedList<number>;
  /** Position of the event that last changed `task` (−1 before the first). */
  readonly changed_at: number;
}

type Counts = Readonly<Record<TaskState, number>>;

/** A run after its first `count` events. Treat as immutable; read through the accessors below. */
export interface RunGraphState {
  readonly run_id: string | null;
  readonly thread_id: string | null;
  /** Events applied (N). */
  readonly count: number;
  /** seq of the last event applied; 0 before any. */
  readonly last_seq: number;
  /** ts of the first and of the last event applied. */
  readonly started_at: string | null;
  readonly last_ts: string | null;
  /** ts of the event that ended the run (every root task ended); null while running. */
  readonly ended_at: string | null;
  readonly run_state: RunState;
  /** Tasks that had a task event, and how many of them have ended. */
  readonly task_total: number;
  readonly task_done: number;
  /** Tasks by state. */
  readonly state_counts: Counts;
  /** Root tasks (no parent) in order of appearance. Read with `rootIds`. */
  readonly roots: SharedList<string>;
  readonly root_counts: Counts;
  readonly ids: Interner;
  /** Ids known to this state (a prefix of `ids.ids`). */
  readonly id_count: number;
  readonly nodes: Vec<TaskNode>;
  /** Every approval requested in the run, in order of request (copied on change: a run has few). */
  readonly approvals: readonly ApprovalView[];
  /** Tasks with open questions, in the order they asked (copied on change). */
  readonly asking: readonly string[];
}

const ZERO_COUNTS: Counts = { pending: 0, approval_required: 0, running: 0, waiting_input: 0, succeeded: 0, failed: 0, cancelled: 0, timed_out: 0 };

/** The state before any event. */
export function initialRunGraph(): RunGraphState {
  return {
    run_id: null,
    thread_id: null,
    count: 0,
    last_seq: 0,
    started_at: null,
    last_ts: null,
    ended_at: null,
    run_state: "running",
    task_total: 0,
    task_done: 0,
    state_counts: ZERO_COUNTS,
    roots: EMPTY_LIST,
    root_counts: ZERO_COUNTS,
    ids: newInterner(),
    id_count: 0,
    nodes: EMPTY_VEC,
    approvals: [],
    asking: [],
  };
}

function positionOf(ids: Interner, idCount: number, id: string): number {
  const i = ids.index.get(id);
  return i !== undefined && i < idCount && ids.ids[i] === id ? i : -1;
}

/** Interns `id` at position `at`; returns the interner to use. */
function intern(ids: Interner, at: number, id: string): Interner {
  if (ids.ids.length === at) {
    ids.ids.push(id);
    ids.index.set(id, at);
    return ids;
  }
  if (ids.ids[at] === id) return ids;
  return newInterner([...ids.ids.slice(0, at), id]);
}

// States and nodes are always built by these two functions, field by field in one order, so
// V8 gives every state (and every node) one hidden class and property reads stay fast; object
// spreads would build varying shapes.
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function copyNode(n: TaskNode): Mutable<TaskNode> {
  return {
    id: n.id,
    task: n.task,
    parent_id: n.parent_id,
    edge: n.edge,
    review_of: n.review_of,
    routing: n.routing,
    children: n.children,
    events: n.events,
    changed_at: n.changed_at,
  };
}

function copyState(s: RunGraphState): Mutable<RunGraphState> {
  return {
    run_id: s.run_id,
    thread_id: s.thread_id,
    count: s.count,
    last_seq: s.last_seq,
    started_at: s.started_at,
    last_ts: s.last_ts,
    ended_at: s.ended_at,
    run_state: s.run_state,
    task_total: s.task_total,
    task_done: s.task_done,
    state_counts: s.state_counts,
    roots: s.roots,
    root_counts: s.root_counts,
    ids: s.ids,
    id_count: s.id_count,
    nodes: s.nodes,
    approvals: s.approvals,
    asking: s.asking,
  };
}

function placeholder(id: string): TaskNode {
  return copyNode({ id, task: null, parent_id: null, edge: null, review_of: null, routing: null, children: EMPTY_LIST, events: EMPTY_LIST, changed_at: -1 });
}

/** The node of `id` in the working state `w`, added (as a placeholder) when new. */
function getOrAdd(w: Mutable<RunGraphState>, id: string): [number, TaskNode] {
  const i = positionOf(w.ids, w.id_count, id);
  if (i >= 0) return [i, vecGet(w.nodes, i)!];
  w.ids = intern(w.ids, w.id_count, id);
  const node = placeholder(id);
  w.nodes = vecPush(w.nodes, node);
  return [w.id_count++, node];
}

function bump(counts: Counts, from: TaskState | null, to: TaskState | null): Counts {
  if (from === to) return counts;
  const next: Record<TaskState, number> = {
    pending: counts.pending,
    approval_required: counts.approval_required,
    running: counts.running,
    waiting_input: counts.waiting_input,
    succeeded: counts.succeeded,
    failed: counts.failed,
    cancelled: counts.cancelled,
    timed_out: counts.timed_out,
  };
  if (from && from in next) next[from]--;
  if (to && to in next) next[to]++;
  return next;
}

function runStateFromCounts(c: Counts): RunState {
  const present: TaskState[] = [];
  for (const s of TASK_STATES) if (c[s] > 0) present.push(s);
  return runStateOf(present);
}

/** A task's routing from its routing.decision or routing.failure (Clutch Protocol §4.3, §2.5). */
function routingOf(ev: StoredEventOf<"routing.decision" | "routing.failure">, index: number): RoutingView {
  // Read field by field, whichever of the two it is: a failure may name candidates and scores too.
  const p: Record<string, unknown> = ev.payload ?? {};
  const scores: Record<string, number> = {};
  if (p.scores && typeof p.scores === "object") {
    for (const [k, v] of Object.entries(p.scores)) if (typeof v === "number") scores[k] = v;
  }
  return {
    kind: ev.type === "routing.failure" ? "failure" : "decision",
    seq: ev.seq,
    index,
    selected: ev.type === "routing.decision" && typeof p.selected === "string" ? p.selected : null,
    reason: typeof p.reason === "string" ? p.reason : "",
    candidates: Array.isArray(p.candidates) ? p.candidates.filter((c): c is string => typeof c === "string") : [],
    scores,
  };
}

/**
 * The state after `ev`, the next event of the run (its position is `state.count`). Never
 * mutates what `state` exposes; unchanged task nodes keep their identity. Events are expected
 * in seq order; one without a string `task_id` only advances the counters.
 */
export function applyEvent(state: RunGraphState, ev: StoredEvent): RunGraphState {
  const index = state.count;
  const ts = typeof ev.ts === "string" ? ev.ts : state.last_ts;
  const w = copyState(state);
  if (w.run_id === null && typeof ev.run_id === "string") w.run_id = ev.run_id;
  if (w.thread_id === null && typeof ev.thread_id === "string") w.thread_id = ev.thread_id;
  w.count = index + 1;
  if (typeof ev.seq === "number") w.last_seq = ev.seq;
  if (w.started_at === null) w.started_at = ts;
  w.last_ts = ts;
  if (typeof ev.type === "string" && ev.payload && typeof ev.payload === "object") w.approvals = withApproval(state.approvals, ev);
  if (typeof ev.task_id !== "string" || !ev.task_id) return w;

  const [pos, node] = getOrAdd(w, ev.task_id);
  const next = copyNode(node);
  next.events = append(node.events, index);
  if (isEvent(ev, "routing.decision", "routing.failure")) next.routing = routingOf(ev, index);

  if (typeof ev.type === "string" && ev.payload && typeof ev.payload === "object" && affectsTask(ev)) {
    const before = node.task;
    const after = foldTask(before ?? undefined, ev) ?? null;
    if (after && after !== before) {
      next.task = after;
      next.changed_at = index;
      const prevState = before?.state ?? null;
      w.state_counts = bump(w.state_counts, prevState, after.state);
      if (!before) w.task_total++;
      const wasAsking = Boolean(before?.open_questions.length);
      if (wasAsking !== after.open_questions.length > 0) w.asking = wasAsking ? w.asking.filter((id) => id !== ev.task_id) : [...w.asking, ev.task_id];
      const wasDone = prevState !== null && TERMINAL_STATES.has(prevState);
      const isDone = TERMINAL_STATES.has(after.state);
      if (wasDone !== isDone) w.task_done += isDone ? 1 : -1;

      if (!before) {
        // First task event: the task's place in the tree.
        const reviewOf = typeof ev.meta?.review_of === "string" && ev.meta.review_of ? ev.meta.review_of : null;
        const parent = after.parent_task_id ?? reviewOf;
        next.parent_id = parent;
        next.review_of = reviewOf;
        next.edge = parent ? (reviewOf ? "review" : "delegation") : null;
        if (parent && parent !== ev.task_id) {
          w.nodes = vecSet(w.nodes, pos, next); // the parent may share this trie path
          const [ppos, pnode] = getOrAdd(w, parent);
          const p = copyNode(pnode);
          p.children = append(pnode.children, ev.task_id);
          w.nodes = vecSet(w.nodes, ppos, p);
        } else {
          w.roots = append(w.roots, ev.task_id);
        }
      }
      if (next.parent_id === null || next.parent_id === ev.task_id) w.root_counts = bump(w.root_counts, prevState, after.state);
    }
  }
  w.nodes = vecSet(w.nodes, pos, next);

  if (w.root_counts !== state.root_counts) w.run_state = runStateFromCounts(w.root_counts);
  if (w.run_state === "running") w.ended_at = null;
  else if (state.run_state === "running" || state.ended_at === null) w.ended_at = ts;
  return w;
}

/** `approvals` after `ev`: the approval it is about folded (lib/fold/approvals.ts), or the same list when it changes none. */
function withApproval(approvals: readonly ApprovalView[], ev: StoredEvent): readonly ApprovalView[] {
  const id = approvalIdOf(ev);
  if (!id) return approvals;
  const i = approvals.findIndex((a) => a.approval_id === id);
  const prev = i < 0 ? undefined : approvals[i];
  const next = foldApproval(prev, ev);
  if (!next || next === prev) return approvals;
  return i < 0 ? [...approvals, next] : approvals.map((a, j) => (j === i ? next : a));
}

/** The state after the first `n` events (all by default) of `events`, folded from scratch. */
export function foldRun(events: readonly StoredEvent[], n = events.length): RunGraphState {
  let state = initialRunGraph();
  const end = Math.max(0, Math.min(n, events.length));
  for (let i = 0; i < end; i++) state = applyEvent(state, events[i]!);
  return state;
}

/**
 * A state holding `tasks` as the server's projection has them (the head of a run, no events),
 * so a view can draw a large run's tree before its events are loaded. Tasks come in the order
 * given (the projection's creation order); `review_of`, when known, makes the edge a review.
 * `count` is 0: nothing of it can be replayed; fold the events for that.
 */
export function graphFromTasks(tasks: readonly (TaskView & { review_of?: string | null })[]): RunGraphState {
  // Built in plain arrays at once (this runs before a large run's first paint), then frozen
  // into the persistent structures.
  const w = copyState(initialRunGraph());
  const ids: string[] = [];
  const index = new Map<string, number>();
  const nodes: Mutable<TaskNode>[] = [];
  const kids: string[][] = [];
  const roots: string[] = [];
  const at = (id: string): number => {
    let i = index.get(id);
    if (i === undefined) {
      i = ids.length;
      ids.push(id);
      index.set(id, i);
      nodes.push(copyNode(placeholder(id)));
      kids.push([]);
    }
    return i;
  };
  const states: Record<TaskState, number> = { ...ZERO_COUNTS };
  const rootStates: Record<TaskState, number> = { ...ZERO_COUNTS };
  for (const given of tasks) {
    const { review_of, ...t } = given;
    const n = nodes[at(t.task_id)]!;
    const reviewOf = review_of ?? null;
    const parent = t.parent_task_id ?? reviewOf;
    n.task = "review_of" in given ? t : given;
    n.parent_id = parent;
    n.review_of = reviewOf;
    n.edge = parent ? (reviewOf ? "review" : "delegation") : null;
    if (parent && parent !== t.task_id) kids[at(parent)]!.push(t.task_id);
    else {
      roots.push(t.task_id);
      if (t.state in rootStates) rootStates[t.state]++;
    }
    if (t.state in states) states[t.state]++;
    w.task_total++;
    if (TERMINAL_STATES.has(t.state)) w.task_done++;
    if (!w.started_at || t.created_at < w.started_at) w.started_at = t.created_at;
    if (!w.last_ts || t.updated_at > w.last_ts) w.last_ts = t.updated_at;
    if (t.ended_at && t.ended_at > w.last_ts!) w.last_ts = t.ended_at;
  }
  let vec: Vec<TaskNode> = EMPTY_VEC;
  nodes.forEach((n, i) => {
    if (kids[i]!.length) n.children = { buf: kids[i]!, length: kids[i]!.length };
    vec = vecPush(vec, n);
  });
  w.ids = newInterner(ids);
  w.id_count = ids.length;
  w.nodes = vec;
  w.roots = roots.length ? { buf: roots, length: roots.length } : EMPTY_LIST;
  w.state_counts = states;
  w.root_counts = rootStates;
  w.run_id = tasks[0]?.run_id ?? null;
  w.thread_id = tasks[0]?.thread_id ?? null;
  w.run_state = runStateFromCounts(w.root_counts);
  w.ended_at = w.run_state === "running" ? null : w.last_ts;
  w.asking = tasks.filter((t) => t.open_questions.length > 0).map((t) => t.task_id);
  return w;
}

// ---------------------------------------------------------------------------------------------
// Reading a state

/** The node of task `id`, or undefined when the state has seen no event of it. */
export function getNode(state: RunGraphState, id: string): TaskNode | undefined {
  const i = positionOf(state.ids, state.id_count, id);
  return i < 0 ? undefined : vecGet(state.nodes, i);
}

/** The folded task `id` as of this state, or undefined. */
export function getTask(state: RunGraphState, id: string): TaskView | undefined {
  return getNode(state, id)?.task ?? undefined;
}

/** Every node (tasks, and ids only seen in other events) in order of first appearance. */
export function nodesOf(state: RunGraphState): TaskNode[] {
  const out: TaskNode[] = new Array(state.id_count);
  for (let i = 0; i < state.id_count; i++) out[i] = vecGet(state.nodes, i)!;
  return out;
}

/** Calls `fn` for each node in order of first appearance (no array built). */
export function forEachNode(state: RunGraphState, fn: (node: TaskNode, position: number) => void): void {
  for (let i = 0; i < state.id_count; i++) fn(vecGet(state.nodes, i)!, i);
}

/** Ids of the root tasks (no parent), in order of appearance. */
export function rootIds(state: RunGraphState): string[] {
  return listItems(state.roots);
}

/** Ids of the children of task `id`, in order of appearance. */
export function childIds(state: RunGraphState, id: string): string[] {
  const node = getNode(state, id);
  return node ? listItems(node.children) : [];
}

/** Positions (0-based, < state.count) of the events of task `id`. */
export function taskEventIndexes(state: RunGraphState, id: string): number[] {
  const node = getNode(state, id);
  return node ? listItems(node.events) : [];
}

/** The run's approvals as the status folds read them (lib/fold/run-status.ts `ApprovalFacts`). */
function approvalFacts(state: RunGraphState): ApprovalFacts[] {
  return state.approvals.map((a) => ({
    approval_id: a.approval_id,
    task_id: a.request.task_id,
    agent_id: a.payload.subject.agent,
    approvers: a.approvers,
    state: a.state,
    request: a.payload,
  }));
}

/** Whom the run waits on after this state's events: RunSummary.waiting_on's rule (lib/fold/run-status.ts `waitingOnOf`). */
export function waitingOnAt(state: RunGraphState): WaitingOn[] {
  const tasks = state.asking.map((id) => getTask(state, id)).filter((t) => t !== undefined);
  return waitingOnOf(tasks, approvalFacts(state));
}

/**
 * The run's status as people read it after this state's events, live or at any replay
 * position: the server's RunSummary fold (lib/fold/run-status.ts `runStatusFacts`) over the
 * root tasks and whom the run waits on at N.
 */
export function runStatusAt(state: RunGraphState): RunStatusFacts {
  const roots = rootIds(state)
    .map((id) => getTask(state, id))
    .filter((t) => t !== undefined);
  return runStatusFacts(roots, waitingOnAt(state));
}

/** Whom `task` waits on after this state's events: its open questions and pending approvals (lib/fold/run-status.ts `taskWaitingOn`). */
export function taskWaitsAt(state: RunGraphState, task: TaskView): WaitingOn[] {
  return taskWaitingOn(task, task.open_approvals.length ? waitingOnOf([], approvalFacts(state)) : []);
}

/** How far the run is after this state's events: its tasks that succeeded of all (lib/fold/run-status.ts `progressOf`). */
export function progressAt(state: RunGraphState): Progress {
  return progressOf(state.state_counts.succeeded, state.task_total);
}

/** Milliseconds between the task's creation and its end, or `atTs` (the state's last event) while it runs. */
export function taskDurationMs(task: Pick<TaskView, "created_at" | "ended_at">, atTs: string | null): number | null {
  const start = Date.parse(task.created_at);
  const end = Date.parse(task.ended_at ?? atTs ?? "");
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : null;
}

/** The run's duration: first event to its end, or to the last event while it runs. */
export function runDurationMs(state: RunGraphState): number | null {
  if (!state.started_at) return null;
  const start = Date.parse(state.started_at);
  const end = Date.parse(state.ended_at ?? state.last_ts ?? "");
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : null;
}

/** A plain, fully materialized copy of the state (for tests, debugging and deep equality). */
export interface RunGraphSnapshot {
  run_id: string | null;
  thread_id: string | null;
  count: number;
  last_seq: number;
  started_at: string | null;
  last_ts: string | null;
  ended_at: string | null;
  run_state: RunState;
  task_total: number;
  task_done: number;
  state_counts: Record<TaskState, number>;
  roots: string[];
  approvals: ApprovalView[];
  asking: string[];
  nodes: Record<
    string,
    Omit<TaskNode, "children" | "events"> & { children: string[]; events: number[] }
  >;
}

/** The state as plain data. */
export function snapshot(state: RunGraphState): RunGraphSnapshot {
  const nodes: RunGraphSnapshot["nodes"] = {};
  forEachNode(state, (n) => {
    nodes[n.id] = { ...n, children: listItems(n.children), events: listItems(n.events) };
  });
  return {
    run_id: state.run_id,
    thread_id: state.thread_id,
    count: state.count,
    last_seq: state.last_seq,
    started_at: state.started_at,
    last_ts: state.last_ts,
    ended_at: state.ended_at,
    run_state: state.run_state,
    task_total: state.task_total,
    task_done: state.task_done,
    state_counts: { ...state.state_counts },
    roots: listItems(state.roots),
    approvals: [...state.approvals],
    asking: [...state.asking],
    nodes,
  };
}

// ---------------------------------------------------------------------------------------------
// Timeline: the events of a run, with checkpoints for seeking

/** Checkpoint spacing: seeking applies at most this many − 1 events. */
export const CHECKPOINT_EVERY = 512;

/**
 * The events of one run in seq order and their fold, with a checkpoint state every
 * `every` events so `seek(n)` for any n costs at most `every − 1` applications. Mutable
 * container of immutable states: `append` adds events (live or the next page), `head` is the
 * state after all of them, `version` changes on every append (for React's external stores).
 */
export class RunTimeline {
  readonly events: StoredEvent[] = [];
  private readonly checkpoints: RunGraphState[] = [initialRunGraph()];
  private headState: RunGraphState = this.checkpoints[0]!;
  private cache: { n: number; state: RunGraphState } | null = null;
  version = 0;

  constructor(readonly every = CHECKPOINT_EVERY) {
    if (!Number.isInteger(every) || every < 1) throw new Error("checkpoint spacing must be a positive integer");
  }

  /** Number of events held. */
  get length(): number {
    return this.events.length;
  }

  /** seq of the last event held, 0 when empty. */
  get lastSeq(): number {
    return this.events.length ? this.events[this.events.length - 1]!.seq : 0;
  }

  /** The state after every event held. */
  get head(): RunGraphState {
    return this.headState;
  }

  /**
   * Appends events with a seq above the last one held, in order; others (duplicates, a seq
   * delivered twice) are skipped. Returns how many were added.
   */
  append(events: readonly StoredEvent[]): number {
    let added = 0;
    for (const ev of events) {
      if (!ev || typeof ev.seq !== "number" || ev.seq <= this.lastSeq) continue;
      this.events.push(ev);
      this.headState = applyEvent(this.headState, ev);
      if (this.events.length % this.every === 0) this.checkpoints.push(this.headState);
      added++;
    }
    if (added) this.version++;
    return added;
  }

  /** The state after the first `n` events (clamped to 0..length). */
  seek(n: number): RunGraphState {
    const target = Math.max(0, Math.min(Math.floor(n), this.events.length));
    if (target === this.events.length) return this.headState;
    if (this.cache?.n === target) return this.cache.state;
    // Start from the cached state when it is between the checkpoint and the target.
    const k = Math.floor(target / this.every);
    let state = this.checkpoints[k]!;
    if (this.cache && this.cache.n <= target && this.cache.n > k * this.every) state = this.cache.state;
    for (let i = state.count; i < target; i++) state = applyEvent(state, this.events[i]!);
    this.cache = { n: target, state };
    return state;
  }

  /** How many events have a seq ≤ `seq` (the N to show for a deep link `?at=<seq>`). */
  countAtSeq(seq: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
