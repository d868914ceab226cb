/**
 * AutoGen's GraphFlow as lib/group-chat/graph-flow.ts runs it, turn by turn. Fixtures are the graphs
 * and runs of microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14,
 * python/packages/autogen-agentchat/tests/test_group_chat_graph.py (each named at its test), written as
 * AutoGen's DiGraph serializes them; the manager is teams/_group_chat/_graph/_digraph_group_chat.py at
 * the same commit. Where AutoGen's test asserts only a set (parallel speakers finish in any order), both
 * orders are replayed; fixtures marked "from the code" follow GraphFlowManager where no AutoGen test runs it.
 */
import { describe, expect, it } from "vitest";
import { DIGRAPH_STOP_MESSAGE, graphHasCycles, graphNext, readGraph, type GraphNext, type GraphSpec, type GraphTurn } from "./graph-flow";

const DONE = { kind: "done", reason: "Digraph execution is complete" } as const;

/** A graph readGraph accepts; participants default to its nodes. */
function graph(json: unknown, participants?: string[]): GraphSpec {
  const names = participants ?? Object.keys((json as { nodes: object }).nodes);
  const r = readGraph(json, names);
  if ("problems" in r) throw new Error(JSON.stringify(r.problems));
  return r.graph;
}
const problems = (json: unknown, participants: string[], team?: Parameters<typeof readGraph>[2]) => {
  const r = readGraph(json, participants, team);
  return "problems" in r ? r.problems : [];
};
/** Who starts next: names, or "done". */
const next = (g: GraphSpec, task: string, turns: GraphTurn[]) => {
  const n = graphNext(g, task, turns);
  return n.kind === "speak" ? n.speakers.map((s) => s.name) : n.kind;
};
const rules = (n: GraphNext) => (n.kind === "speak" ? n.speakers.map((s) => s.rule) : [n.reason]);
const t = (speaker: string, text: string): GraphTurn => ({ speaker, text });
/** Node shorthand: edges as [target, condition?, group?, activation?]. */
const node = (name: string, ...edges: [string, (string | null)?, string?, ("all" | "any")?][]) => ({
  name,
  edges: edges.map(([target, condition = null, activation_group, activation_condition]) => ({ target, condition, ...(activation_group ? { activation_group } : {}), ...(activation_condition ? { activation_condition } : {}) })),
});
const nodes = (...ns: ({ name: string } & Record<string, unknown>)[]) => Object.fromEntries(ns.map((n) => [n.name, n]));

describe("graphNext: AutoGen's runs", () => {
  // test_digraph_group_chat_sequential_execution @ 027ecf0a: A → B → C, sources user, A, B, C (echo agents).
  it("runs a chain one node at a time and ends with AutoGen's stop message", () => {
    const g = graph({ nodes: nodes(node("A", ["B"]), node("B", ["C"]), node("C")) });
    const task = "Hello from User";
    const a = t("A", task), b = t("B", task), c = t("C", task);
    const first = graphNext(g, task, []);
    expect(first).toEqual({ kind: "speak", speakers: [{ name: "A", rule: "graph: A is a start node (no edge leads to it)" }] });
    expect(graphNext(g, task, [a])).toEqual({ kind: "speak", speakers: [{ name: "B", rule: "graph: B follows A" }] });
    expect(next(g, task, [a, b])).toEqual(["C"]);
    expect(graphNext(g, task, [a, b, c])).toEqual(DONE);
    expect(DIGRAPH_STOP_MESSAGE).toBe("Digraph execution is complete");
  });

  it("refuses a turn the graph did not start, and a turn after the graph completed", () => {
    const g = graph({ nodes: nodes(node("A", ["B"]), node("B", ["C"]), node("C")) });
    expect(() => graphNext(g, "go", [t("B", "x")])).toThrow(/\bB\b.*did not start.*speaking: A/);
    expect(() => graphNext(g, "go", [t("A", "x"), t("B", "x"), t("C", "x"), t("A", "x")])).toThrow(/\bA\b.*after the graph's execution was complete/);
    expect(() => graphNext(g, "go", [t("mallory", "x")])).toThrow(/mallory/);
  });

  // test_digraph_group_chat_parallel_fanout @ 027ecf0a: A → (B, C); sources user, A, then {B, C}.
  it("fans out: both children start together, in edge order; the graph ends when both finished", () => {
    const g = graph({ nodes: nodes(node("A", ["B"], ["C"]), node("B"), node("C")) });
    expect(next(g, "Start", [])).toEqual(["A"]);
    expect(rules(graphNext(g, "Start", [t("A", "Start")]))).toEqual(["graph: B follows A", "graph: C follows A"]);
    // Only B has finished: C is still owed its turn.
    expect(next(g, "Start", [t("A", "Start"), t("B", "Start")])).toEqual(["C"]);
    expect(graphNext(g, "Start", [t("A", "Start"), t("B", "Start"), t("C", "Start")])).toEqual(DONE);
    expect(graphNext(g, "Start", [t("A", "Start"), t("C", "Start"), t("B", "Start")])).toEqual(DONE);
  });

  // test_digraph_group_chat_parallel_join_all @ 027ecf0a: A → C ← B; sources user, {A, B}, C.
  it("joins with 'all': C starts once both A and B finished", () => {
    const g = graph({ nodes: nodes(node("A", ["C"]), node("B", ["C"]), { ...node("C"), activation: "all" }) });
    expect(rules(graphNext(g, "Go", []))).toEqual(["graph: A is a start node (no edge leads to it)", "graph: B is a start node (no edge leads to it)"]);
    expect(next(g, "Go", [t("A", "Go")])).toEqual(["B"]);
    expect(rules(graphNext(g, "Go", [t("A", "Go"), t("B", "Go")]))).toEqual(["graph: C follows A and B: all 2 edges of activation group 'C'"]);
    expect(rules(graphNext(g, "Go", [t("B", "Go"), t("A", "Go")]))).toEqual(["graph: C follows B and A: all 2 edges of activation group 'C'"]);
    expect(graphNext(g, "Go", [t("B", "Go"), t("A", "Go"), t("C", "Go")])).toEqual(DONE);
  });

  // test_digraph_group_chat_parallel_join_any @ 027ecf0a: the node says activation "any", but AutoGen's
  // manager reads only the edges' activation_condition ("all" by default): C still waits for A and B ("C must be last").
  it("ignores a node's own activation: a join still waits for every edge of its group", () => {
    const g = graph({ nodes: nodes(node("A", ["C"]), node("B", ["C"]), { ...node("C"), activation: "any" }) });
    expect(g.nodes.C!.activation).toBe("any");
    expect(next(g, "Start", [t("A", "Start"), t("B", "Start")])).toEqual(["C"]);
    expect(next(g, "Start", [t("A", "Start"), t("B", "Start"), t("C", "Start")])).toBe("done");
  });

  // test_digraph_group_chat_parallel_join_any_1 @ 027ecf0a: B → D and C → D in activation group "any"
  // (a group's name, its condition still "all"): D runs once, after both.
  it("counts a named activation group like any other: D once, after B and C", () => {
    const g = graph({ nodes: nodes(node("A", ["B"], ["C"]), node("B", ["D", null, "any"]), node("C", ["D", null, "any"]), node("D")) });
    const task = "Run parallel join";
    const run = [t("A", task), t("B", task), t("C", task)];
    expect(next(g, task, run.slice(0, 1))).toEqual(["B", "C"]);
    expect(rules(graphNext(g, task, run))).toEqual(["graph: D follows B and C: all 2 edges of activation group 'any'"]);
    expect(graphNext(g, task, [...run, t("D", task)])).toEqual(DONE);
  });

  // test_digraph_group_chat_chained_parallel_join_any @ 027ecf0a: A → (B, C) → D → E; D and E once each.
  it("chains a join: D once after B and C, then E", () => {
    const g = graph({ nodes: nodes(node("A", ["B"], ["C"]), node("B", ["D"]), node("C", ["D"]), { ...node("D", ["E"]), activation: "any" }, { ...node("E"), activation: "any" }) });
    const task = "Run chained parallel join-any";
    const run = [t("A", task), t("C", task), t("B", task), t("D", task)];
    expect(next(g, task, run.slice(0, 3))).toEqual(["D"]);
    expect(next(g, task, run)).toEqual(["E"]);
    expect(graphNext(g, task, [...run, t("E", task)])).toEqual(DONE);
  });

  // test_digraph_group_chat_multiple_start_nodes @ 027ecf0a: two nodes, no edges; sources user, {A, B}.
  // test_digraph_group_chat_disconnected_graph @ 027ecf0a: A → B, C → D; sources user, {A, C}, {B, D}.
  it("starts every node no edge leads to, together; the next batch follows the order the turns finished", () => {
    const two = graph({ nodes: nodes(node("A"), node("B")) });
    expect(next(two, "Start", [])).toEqual(["A", "B"]);
    expect(graphNext(two, "Start", [t("B", "Start"), t("A", "Start")])).toEqual(DONE);

    const g = graph({ nodes: nodes(node("A", ["B"]), node("B"), node("C", ["D"]), node("D")) });
    expect(next(g, "Go", [])).toEqual(["A", "C"]);
    expect(next(g, "Go", [t("A", "Go"), t("C", "Go")])).toEqual(["B", "D"]);
    expect(next(g, "Go", [t("C", "Go"), t("A", "Go")])).toEqual(["D", "B"]);
    expect(next(g, "Go", [t("C", "Go"), t("A", "Go"), t("D", "Go"), t("B", "Go")])).toBe("done");
  });

  // test_digraph_group_chat_conditional_branch @ 027ecf0a: A → B if "yes", A → C if "no"; task
  // "Trigger yes" → messages[2] from B, "Trigger no" → from C (A echoes the task).
  // test_digraph_group_chat_multiple_conditional @ 027ecf0a: apple/banana/cherry; task "banana" → C.
  it("follows the edges whose condition text is in the message", () => {
    const g = graph({ nodes: nodes(node("A", ["B", "yes"], ["C", "no"]), { ...node("B"), activation: "any" }, { ...node("C"), activation: "any" }) });
    expect(graphNext(g, "Trigger yes", [t("A", "Trigger yes")])).toEqual({ kind: "speak", speakers: [{ name: "B", rule: "graph: B follows A (condition 'yes' met)" }] });
    expect(next(g, "Trigger no", [t("A", "Trigger no")])).toEqual(["C"]);
    // Substring, case-sensitive; both or neither may hold.
    expect(next(g, "x", [t("A", "yes and no")])).toEqual(["B", "C"]);
    expect(graphNext(g, "x", [t("A", "Yes. No.")])).toEqual(DONE);
    expect(next(g, "x", [t("A", "eyes")])).toEqual(["B"]);

    const fruit = graph({ nodes: nodes(node("A", ["B", "apple"], ["C", "banana"], ["D", "cherry"]), node("B"), node("C"), node("D")) });
    expect(next(fruit, "banana", [t("A", "banana")])).toEqual(["C"]);
    expect(next(fruit, "cherry", [t("A", "cherry")])).toEqual(["D"]);
    expect(graphNext(fruit, "banana", [t("A", "banana"), t("C", "banana")])).toEqual(DONE);
  });

  // test_digraph_group_chat_loop_with_exit_condition @ 027ecf0a: A → B, B → C if "exit", B → A if
  // "loop", default_start_node A; B answers loop, loop, exit; sources user, A, B, A, B, A, B, C.
  it("loops back while the reviewer says loop, exits on exit", () => {
    const g = graph({ nodes: nodes(node("A", ["B"]), node("B", ["C", "exit"], ["A", "loop"]), node("C")), default_start_node: "A" });
    const run = [t("A", "Start"), t("B", "loop"), t("A", "loop"), t("B", "loop"), t("A", "loop"), t("B", "exit"), t("C", "Start")];
    expect(rules(graphNext(g, "Start", []))).toEqual(["graph: A is the graph's default start node"]);
    const expected = [["B"], ["A"], ["B"], ["A"], ["B"], ["C"]];
    expected.forEach((names, k) => expect(next(g, "Start", run.slice(0, k + 1))).toEqual(names));
    expect(rules(graphNext(g, "Start", run.slice(0, 2)))).toEqual(["graph: A follows B (condition 'loop' met)"]);
    expect(rules(graphNext(g, "Start", run.slice(0, 6)))).toEqual(["graph: C follows B (condition 'exit' met)"]);
    expect(graphNext(g, "Start", run)).toEqual(DONE);
  });

  // The reviewer loop of GraphFlow's docstring @ 027ecf0a, with string conditions: writer → editor,
  // editor → publisher if "APPROVE", editor → writer if "REVISE".
  it("words a conditional step as the brief's example", () => {
    const g = graph({ nodes: nodes(node("writer", ["editor"]), node("editor", ["publisher", "APPROVE"], ["writer", "REVISE"]), node("publisher")), default_start_node: "writer" });
    expect(rules(graphNext(g, "poem", [t("writer", "draft"), t("editor", "REVISE: shorter")]))).toEqual(["graph: writer follows editor (condition 'REVISE' met)"]);
    expect(rules(graphNext(g, "poem", [t("writer", "draft"), t("editor", "APPROVE")]))).toEqual(["graph: publisher follows editor (condition 'APPROVE' met)"]);
    // Neither word: no edge fires, nothing is ready, the graph is complete.
    expect(graphNext(g, "poem", [t("writer", "draft"), t("editor", "hmm")])).toEqual(DONE);
  });

  // test_digraph_group_chat_loop_with_self_cycle @ 027ecf0a: B → B if "loop" in activation group
  // "B_loop"; B answers loop, loop, exit; sources user, A, B, B, B, C.
  it("runs a self-loop in its own activation group", () => {
    const g = graph({ nodes: nodes(node("A", ["B"]), node("B", ["C", "exit"], ["B", "loop", "B_loop"]), node("C")), default_start_node: "A" });
    const run = [t("A", "Start"), t("B", "loop"), t("B", "loop"), t("B", "exit"), t("C", "Start")];
    expect([1, 2, 3, 4].map((k) => next(g, "Start", run.slice(0, k)))).toEqual([["B"], ["B"], ["B"], ["C"]]);
    expect(rules(graphNext(g, "Start", run.slice(0, 2)))).toEqual(["graph: B follows B (condition 'loop' met) in activation group 'B_loop'"]);
    expect(graphNext(g, "Start", run)).toEqual(DONE);
  });

  // test_digraph_group_chat_loop_with_two_cycles @ 027ecf0a: A → (B, C) → O (group "O", all 2);
  // O → X if "to_x", O → Y if "to_y", O → E if "exit"; X → O and Y → O if "to_o" in groups
  // "x_o_loop" / "y_o_loop"; replies to_x, to_o, to_y, to_o, exit; sources user, A, B, C, O, X, O, Y, O, E.
  it("re-enters O through separate activation groups, resetting each as O is picked", () => {
    const g = graph({
      nodes: nodes(
        node("A", ["B"], ["C"]),
        node("B", ["O"]),
        node("C", ["O"]),
        node("O", ["X", "to_x"], ["Y", "to_y"], ["E", "exit"]),
        node("X", ["O", "to_o", "x_o_loop"]),
        node("Y", ["O", "to_o", "y_o_loop"]),
        node("E"),
      ),
      default_start_node: "A",
    }, ["A", "O", "B", "C", "X", "Y", "E"]);
    const run = [t("A", "Start"), t("B", "Start"), t("C", "Start"), t("O", "to_x"), t("X", "to_o"), t("O", "to_y"), t("Y", "to_o"), t("O", "exit"), t("E", "Start")];
    expect(next(g, "Start", run.slice(0, 1))).toEqual(["B", "C"]);
    expect(next(g, "Start", run.slice(0, 2))).toEqual(["C"]);
    const after = [3, 4, 5, 6, 7, 8].map((k) => next(g, "Start", run.slice(0, k)));
    expect(after).toEqual([["O"], ["X"], ["O"], ["Y"], ["O"], ["E"]]);
    expect(rules(graphNext(g, "Start", run.slice(0, 3)))).toEqual(["graph: O follows B and C: all 2 edges of activation group 'O'"]);
    expect(rules(graphNext(g, "Start", run.slice(0, 5)))).toEqual(["graph: O follows X (condition 'to_o' met) in activation group 'x_o_loop'"]);
    expect(graphNext(g, "Start", run)).toEqual(DONE);
  });

  // DiGraphBuilder's docstring @ 027ecf0a, "Loop with multiple paths to the same node: A → B → C → B"
  // (C → B in activation group "loop_back"), given the exit DiGraph.graph_validate requires: C → B if
  // "again", C → E if "done".
  it("re-activates B through its loop_back group; in B's own group, B would wait for C and never run", () => {
    const looped = (group?: string) => graph({ nodes: nodes(node("A", ["B"]), node("B", ["C"]), node("C", ["B", "again", group], ["E", "done"]), node("E")) });
    const g = looped("loop_back");
    const run = [t("A", "go"), t("B", "b"), t("C", "again"), t("B", "b"), t("C", "done"), t("E", "e")];
    expect([1, 2, 3, 4, 5].map((k) => next(g, "go", run.slice(0, k)))).toEqual([["B"], ["C"], ["B"], ["C"], ["E"]]);
    expect(rules(graphNext(g, "go", run.slice(0, 3)))).toEqual(["graph: B follows C (condition 'again' met) in activation group 'loop_back'"]);
    expect(graphNext(g, "go", run)).toEqual(DONE);
    // Default group: A → B and C → B are both group "B" with "all": after A, one edge of two is met.
    expect(graphNext(looped(), "go", [t("A", "go")])).toEqual(DONE);
  });

  // From the code (GraphFlowManager.update_message_thread / _reset_triggered_activation_groups @ 027ecf0a):
  // A and C start; A → B → D and C → D, the edges into D in one group "j".
  it("'any' fires on the first edge and again after D was picked; 'all' waits across batches", () => {
    const join = (activation: "all" | "any") => graph({ nodes: nodes(node("A", ["B"]), node("B", ["D", null, "j", activation]), node("C", ["D", null, "j", activation]), node("D")) });
    const any = join("any");
    expect(next(any, "t", [])).toEqual(["A", "C"]);
    const first = graphNext(any, "t", [t("A", "a"), t("C", "c")]);
    expect(first).toEqual({ kind: "speak", speakers: [{ name: "B", rule: "graph: B follows A" }, { name: "D", rule: "graph: D follows C: any edge of activation group 'j'" }] });
    expect(next(any, "t", [t("C", "c"), t("A", "a")])).toEqual(["D", "B"]);
    // D's "any" flag was reset when D was picked, so B's turn starts D again.
    expect(rules(graphNext(any, "t", [t("A", "a"), t("C", "c"), t("D", "d"), t("B", "b")]))).toEqual(["graph: D follows B: any edge of activation group 'j'"]);
    expect(graphNext(any, "t", [t("A", "a"), t("C", "c"), t("D", "d"), t("B", "b"), t("D", "d")])).toEqual(DONE);

    const all = join("all");
    expect(next(all, "t", [t("A", "a"), t("C", "c")])).toEqual(["B"]);
    expect(rules(graphNext(all, "t", [t("A", "a"), t("C", "c"), t("B", "b")]))).toEqual(["graph: D follows C and B: all 2 edges of activation group 'j'"]);
    expect(graphNext(all, "t", [t("A", "a"), t("C", "c"), t("B", "b"), t("D", "d")])).toEqual(DONE);
  });

  // From the code @ 027ecf0a: an "any" group enqueues once per pick, however many of its edges fire.
  it("'any' enqueues once for parents finishing in the same batch", () => {
    // DiGraphBuilder's docstring example A → B → (C1, C2) → B (group loop_back_group, "any") → E, with B's
    // edges all conditional so that graph_validate takes it.
    const g = graph({
      nodes: nodes(
        node("A", ["B"]),
        node("B", ["C1", "go"], ["C2", "go"], ["E", "exit"]),
        node("C1", ["B", null, "loop_back_group", "any"]),
        node("C2", ["B", null, "loop_back_group", "any"]),
        node("E"),
      ),
    });
    const run = [t("A", "a"), t("B", "go"), t("C2", "c2"), t("C1", "c1")];
    expect(next(g, "t", run.slice(0, 2))).toEqual(["C1", "C2"]);
    expect(rules(graphNext(g, "t", run))).toEqual(["graph: B follows C2: any edge of activation group 'loop_back_group'"]);
    expect(next(g, "t", [...run, t("B", "exit")])).toEqual(["E"]);
  });

  // From the code @ 027ecf0a: two activation groups enqueue the same node twice; select_speaker returns
  // it twice and AutoGen asks it for two turns.
  it("starts a node twice when two of its groups fire before it is picked", () => {
    const g = graph({ nodes: nodes(node("A", ["B"], ["C"]), node("B", ["D", null, "fromB"]), node("C", ["D", null, "fromC"]), node("D")) });
    const run = [t("A", "a"), t("B", "b"), t("C", "c")];
    expect(rules(graphNext(g, "t", run))).toEqual(["graph: D follows B in activation group 'fromB'", "graph: D follows C in activation group 'fromC'"]);
    expect(rules(graphNext(g, "t", [...run, t("D", "d")]))).toEqual(["graph: D follows C in activation group 'fromC'"]);
    expect(graphNext(g, "t", [...run, t("D", "d"), t("D", "d")])).toEqual(DONE);
  });

  // From the code @ 027ecf0a: an "all" count is reset only when its group fires, so an edge met in an
  // earlier round of a loop still counts. S → (A, B); A → J if "x", A → S if "retry"; B → J if "x"; J → E.
  it("keeps a join's partial count across rounds of a loop", () => {
    const g = graph({ nodes: nodes(node("S", ["A"], ["B"]), node("A", ["J", "x"], ["S", "retry"]), node("B", ["J", "x"]), node("J", ["E"]), node("E")), default_start_node: "S" });
    const round1 = [t("S", "s"), t("A", "retry"), t("B", "x")];
    expect(next(g, "t", round1)).toEqual(["S"]);
    const round2 = [...round1, t("S", "s"), t("A", "x"), t("B", "no")];
    expect(rules(graphNext(g, "t", round2))).toEqual(["graph: J follows B (condition 'x' met) and A (condition 'x' met): all 2 edges of activation group 'J'"]);
    expect(next(g, "t", [...round2, t("J", "j")])).toEqual(["E"]);
    // B meeting its edge again once J is ready takes the count below 0: J is not enqueued twice.
    expect(next(g, "t", [...round1, t("S", "s"), t("A", "x"), t("B", "x")])).toEqual(["J"]);
    expect(graphNext(g, "t", [...round2, t("J", "j"), t("E", "e")])).toEqual(DONE);
  });

  // From the code @ 027ecf0a (_reset_triggered_activation_groups): picking a node resets only the groups
  // that enqueued it. P → T and Q → T in group g1; R → T in group g2, R → Q.
  it("keeps the partial count of a group that did not fire when its node is picked through another", () => {
    const g = graph({ nodes: nodes(node("P", ["T", null, "g1"]), node("R", ["T", null, "g2"], ["Q"]), node("Q", ["T", null, "g1"]), node("T")) });
    expect(next(g, "t", [])).toEqual(["P", "R"]);
    const run = [t("P", "p"), t("R", "r")];
    expect(rules(graphNext(g, "t", run))).toEqual(["graph: T follows R in activation group 'g2'", "graph: Q follows R"]);
    const then = [...run, t("T", "t"), t("Q", "q")];
    expect(rules(graphNext(g, "t", then))).toEqual(["graph: T follows P and Q: all 2 edges of activation group 'g1'"]);
    expect(graphNext(g, "t", [...then, t("T", "t")])).toEqual(DONE);
  });

  // From the code @ 027ecf0a (GraphFlowManager.update_message_thread and BaseGroupChat's task message):
  // the task is a TextMessage from "user", so a node named user fires its edges on the task.
  it("lets the task fire the edges of a node named user", () => {
    const g = graph({ nodes: nodes(node("user", ["A"]), node("A")) });
    expect(rules(graphNext(g, "hi", []))).toEqual(["graph: user is a start node (no edge leads to it)", "graph: A follows user"]);
    expect(next(g, "hi", [t("user", "u"), t("A", "a")])).toEqual(["A"]);
    expect(graphNext(g, "hi", [t("user", "u"), t("A", "a"), t("A", "a")])).toEqual(DONE);
  });

  // test_get_start_nodes / DiGraph.get_start_nodes @ 027ecf0a: default_start_node replaces the computed start nodes.
  it("starts only the default start node when there is one", () => {
    const g = graph({ nodes: nodes(node("A"), node("B")), default_start_node: "B" });
    expect(next(g, "t", [])).toEqual(["B"]);
    expect(graphNext(g, "t", [t("B", "b")])).toEqual(DONE);
  });
});

describe("readGraph", () => {
  it("applies AutoGen's defaults", () => {
    expect(readGraph({ nodes: { A: { name: "A", edges: [{ target: "B" }] }, B: { name: "B" } } }, ["A", "B"])).toEqual({
      graph: {
        nodes: {
          A: { name: "A", edges: [{ target: "B", condition: null, activation_group: "B", activation_condition: "all" }], activation: "all" },
          B: { name: "B", edges: [], activation: "all" },
        },
        default_start_node: null,
      },
    });
    // An empty activation_group is the target (DiGraphEdge._validate_condition); "" start node is none.
    const r = readGraph({ nodes: { A: { name: "A", edges: [{ target: "B", activation_group: "", condition: "" }] }, B: { name: "B" } }, default_start_node: "" }, ["A", "B"]);
    expect(r).toEqual({ graph: { nodes: { A: { name: "A", edges: [{ target: "B", condition: "", activation_group: "B", activation_condition: "all" }], activation: "all" }, B: { name: "B", edges: [], activation: "all" } }, default_start_node: null } });
  });

  // test_graph_flow_serialize_deserialize @ 027ecf0a: DiGraphBuilder A → B, entry point A, as dump_component writes config.graph.
  it("reads AutoGen's own dump as it is", () => {
    const dumped = {
      nodes: {
        A: { name: "A", edges: [{ target: "B", condition: null, activation_group: "B", activation_condition: "all" }], activation: "all" },
        B: { name: "B", edges: [], activation: "all" },
      },
      default_start_node: "A",
    };
    expect(readGraph(dumped, ["A", "B"])).toEqual({ graph: dumped });
    expect(next(graph(dumped), "Start", [t("A", "0")])).toEqual(["B"]);
  });

  it("refuses what pydantic would not read, with JSONPaths", () => {
    expect(problems([], [])).toEqual([{ path: "$", message: "is not an object (AutoGen's DiGraph: nodes and default_start_node)" }]);
    expect(problems({}, [])).toEqual([{ path: "$.nodes", message: "is missing" }]);
    expect(
      problems(
        {
          nodes: {
            a: { name: "a", edges: [{ target: "b", condition: 3 }, { target: "zed" }, { condition: "x" }, { target: "b", activation_condition: "some", activation_group: 7 }], activation: "most" },
            b: { name: "bee", edges: null },
            "my agent": "x",
          },
          default_start_node: "nobody",
        },
        ["a", "b"],
      ),
    ).toEqual([
      { path: "$.nodes.a.activation", message: 'is "most", not "all" or "any"' },
      { path: "$.nodes.a.edges[0].condition", message: "is neither a string nor null: AutoGen serializes only string conditions (a callable one is written as null), so this is none it can read back" },
      { path: "$.nodes.a.edges[1].target", message: 'names no node ("zed"; nodes: "a", "b", "my agent")' },
      { path: "$.nodes.a.edges[2].target", message: "is missing" },
      { path: "$.nodes.a.edges[3].activation_group", message: "is not a string" },
      { path: "$.nodes.a.edges[3].activation_condition", message: 'is "some", not "all" or "any"' },
      { path: "$.nodes.b.name", message: 'is "bee", not its key "b"' },
      { path: "$.nodes.b.edges", message: "is not a list of edges" },
      { path: '$.nodes["my agent"]', message: "is not an object (a node: name, edges, activation)" },
      { path: "$.default_start_node", message: 'names no node ("nobody"; nodes: "a", "b", "my agent")' },
    ]);
  });

  it("refuses a graph with no nodes", () => {
    expect(problems({ nodes: {} }, [])).toEqual([{ path: "$.nodes", message: "Graph has no nodes." }]);
  });

  // test_validate_graph_mixed_conditions @ 027ecf0a.
  it("refuses a node with conditional and unconditional edges", () => {
    expect(problems({ nodes: nodes(node("A", ["B", "cond"], ["C"]), node("B"), node("C")) }, ["A", "B", "C"])).toEqual([
      { path: "$.nodes.A.edges", message: "Node 'A' has a mix of conditional and unconditional edges." },
    ]);
    // DiGraphBuilder's docstring example A → B → (C1, C2) → B → E(exit) has B → E conditional and B → C1, C2 not.
    const doc = nodes(node("A", ["B"]), node("B", ["C1"], ["C2"], ["E", "exit"]), node("C1", ["B", null, "loop_back_group", "any"]), node("C2", ["B", null, "loop_back_group", "any"]), node("E"));
    expect(problems({ nodes: doc }, Object.keys(doc))).toEqual([{ path: "$.nodes.B.edges", message: "Node 'B' has a mix of conditional and unconditional edges." }]);
  });

  // test_different_activation_groups_detection @ 027ecf0a.
  it("refuses edges into one group with different activation conditions", () => {
    expect(problems({ nodes: nodes(node("A", ["B"], ["C"]), node("B", ["D", null, undefined, "all"]), node("C", ["D", null, undefined, "any"]), node("D")) }, ["A", "B", "C", "D"])).toEqual([
      { path: "$.nodes.C.edges[0].activation_condition", message: "Conflicting activation conditions for target 'D' group 'D': 'all' (from node 'B') and 'any' (from node 'C')" },
    ]);
  });

  // test_cycle_detection_without_exit_condition, test_validate_graph_missing_start_node,
  // test_validate_graph_missing_leaf_node, test_invalid_digraph_manager_cycle_without_termination @ 027ecf0a.
  it("refuses cycles without an exit, graphs without a start or a leaf", () => {
    const ps = ["A", "B", "C", "D", "E"];
    expect(problems({ nodes: nodes(node("A", ["B"]), node("B", ["C"]), node("C", ["A"]), node("D", ["E"]), node("E")) }, ps)).toEqual([
      { path: "$.nodes.A", message: "Cycle detected without exit condition: A -> B -> C -> A" },
    ]);
    expect(problems({ nodes: nodes(node("A", ["B"]), node("B", ["A"])) }, ps)).toEqual([
      { path: "$.nodes", message: "Graph must have at least one start node" },
      { path: "$.nodes", message: "Graph must have at least one leaf node" },
      { path: "$.nodes.A", message: "Cycle detected without exit condition: A -> B -> A" },
    ]);
    expect(problems({ nodes: nodes(node("A", ["B"]), node("B", ["C"]), node("C", ["B"])) }, ps)).toEqual([
      { path: "$.nodes", message: "Graph must have at least one leaf node" },
      { path: "$.nodes.B", message: "Cycle detected without exit condition: B -> C -> B" },
    ]);
    // A default start node is a start node even with edges into it (the loop test's graph).
    expect(problems({ nodes: nodes(node("A", ["B"]), node("B", ["C", "exit"], ["A", "loop"]), node("C")) }, ps)).toEqual([{ path: "$.nodes", message: "Graph must have at least one start node" }]);
    expect(problems({ nodes: nodes(node("A", ["B"]), node("B", ["C", "exit"], ["A", "loop"]), node("C")), default_start_node: "A" }, ps)).toEqual([]);
  });

  // GraphFlow's docstring "Loop with exit condition" @ 027ecf0a uses lambdas; dump_component writes them as
  // null, so the graph comes back with a loop that has no exit.
  it("refuses a loop whose callable conditions were dumped as null", () => {
    const dumped = { nodes: nodes(node("A", ["B"]), node("B", ["C", null], ["A", null]), node("C")), default_start_node: "A" };
    expect(problems(dumped, ["A", "B", "C"])).toEqual([{ path: "$.nodes.A", message: "Cycle detected without exit condition: A -> B -> A" }]);
  });

  // GraphFlowManager.__init__ @ 027ecf0a (test_invalid_digraph_manager_cycle_without_termination's check).
  it("refuses a cyclic graph with neither a termination condition nor max_turns, when told the team's", () => {
    const loop = { nodes: nodes(node("A", ["B"]), node("B", ["C", "exit"], ["A", "loop"]), node("C")), default_start_node: "A" };
    expect(problems(loop, ["A", "B", "C"], { has_termination_condition: false, max_turns: null })).toEqual([
      { path: "$", message: "A termination condition is required for cyclic graphs without a maximum turn limit." },
    ]);
    expect(problems(loop, ["A", "B", "C"], { has_termination_condition: false, max_turns: 10 })).toEqual([]);
    expect(problems(loop, ["A", "B", "C"], { has_termination_condition: true, max_turns: null })).toEqual([]);
    expect(graphHasCycles(graph(loop))).toBe(true);
    expect(graphHasCycles(graph({ nodes: nodes(node("A", ["B"]), node("B")) }))).toBe(false);
  });

  it("refuses a node that is no participant of the team", () => {
    expect(problems({ nodes: nodes(node("A", ["B"]), node("B")) }, ["A", "C"])).toEqual([
      { path: "$.nodes.B", message: 'names no participant of the team (participants: "A", "C"); AutoGen would fail on selecting it: "Speaker B not found in participant names."' },
    ]);
  });
});
