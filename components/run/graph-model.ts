/**
 * From a run's folded state to what the React Flow DAG of the run's tasks draws: laid out by
 * dagre, updated live as events arrive with no jump of nodes already placed, and fast on large
 * runs because subtrees collapse beyond a size.
 *
 * Three steps, each cheap where it runs often:
 *  1. `computeStructure(head, …)`: which nodes are on the canvas, from the newest state of the
 *     run (the head): the run node, its root tasks and their subtasks. A parent with more than
 *     CHILD_CAP children shows the first CHILD_SHOWN and a "+N more" node (click: all); a task
 *     below the roots whose subtree is larger than SUBTREE_CAP starts collapsed (its node says
 *     how many subtasks it hides; click to open); past VISIBLE_BUDGET nodes, further subtrees
 *     start collapsed too. A decision, once made for a node, sticks (the caller keeps them), so
 *     live growth never hides what the person was looking at. Runs when the tree changes.
 *  2. `StableLayout.update(structure)`: positions with dagre (top-down). Nodes already placed
 *     never move: a new node goes where dagre puts it relative to its nearest placed ancestor,
 *     shifted right past anything it would overlap. Runs when new nodes appear.
 *  3. `frameAt(structure, layout, stateN, …)`: the React Flow nodes and edges at event N: the
 *     nodes of the structure that exist after events 1..N, with their task as folded at N. No
 *     layout, O(visible + hidden) work, and unchanged nodes keep their object identity so React
 *     Flow re-renders only what changed. Runs on every scrub step.
 *
 * The words on the nodes are the run's and the tasks' status at N as the person reading them
 * says it (docs/channels.md "Run states"): the run node `runNodeStatus` (the server's RunSummary
 * fold over the events up to N, lib/fold/run-graph.ts `runStatusAt`), "Waiting on you" or on
 * whom while a question or an approval is open at N, "Cancelled by Lee", and the tasks that
 * succeeded of all ("0 of 1 task done"); a task node `taskNodeLabel`.
 */
import dagre from "@dagrejs/dagre";
import type { Edge, Node } from "@xyflow/react";
import type { Decider } from "@/lib/approvers";
import type { RunGraphState, TaskNode } from "@/lib/fold/run-graph";
import { forEachNode, getNode, progressAt, runStatusAt, taskWaitsAt } from "@/lib/fold/run-graph";
import { runStatusLabel, taskStatusLabel, type Progress, type RunStatusFacts } from "@/lib/fold/run-status";
import type { TaskView } from "@/lib/fold/task-state";

/** A parent with more children than this shows CHILD_SHOWN of them and a "+N more" node. */
export const CHILD_CAP = 30;
export const CHILD_SHOWN = 16;
/** A task below the roots with more descendants than this starts collapsed. */
export const SUBTREE_CAP = 40;
/** Past this many nodes on the canvas, further subtrees start collapsed. */
export const VISIBLE_BUDGET = 400;

export const RUN_NODE_ID = "run";
export const SIZE = {
  run: { w: 280, h: 68 },
  task: { w: 244, h: 96 },
  more: { w: 180, h: 44 },
} as const;

export type StructKind = "run" | "task" | "more";

export interface StructNode {
  id: string;
  kind: StructKind;
  /** Visible parent id (the run node for roots); null for the run node. */
  parent: string | null;
  depth: number;
  /** Task nodes: children it has in the head (0 = a leaf). */
  childCount: number;
  /** Task nodes: its children are hidden (collapsed). */
  collapsed: boolean;
  /** "more" nodes: whose children they stand for. */
  of?: string;
}

export interface StructEdge {
  id: string;
  source: string;
  target: string;
}

/** What is on the canvas, from the head (see step 1 in the file comment). */
export interface Structure {
  nodes: StructNode[];
  byId: Map<string, StructNode>;
  edges: StructEdge[];
  /** Hidden task id → the visible node standing for it (a collapsed ancestor or a "more" node). */
  hiddenUnder: Map<string, string>;
  /** Decisions made in this pass for nodes seen for the first time: id → collapsed. */
  decided: [string, boolean][];
}

/** What the person chose, and the decisions that stuck. */
export interface ExpandState {
  /** Task id → collapsed (true) or open (false). */
  collapsed: ReadonlyMap<string, boolean>;
  /** Parents whose "+N more" node was opened. */
  moreOpen: ReadonlySet<string>;
}

/** Which nodes the canvas shows, from the head of the run (step 1). */
export function computeStructure(head: RunGraphState, expand: ExpandState): Structure {
  // Children (tasks only) of every task, and of the run node: root tasks, and tasks whose
  // parent never had a task event.
  const runKids: string[] = [];
  const kids = new Map<string, string[]>();
  forEachNode(head, (n) => {
    if (!n.task) return;
    const ks: string[] = [];
    const { buf, length } = n.children;
    for (let i = 0; i < length; i++) if (getNode(head, buf[i]!)?.task) ks.push(buf[i]!);
    kids.set(n.id, ks);
    if (!n.parent_id || n.parent_id === n.id || !getNode(head, n.parent_id)?.task) runKids.push(n.id);
  });
  kids.set(RUN_NODE_ID, runKids);

  // Descendant counts (iterative post-order from the run node).
  const desc = new Map<string, number>();
  const stack: [string, number][] = [[RUN_NODE_ID, 0]];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const ks = kids.get(top[0]) ?? [];
    if (top[1] < ks.length) {
      stack.push([ks[top[1]++]!, 0]);
    } else {
      stack.pop();
      let d = 0;
      for (const k of ks) d += 1 + (desc.get(k) ?? 0);
      desc.set(top[0], d);
    }
  }

  const nodes: StructNode[] = [];
  const byId = new Map<string, StructNode>();
  const edges: StructEdge[] = [];
  const hiddenUnder = new Map<string, string>();
  const decided: [string, boolean][] = [];
  const add = (n: StructNode) => {
    nodes.push(n);
    byId.set(n.id, n);
    if (n.parent) edges.push({ id: `${n.parent}->${n.id}`, source: n.parent, target: n.id });
  };
  const hideSubtree = (id: string, under: string) => {
    const todo = [id];
    while (todo.length) {
      const x = todo.pop()!;
      hiddenUnder.set(x, under);
      for (const k of kids.get(x) ?? []) todo.push(k);
    }
  };

  add({ id: RUN_NODE_ID, kind: "run", parent: null, depth: 0, childCount: runKids.length, collapsed: false });
  // Breadth first, so the budget spares the top of the tree.
  const queue: StructNode[] = [nodes[0]!];
  for (let qi = 0; qi < queue.length; qi++) {
    const v = queue[qi]!;
    if (v.collapsed) continue;
    const ks = kids.get(v.id) ?? [];
    let shown = ks;
    if (ks.length > CHILD_CAP && !expand.moreOpen.has(v.id)) {
      shown = ks.slice(0, CHILD_SHOWN);
      const moreId = `more:${v.id}`;
      for (const k of ks.slice(CHILD_SHOWN)) hideSubtree(k, moreId);
      add({ id: moreId, kind: "more", parent: v.id, depth: v.depth + 1, childCount: 0, collapsed: false, of: v.id });
    }
    for (const k of shown) {
      const childCount = kids.get(k)?.length ?? 0;
      let collapsed = false;
      if (childCount > 0) {
        const prior = expand.collapsed.get(k);
        if (prior !== undefined) collapsed = prior;
        else {
          // Roots (depth 1) stay open; deeper big subtrees, or anything past the budget, start closed.
          collapsed = v.depth + 1 >= 2 && ((desc.get(k) ?? 0) > SUBTREE_CAP || nodes.length > VISIBLE_BUDGET);
          decided.push([k, collapsed]);
        }
      }
      const n: StructNode = { id: k, kind: "task", parent: v.id, depth: v.depth + 1, childCount, collapsed };
      add(n);
      if (collapsed) for (const g of kids.get(k) ?? []) hideSubtree(g, k);
      else queue.push(n);
    }
  }
  return { nodes, byId, edges, hiddenUnder, decided };
}

// ---------------------------------------------------------------------------------------------
// Step 2: layout

export interface XY {
  x: number;
  y: number;
}

const GAP_X = 28;
const GAP_Y = 64;

function sizeOf(n: StructNode) {
  return SIZE[n.kind];
}

function overlaps(a: XY, as: { w: number; h: number }, b: XY, bs: { w: number; h: number }): boolean {
  return a.x < b.x + bs.w + GAP_X / 2 && b.x < a.x + as.w + GAP_X / 2 && a.y < b.y + bs.h + 8 && b.y < a.y + as.h + 8;
}

/**
 * Positions (top-left, px) that never move once given (step 2). Keep one per run page; call
 * `update` with each new structure; read `get(id)`.
 */
export class StableLayout {
  private readonly pos = new Map<string, XY>();
  /** Bumped whenever a position is added. */
  version = 0;

  get(id: string): XY | undefined {
    return this.pos.get(id);
  }

  /** Places the structure's nodes that have no position yet. Returns true when any was placed. */
  update(s: Structure): boolean {
    const visible = s.nodes;
    const placed: StructNode[] = [];
    const fresh: StructNode[] = [];
    for (const n of visible) {
      const p = this.pos.get(n.id);
      if (p) placed.push(n);
      else fresh.push(n);
    }
    // A node shown again keeps its old place unless something now sits there.
    const keep: StructNode[] = [];
    for (const n of placed) {
      const p = this.pos.get(n.id)!;
      const clash = keep.some((o) => overlaps(p, sizeOf(n), this.pos.get(o.id)!, sizeOf(o)));
      if (clash) {
        this.pos.delete(n.id);
        fresh.push(n);
      } else keep.push(n);
    }
    if (!fresh.length) return false;

    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: "TB", nodesep: GAP_X, ranksep: GAP_Y, marginx: 0, marginy: 0 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const n of visible) g.setNode(n.id, { width: sizeOf(n).w, height: sizeOf(n).h });
    for (const e of s.edges) g.setEdge(e.source, e.target);
    dagre.layout(g);
    const dag = (id: string): XY => {
      const d = g.node(id) as { x: number; y: number } | undefined;
      const n = s.byId.get(id)!;
      return d ? { x: d.x - sizeOf(n).w / 2, y: d.y - sizeOf(n).h / 2 } : { x: 0, y: 0 };
    };

    // Shift of the whole drawing when nothing it could hang on is placed (a new root beside old ones).
    let globalShift: XY = { x: 0, y: 0 };
    if (keep.length) {
      const maxX = Math.max(...keep.map((n) => this.pos.get(n.id)!.x + sizeOf(n).w));
      globalShift = { x: maxX + GAP_X * 2 - Math.min(...fresh.map((n) => dag(n.id).x)), y: 0 };
    }
    const order = fresh.sort((a, b) => a.depth - b.depth);
    for (const n of order) {
      // Nearest placed ancestor: keep this node where dagre puts it relative to that one.
      let a = n.parent ? s.byId.get(n.parent) : undefined;
      while (a && !this.pos.has(a.id)) a = a.parent ? s.byId.get(a.parent) : undefined;
      const d = dag(n.id);
      let p: XY;
      if (a) {
        const pa = this.pos.get(a.id)!;
        const da = dag(a.id);
        p = { x: d.x + pa.x - da.x, y: d.y + pa.y - da.y };
      } else p = { x: d.x + globalShift.x, y: d.y + globalShift.y };
      // Move right past anything it would overlap.
      const size = sizeOf(n);
      for (let guard = 0; guard < 10_000; guard++) {
        const hit = keep.find((o) => overlaps(p, size, this.pos.get(o.id)!, sizeOf(o)));
        if (!hit) break;
        p = { x: this.pos.get(hit.id)!.x + sizeOf(hit).w + GAP_X, y: p.y };
      }
      this.pos.set(n.id, p);
      keep.push(n);
    }
    this.version++;
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Step 3: the frame at event N

/** Data of the run node. */
export interface RunNodeData extends Record<string, unknown> {
  state: RunGraphState;
  title: string;
  /** The seq the frame shows (for tests and the bench: the graph reflects event N). */
  seq: number;
  count: number;
  /** The run's status at N (`runNodeStatus`) and its words for the person reading ("Waiting on you"). */
  status: RunStatusFacts;
  label: string;
  /** Tasks that succeeded of all at N: "0 of 1 task done" (lib/fold/run-status.ts `progressOf`). */
  progress: Progress;
}

/** Data of a task node. */
export interface TaskNodeData extends Record<string, unknown> {
  node: TaskNode;
  /** ts of the last event applied: a running task's duration runs to it. */
  at: string | null;
  selected: boolean;
  collapsed: boolean;
  childCount: number;
  /** Subtasks hidden under it (collapsed), existing at N. */
  hidden: number;
  /** Its model calls at N, e.g. "12.4k tok · $0.04" (lib/fold/usage.ts); "" when none. */
  usage: string;
  /** Its state at N in people's words (`taskNodeLabel`): "Running", "Waiting on you", "Cancelled by Lee"… */
  label: string;
  onToggle: (id: string) => void;
  onSelect: (id: string) => void;
}

/** Data of a "+N more" node. */
export interface MoreNodeData extends Record<string, unknown> {
  parent: string;
  hidden: number;
  onOpen: (parent: string) => void;
}

/** Data of an edge: how the child was handed over, and the routing that chose its agent. */
export interface HandoffEdgeData extends Record<string, unknown> {
  kind: "request" | "delegation" | "review" | "more";
  routing: TaskNode["routing"];
  /** Many siblings side by side: the label is only the kind (the agent is on the node and in the tooltip). */
  compact: boolean;
}

export type RunFlowNode = Node<RunNodeData, "run"> | Node<TaskNodeData, "task"> | Node<MoreNodeData, "more">;
export type RunFlowEdge = Edge<HandoffEdgeData, "handoff">;

/** Callbacks and selection the frame puts into node data. */
export interface FrameInput {
  title: string;
  selected: string | null;
  onToggle: (id: string) => void;
  onSelect: (id: string) => void;
  onOpenMore: (parent: string) => void;
  /** Each task's usage badge at N, by task id (lib/fold/usage.ts); a task without model calls has none. */
  usage: ReadonlyMap<string, string>;
  /** Who reads the graph (whether a wait is on "you"; null: nobody signed in), and how ids are named ("Waiting on Dana"). */
  person: Decider | null;
  nameOf: (id: string) => string;
  /** The run's status from the server (RunSummary), for a state without events (the task projection drawn while a large run loads). */
  serverStatus: RunStatusFacts | null;
}

/** The run's status at N: folded from the events up to N, or the server's for a state without events. */
export function runNodeStatus(state: RunGraphState, serverStatus: RunStatusFacts | null): RunStatusFacts {
  return state.count === 0 && serverStatus ? serverStatus : runStatusAt(state);
}

/**
 * A task's state at N in people's words: whom it waits on while it waits on an answer or an
 * approval ("Waiting on you", "Waiting on an admin"), "Not done", "Cancelled by Lee", else its
 * state's name (lib/fold/run-status.ts `taskStatusLabel`).
 */
export function taskNodeLabel(state: RunGraphState, task: TaskView, person: Decider | null, nameOf: (id: string) => string): string {
  return taskStatusLabel(task, taskWaitsAt(state, task), person, nameOf);
}

/** Nodes take clicks although they are neither draggable nor selectable (React Flow would let them through). */
const INTERACTIVE = Object.freeze({ pointerEvents: "all" as const });

/** Reuses node and edge objects between frames when nothing they show changed. */
export interface FrameCache {
  nodes: Map<string, RunFlowNode>;
  edges: Map<string, RunFlowEdge>;
}

export function newFrameCache(): FrameCache {
  return { nodes: new Map(), edges: new Map() };
}

function sameTaskData(a: TaskNodeData, b: TaskNodeData): boolean {
  const running = b.node.task && !b.node.task.ended_at;
  return (
    a.node === b.node &&
    (!running || a.at === b.at) &&
    a.selected === b.selected &&
    a.collapsed === b.collapsed &&
    a.childCount === b.childCount &&
    a.hidden === b.hidden &&
    a.usage === b.usage &&
    a.label === b.label &&
    a.onToggle === b.onToggle &&
    a.onSelect === b.onSelect
  );
}

/** The React Flow nodes and edges at event N (step 3). */
export function frameAt(s: Structure, layout: StableLayout, state: RunGraphState, input: FrameInput, cache: FrameCache): { nodes: RunFlowNode[]; edges: RunFlowEdge[] } {
  // Hidden tasks that exist at N, per visible node standing for them.
  const hidden = new Map<string, number>();
  for (const [id, under] of s.hiddenUnder) if (getNode(state, id)?.task) hidden.set(under, (hidden.get(under) ?? 0) + 1);

  const nodes: RunFlowNode[] = [];
  const shown = new Set<string>();
  const nextNodes = new Map<string, RunFlowNode>();
  for (const n of s.nodes) {
    const position = layout.get(n.id);
    if (!position) continue;
    let out: RunFlowNode | undefined;
    const prev = cache.nodes.get(n.id);
    if (n.kind === "run") {
      const status = runNodeStatus(state, input.serverStatus);
      const data: RunNodeData = {
        state,
        title: input.title,
        seq: state.last_seq,
        count: state.count,
        status,
        label: runStatusLabel(status, input.person, input.nameOf),
        progress: progressAt(state),
      };
      out = { id: n.id, type: "run", position, data, draggable: false, selectable: false, connectable: false, width: SIZE.run.w, height: SIZE.run.h } as RunFlowNode;
    } else if (n.kind === "more") {
      const count = hidden.get(n.id) ?? 0;
      if (!count) continue;
      const pd = prev?.data as MoreNodeData | undefined;
      out =
        prev && prev.position === position && pd?.hidden === count && pd.onOpen === input.onOpenMore
          ? prev
          : ({ id: n.id, type: "more", position, data: { parent: n.of!, hidden: count, onOpen: input.onOpenMore }, draggable: false, connectable: false, style: INTERACTIVE, width: SIZE.more.w, height: SIZE.more.h } as RunFlowNode);
    } else {
      const node = getNode(state, n.id);
      if (!node?.task) continue;
      const data: TaskNodeData = {
        node,
        at: state.last_ts,
        selected: input.selected === n.id,
        collapsed: n.collapsed,
        // Subtasks it has at N (the structure knows the newest count).
        childCount: Math.min(n.childCount, node.children.length),
        hidden: n.collapsed ? (hidden.get(n.id) ?? 0) : 0,
        usage: input.usage.get(n.id) ?? "",
        label: taskNodeLabel(state, node.task, input.person, input.nameOf),
        onToggle: input.onToggle,
        onSelect: input.onSelect,
      };
      out =
        prev && prev.type === "task" && prev.position === position && sameTaskData(prev.data as TaskNodeData, data)
          ? prev
          : ({ id: n.id, type: "task", position, data, draggable: false, connectable: false, style: INTERACTIVE, width: SIZE.task.w, height: SIZE.task.h } as RunFlowNode);
    }
    nodes.push(out);
    nextNodes.set(n.id, out);
    shown.add(n.id);
  }
  cache.nodes = nextNodes;

  const siblings = new Map<string, number>();
  for (const e of s.edges) if (shown.has(e.source) && shown.has(e.target)) siblings.set(e.source, (siblings.get(e.source) ?? 0) + 1);
  const edges: RunFlowEdge[] = [];
  const nextEdges = new Map<string, RunFlowEdge>();
  for (const e of s.edges) {
    if (!shown.has(e.source) || !shown.has(e.target)) continue;
    const compact = (siblings.get(e.source) ?? 0) > 5;
    const target = s.byId.get(e.target)!;
    const tnode = target.kind === "task" ? getNode(state, e.target) : undefined;
    const kind: HandoffEdgeData["kind"] = target.kind === "more" ? "more" : e.source === RUN_NODE_ID ? "request" : (tnode?.edge ?? "delegation");
    const routing = tnode?.routing ?? null;
    const prev = cache.edges.get(e.id);
    const out: RunFlowEdge =
      prev && prev.data?.kind === kind && prev.data.routing === routing && prev.data.compact === compact
        ? prev
        : { id: e.id, source: e.source, target: e.target, type: "handoff", data: { kind, routing, compact }, selectable: false, focusable: false };
    edges.push(out);
    nextEdges.set(e.id, out);
  }
  cache.edges = nextEdges;
  return { nodes, edges };
}
