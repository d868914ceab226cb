/**
 * AutoGen's GraphFlow (the DiGraph group chat) as Clutch runs it: the graph read from a GraphFlow
 * component's `config.graph` with AutoGen's defaults and validation, and who starts next, decided
 * by replaying the finished turns through AutoGen's `GraphFlowManager` state machine. Pure, so the
 * server's runner and tests compute the same. Round robin, selector and swarm are in ./turns.ts.
 *
 * Source: microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14,
 * python/packages/autogen-agentchat/src/autogen_agentchat/teams/_group_chat/_graph/_digraph_group_chat.py
 * (DiGraphEdge, DiGraphNode, DiGraph.graph_validate, GraphFlowManager) and `_graph_builder.py`,
 * with the base manager's turn handling in `_group_chat/_base_group_chat_manager.py`.
 *
 * How AutoGen runs a graph, and so how `graphNext` replays it:
 * - The ready queue starts as the start nodes: `default_start_node` alone when set, else every node
 *   no edge leads to.
 * - The task is a message from `user`; like every message it goes through `update_message_thread`,
 *   which ignores a source that is not a node (so the task moves nothing, unless a node is named `user`).
 * - `select_speaker` drains the whole ready queue: those speakers start together (in parallel), in
 *   queue order, duplicates included (a node enqueued twice runs twice). Popping a speaker resets the
 *   activation groups that enqueued it: an "all" group's count back to its number of edges, an "any"
 *   group's `_enqueued_any` flag back to false. Groups that did not fire keep their partial counts.
 * - Each finished turn, in the order the turns finish, goes through `update_message_thread`: each
 *   outgoing edge of the speaker whose condition holds (none, or the condition's text is a substring
 *   of the message text, case-sensitive) counts down its target's activation group ("all": enqueue
 *   the target when the count reaches 0; it may go below 0 and then does not enqueue) or ("any")
 *   enqueues the target unless that group already did since the target was last popped.
 * - When the last active speaker finishes: an empty ready queue ends the chat with
 *   "Digraph execution is complete" (checked before any termination condition); else the next drain.
 */

/** The graph as AutoGen's DiGraph serializes it (config.graph of a GraphFlow component). */
export interface GraphEdge {
  target: string;
  /** Substring of the message text that lets the edge fire; null: always fires. */
  condition: string | null;
  /** Edges into the same target are counted per group; AutoGen defaults it to the target's name. */
  activation_group: string;
  activation_condition: "all" | "any";
}
/** `activation` is kept as AutoGen keeps it, but AutoGen's manager never reads it: only the edges' activation_condition counts. */
export interface GraphNode {
  name: string;
  edges: GraphEdge[];
  activation: "all" | "any";
}
export interface GraphSpec {
  nodes: Record<string, GraphNode>;
  /** null when absent or "" (AutoGen treats an empty name as no default). */
  default_start_node: string | null;
}

/** One finished turn, in the order the turns finished. */
export interface GraphTurn {
  speaker: string;
  text: string;
}

export type GraphNext = { kind: "speak"; speakers: { name: string; rule: string }[] } | { kind: "done"; reason: string };

/** AutoGen's `_DIGRAPH_STOP_MESSAGE`: the stop reason when the ready queue is empty and no one is speaking. */
export const DIGRAPH_STOP_MESSAGE = "Digraph execution is complete";

/** What the team adds to the graph's checks: AutoGen refuses a cyclic graph with neither a termination condition nor max_turns. */
export interface GraphTeamLimits {
  has_termination_condition: boolean;
  max_turns: number | null;
}

type Problem = { path: string; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
/** `$.a`, or `$["a b"]` when the key is not a plain name (as server/workspace/promptpack.ts writes them). */
const key = (at: string, k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${at}.${k}` : `${at}[${JSON.stringify(k)}]`);
const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(", ") || "none";

/**
 * Read a GraphFlow component's `config.graph` into a GraphSpec, or every problem with a JSONPath
 * relative to the graph (`$.nodes.a.edges[0].target`).
 *
 * As pydantic reads a DiGraph: `nodes` an object of nodes, each `{name, edges = [], activation = "all"}`;
 * each edge `{target, condition = null, activation_group = "" → the target, activation_condition = "all"}`.
 * A condition that is neither a string nor null is refused: AutoGen serializes a callable condition as
 * null (so a graph whose conditions were callables comes back with unconditional edges), and nothing else
 * is a condition it can read back.
 *
 * Then `DiGraph.graph_validate`, in AutoGen's words: "Graph has no nodes.", "Graph must have at least one
 * start node", "Graph must have at least one leaf node", "Node 'A' has a mix of conditional and
 * unconditional edges.", "Conflicting activation conditions for target …", "Cycle detected without exit
 * condition: A -> B -> A" (AutoGen raises the first; every one that applies is reported here), and, when
 * `team` is given, GraphFlowManager's "A termination condition is required for cyclic graphs without a
 * maximum turn limit.".
 *
 * Refused here though AutoGen's DiGraph takes them (each would fail or misbehave only once run): an edge
 * to a name that is no node (AutoGen: KeyError while validating), a node that is no participant (AutoGen:
 * "Speaker X not found in participant names." when selected), a `default_start_node` that is no node
 * (DiGraphBuilder.set_entry_point refuses it), a node whose `name` differs from its key.
 */
export function readGraph(json: unknown, participantNames: readonly string[], team?: GraphTeamLimits): { graph: GraphSpec } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const issue = (path: string, message: string) => problems.push({ path, message });
  if (!isObject(json)) return { problems: [{ path: "$", message: "is not an object (AutoGen's DiGraph: nodes and default_start_node)" }] };
  if (!has(json, "nodes")) return { problems: [{ path: "$.nodes", message: "is missing" }] };
  if (!isObject(json.nodes)) return { problems: [{ path: "$.nodes", message: "is not an object of nodes by name" }] };
  const rawNodes = json.nodes;
  const names = Object.keys(rawNodes);

  const nodes: [string, GraphNode][] = [];
  for (const name of names) {
    const at = key("$.nodes", name);
    const raw = rawNodes[name];
    if (!isObject(raw)) {
      issue(at, "is not an object (a node: name, edges, activation)");
      continue;
    }
    if (typeof raw.name !== "string") issue(`${at}.name`, raw.name === undefined ? "is missing" : "is not a string");
    else if (raw.name !== name) issue(`${at}.name`, `is "${raw.name}", not its key "${name}"`);
    const activation = raw.activation === undefined ? "all" : raw.activation;
    if (activation !== "all" && activation !== "any") issue(`${at}.activation`, `is ${JSON.stringify(activation)}, not "all" or "any"`);
    const rawEdges = raw.edges === undefined ? [] : raw.edges;
    if (!Array.isArray(rawEdges)) {
      issue(`${at}.edges`, "is not a list of edges");
      continue;
    }
    const edges: GraphEdge[] = [];
    rawEdges.forEach((e: unknown, i: number) => {
      const eat = `${at}.edges[${i}]`;
      if (!isObject(e)) return void issue(eat, "is not an object (an edge: target, condition, activation_group, activation_condition)");
      const target = e.target;
      if (typeof target !== "string") issue(`${eat}.target`, target === undefined ? "is missing" : "is not a string");
      else if (!has(rawNodes, target)) issue(`${eat}.target`, `names no node ("${target}"; nodes: ${quoted(names)})`);
      const condition = e.condition === undefined ? null : e.condition;
      if (condition !== null && typeof condition !== "string") {
        issue(`${eat}.condition`, "is neither a string nor null: AutoGen serializes only string conditions (a callable one is written as null), so this is none it can read back");
      }
      if (e.condition_function !== undefined && e.condition_function !== null) issue(`${eat}.condition_function`, "is a callable condition, which AutoGen does not serialize and Clutch cannot run");
      const group = e.activation_group === undefined ? "" : e.activation_group;
      if (typeof group !== "string") issue(`${eat}.activation_group`, "is not a string");
      const cond = e.activation_condition === undefined ? "all" : e.activation_condition;
      if (cond !== "all" && cond !== "any") issue(`${eat}.activation_condition`, `is ${JSON.stringify(cond)}, not "all" or "any"`);
      if (typeof target === "string") {
        edges.push({
          target,
          condition: typeof condition === "string" ? condition : null,
          activation_group: typeof group === "string" && group ? group : target,
          activation_condition: cond === "any" ? "any" : "all",
        });
      }
    });
    nodes.push([name, { name, edges, activation: activation === "any" ? "any" : "all" }]);
  }

  const rawStart = json.default_start_node === undefined ? null : json.default_start_node;
  if (rawStart !== null && typeof rawStart !== "string") issue("$.default_start_node", "is neither a string nor null");
  const defaultStart = typeof rawStart === "string" && rawStart ? rawStart : null;
  if (defaultStart !== null && !has(rawNodes, defaultStart)) issue("$.default_start_node", `names no node ("${defaultStart}"; nodes: ${quoted(names)})`);
  if (problems.length) return { problems };

  const graph: GraphSpec = { nodes: Object.fromEntries(nodes), default_start_node: defaultStart };

  // DiGraph.graph_validate, check by check.
  if (!names.length) return { problems: [{ path: "$.nodes", message: "Graph has no nodes." }] };
  if (!startNodes(graph).length) issue("$.nodes", "Graph must have at least one start node");
  if (!names.some((n) => !graph.nodes[n]!.edges.length)) issue("$.nodes", "Graph must have at least one leaf node");
  for (const n of names) {
    const edges = graph.nodes[n]!.edges;
    if (edges.some((e) => e.condition !== null) && edges.some((e) => e.condition === null)) issue(`${key("$.nodes", n)}.edges`, `Node '${n}' has a mix of conditional and unconditional edges.`);
  }
  // _validate_activation_conditions: the first edge into (target, group) sets its condition.
  const firstCondition = new Map<string, { cond: string; from: string }>();
  for (const n of names) {
    graph.nodes[n]!.edges.forEach((e, i) => {
      const k = JSON.stringify([e.target, e.activation_group]);
      const first = firstCondition.get(k);
      if (!first) firstCondition.set(k, { cond: e.activation_condition, from: n });
      else if (first.cond !== e.activation_condition) {
        issue(
          `${key("$.nodes", n)}.edges[${i}].activation_condition`,
          `Conflicting activation conditions for target '${e.target}' group '${e.activation_group}': '${first.cond}' (from node '${first.from}') and '${e.activation_condition}' (from node '${n}')`,
        );
      }
    });
  }
  const cycles = hasCyclesWithExit(graph);
  if (cycles.problem) issue(key("$.nodes", cycles.problem.at), cycles.problem.message);
  else if (cycles.has && team && !team.has_termination_condition && team.max_turns === null) {
    issue("$", "A termination condition is required for cyclic graphs without a maximum turn limit.");
  }

  // Every node must be a participant Clutch can start (AutoGen fails when it selects one that is not).
  for (const n of names) {
    if (!participantNames.includes(n)) issue(key("$.nodes", n), `names no participant of the team (participants: ${quoted(participantNames)}); AutoGen would fail on selecting it: "Speaker ${n} not found in participant names."`);
  }
  return problems.length ? { problems } : { graph };
}

/** DiGraph.get_start_nodes: the default start node alone, else the nodes no edge leads to (AutoGen: a set; here in the graph's order). */
function startNodes(graph: GraphSpec): string[] {
  if (graph.default_start_node) return [graph.default_start_node];
  const targets = new Set(Object.values(graph.nodes).flatMap((n) => n.edges.map((e) => e.target)));
  return Object.keys(graph.nodes).filter((n) => !targets.has(n));
}

/**
 * DiGraph.has_cycles_with_exit: depth-first from each unvisited node in order; on a back edge, the cycle
 * is the path from its target, and it needs at least one conditional edge among all the outgoing edges
 * of its nodes, else AutoGen raises on this first such cycle.
 */
function hasCyclesWithExit(graph: GraphSpec): { has: boolean; problem?: { at: string; message: string } } {
  const visited = new Set<string>();
  const stack = new Set<string>();
  const path: string[] = [];
  class NoExit {
    constructor(readonly at: string, readonly message: string) {}
  }
  const dfs = (name: string): boolean => {
    visited.add(name);
    stack.add(name);
    path.push(name);
    let cycle = false;
    for (const edge of graph.nodes[name]!.edges) {
      if (!visited.has(edge.target)) {
        if (dfs(edge.target)) cycle = true;
      } else if (stack.has(edge.target)) {
        const nodes = path.slice(path.indexOf(edge.target));
        if (nodes.every((n) => graph.nodes[n]!.edges.every((e) => e.condition === null))) {
          throw new NoExit(nodes[0]!, `Cycle detected without exit condition: ${[...nodes, nodes[0]!].join(" -> ")}`);
        }
        cycle = true;
      }
    }
    stack.delete(name);
    path.pop();
    return cycle;
  };
  let has = false;
  try {
    for (const name of Object.keys(graph.nodes)) if (!visited.has(name) && dfs(name)) has = true;
  } catch (e) {
    if (e instanceof NoExit) return { has: true, problem: { at: e.at, message: e.message } };
    throw e;
  }
  return { has };
}

/** Whether the graph has a cycle (each with an exit condition, as readGraph checked): AutoGen then needs a termination condition or max_turns. */
export function graphHasCycles(graph: GraphSpec): boolean {
  return hasCyclesWithExit(graph).has;
}

/** A ready-queue entry: the node and why it was enqueued, in words. */
interface Ready {
  name: string;
  rule: string;
}

/** GraphFlowManager's mutable state, keyed as AutoGen keys it (target → activation group → …). */
class Manager {
  readonly activation = new Map<string, Map<string, "all" | "any">>();
  readonly origin = new Map<string, Map<string, number>>();
  readonly remaining = new Map<string, Map<string, number>>();
  readonly enqueuedAny = new Map<string, Map<string, boolean>>();
  readonly triggered = new Map<string, Set<string>>();
  /** Which edges counted down an "all" group since its last reset, for the rule's words. */
  readonly counted = new Map<string, Map<string, string[]>>();
  ready: Ready[];

  constructor(readonly graph: GraphSpec) {
    // _build_lookup_tables and get_remaining_map: over every edge, in node then edge order.
    for (const node of Object.values(graph.nodes)) {
      for (const e of node.edges) {
        const act = at(this.activation, e.target);
        if (!act.has(e.activation_group)) act.set(e.activation_group, e.activation_condition);
        at(this.enqueuedAny, e.target).set(e.activation_group, false);
        const o = at(this.origin, e.target);
        o.set(e.activation_group, (o.get(e.activation_group) ?? 0) + 1);
      }
    }
    for (const [t, groups] of this.origin) this.remaining.set(t, new Map(groups));
    const byDefault = !!graph.default_start_node;
    this.ready = startNodes(graph).map((name) => ({
      name,
      rule: byDefault ? `graph: ${name} is the graph's default start node` : `graph: ${name} is a start node (no edge leads to it)`,
    }));
  }

  /** update_message_thread for one message: propagate along the speaker's edges whose condition holds. */
  update(source: string, text: string): void {
    if (!has(this.graph.nodes, source)) return; // sources outside the graph (the task's `user`) are ignored
    for (const edge of this.graph.nodes[source]!.edges) {
      if (edge.condition !== null && !text.includes(edge.condition)) continue;
      const { target, activation_group: group } = edge;
      const why = edge.condition !== null ? `${source} (condition '${edge.condition}' met)` : source;
      const size = this.origin.get(target)!.get(group)!;
      const label = (how: string) => (size > 1 ? `: ${how} of activation group '${group}'` : group !== target ? ` in activation group '${group}'` : "");
      if (this.activation.get(target)!.get(group) === "all") {
        const left = this.remaining.get(target)!.get(group)! - 1;
        this.remaining.get(target)!.set(group, left);
        const counted = at(this.counted, target);
        counted.set(group, [...(counted.get(group) ?? []), why]);
        if (left === 0) {
          this.ready.push({ name: target, rule: `graph: ${target} follows ${words(counted.get(group)!)}${label(`all ${size} edges`)}` });
          at(this.triggered, target, () => new Set<string>()).add(group);
        }
      } else if (!this.enqueuedAny.get(target)!.get(group)) {
        this.ready.push({ name: target, rule: `graph: ${target} follows ${why}${label("any edge")}` });
        this.enqueuedAny.get(target)!.set(group, true);
        at(this.triggered, target, () => new Set<string>()).add(group);
      }
    }
  }

  /** select_speaker: drain the ready queue, resetting the groups that enqueued each speaker as it is popped. */
  select(): Ready[] {
    const out = this.ready;
    this.ready = [];
    for (const { name } of out) {
      const groups = this.triggered.get(name);
      if (!groups) continue;
      for (const g of groups) {
        if (this.activation.get(name)!.get(g) === "any") this.enqueuedAny.get(name)!.set(g, false);
        else {
          this.remaining.get(name)!.set(g, this.origin.get(name)!.get(g)!);
          this.counted.get(name)?.delete(g);
        }
      }
      groups.clear();
    }
    return out;
  }
}

function at<K, V>(m: Map<K, V>, k: K, make: () => V = () => new Map() as V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
}

const words = (xs: readonly string[]) => (xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)!}`);

/**
 * What happens next, given every turn finished so far (when no turn is under way), replaying
 * GraphFlowManager from the start: the task from `user` through `update_message_thread`, the
 * completion check, then for each batch `select_speaker` and the batch's turns in the order they
 * finished.
 *
 * - `speak`: the speakers that start now, together, in AutoGen's order (the ready queue's: start
 *   nodes in the graph's order, then in the order the finished turns enqueued them; a name may
 *   appear twice, as AutoGen then runs it twice), each with its rule in words, e.g.
 *   "graph: writer follows editor (condition 'APPROVE' met)",
 *   "graph: O follows B and C: all 2 edges of activation group 'O'",
 *   "graph: B follows B (condition 'loop' met) in activation group 'B_loop'".
 *   When only part of the last batch has finished: the rest of that batch, each still owed a turn
 *   (AutoGen waits for them; nothing new starts before they finish).
 * - `done`: the ready queue is empty and no one is speaking: reason "Digraph execution is complete".
 *
 * Throws an Error naming a speaker in `turns` the state machine would not have run at that point.
 */
export function graphNext(graph: GraphSpec, task: string, turns: readonly GraphTurn[]): GraphNext {
  const m = new Manager(graph);
  // handle_start: the task is a TextMessage from `user`, then the completion check.
  m.update("user", task);
  let i = 0;
  for (;;) {
    if (!m.ready.length) {
      if (i < turns.length) throw new Error(`graph: ${turns[i]!.speaker} took a turn after the graph's execution was complete`);
      return { kind: "done", reason: DIGRAPH_STOP_MESSAGE };
    }
    const active = m.select();
    while (active.length) {
      if (i >= turns.length) return { kind: "speak", speakers: active.map(({ name, rule }) => ({ name, rule })) };
      const turn = turns[i++]!;
      const k = active.findIndex((a) => a.name === turn.speaker);
      if (k < 0) throw new Error(`graph: ${turn.speaker} took a turn the graph did not start (speaking: ${active.map((a) => a.name).join(", ")})`);
      active.splice(k, 1);
      m.update(turn.speaker, turn.text);
    }
  }
}
