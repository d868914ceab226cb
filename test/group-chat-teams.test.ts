/**
 * GraphFlow and MagenticOneGroupChat run turn by turn, as AutoGen runs them (docs/adapters.md
 * "Group chats"), against AutoGen's own source at microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14:
 * python/packages/autogen-agentchat/src/autogen_agentchat/teams/_group_chat/_graph/_digraph_group_chat.py
 * (GraphFlowManager) and _magentic_one/_magentic_one_orchestrator.py with _prompts.py. A real
 * Clutch on real PostgreSQL; the agents and the team's model client talk to
 * test/scripted-openai.ts, whose request log is the ground truth:
 *
 * - GraphFlow: a writer → reviewer loop that exits on "APPROVE" to a summarizer, and a fan-out
 *   whose two branches start together and join with activation "all";
 * - MagenticOne: the facts, plan and task ledger, one progress ledger per step (an unreadable one
 *   asked again), the instruction to each speaker, and the final answer, each orchestrator call on
 *   the team's own model client and metered;
 * - the imports refuse a graph AutoGen would refuse and a MagenticOne team without its model client.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, newId, type StoredEvent } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { factsMessages, ORCHESTRATOR_FINAL_ANSWER_PROMPT } from "@/lib/group-chat/magentic-one";
import { say, threadEvents, waitFor } from "./agents";
import { testClutch } from "./helpers";
import { assistant, cond } from "./autogen-specs";
import { completion, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";

let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
const ADMIN = { kind: "system", agent_id: "system" } as never;
/** The model id the team's own model client asks for: the orchestrator's calls are told apart by it. */
const TEAM_MODEL = "team-client-1";

const text = (m: ChatRequest["messages"][number]) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? "").join("") : JSON.stringify(m.content));
const all = (body: ChatRequest) => body.messages.map(text).join("\n");
const ofTeam = (body: ChatRequest) => body.model === TEAM_MODEL;

/** The progress ledgers the orchestrator gets, in order (a string is sent as is). */
let ledgers: (string | Record<string, unknown>)[] = [];
/** What the reviewer says at each of its turns. */
let reviews: string[] = [];

const entry = (answer: unknown, reason = "scripted") => ({ answer, reason });
const ledger = (next: string, instruction: string, satisfied = false) => ({
  is_request_satisfied: entry(satisfied, satisfied ? "The checker confirmed the answer." : "Not yet."),
  is_in_loop: entry(false),
  is_progress_being_made: entry(true),
  next_speaker: entry(next, `${next} is the one to do it`),
  instruction_or_question: entry(instruction),
});

function answer(body: ChatRequest) {
  if (ofTeam(body)) {
    const last = text(body.messages.at(-1)!);
    if (last.includes("is_request_satisfied")) {
      const next = ledgers.shift() ?? ledger("coder", "Go on.");
      return completion(body.model, { content: typeof next === "string" ? next : JSON.stringify(next) }, "stop");
    }
    if (last.includes("pre-survey")) return completion(body.model, { content: "1. GIVEN OR VERIFIED FACTS\n- none" }, "stop");
    if (last.includes("we have assembled the following team")) return completion(body.model, { content: "- coder writes it\n- checker checks it" }, "stop");
    if (last.includes("final answer")) return completion(body.model, { content: "The answer is 42." }, "stop");
    return completion(body.model, { content: "?" }, "stop");
  }
  if (body.messages.some((m) => m.role === "tool")) return completion(body.model, { content: "Done." }, "stop");
  const who = all(body).match(/You are (\S+) in a (?:GraphFlow group chat|Magentic-One team)/)?.[1];
  const says = who === "reviewer" ? (reviews.shift() ?? "APPROVE") : `${who} did its part.`;
  return completion(body.model, toolCall("submit_result", { summary: says }), "tool_calls");
}

const edge = (target: string, condition: string | null = null) => ({ target, condition, activation_group: "", activation_condition: "all" });
const node = (name: string, edges: ReturnType<typeof edge>[] = []) => ({ name, edges, activation: "all" });
const graphTeam = (names: string[], nodes: ReturnType<typeof node>[], config: Record<string, unknown> = {}) => ({
  provider: "autogen_agentchat.teams.GraphFlow",
  component_type: "team",
  label: "Graph team",
  config: { participants: names.map((n) => assistant(n)), graph: { nodes: Object.fromEntries(nodes.map((n) => [n.name, n])), default_start_node: null }, ...config },
});
const magenticTeam = (config: Record<string, unknown> = {}) => ({
  provider: "autogen_agentchat.teams.MagenticOneGroupChat",
  component_type: "team",
  label: "Magentic team",
  config: {
    participants: [assistant("coder"), assistant("checker")],
    model_client: { provider: "OpenAIChatCompletionClient", component_type: "model", config: { model: TEAM_MODEL } },
    max_turns: 20,
    max_stalls: 3,
    final_answer_prompt: ORCHESTRATOR_FINAL_ANSWER_PROMPT,
    ...config,
  },
});

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-gct-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [] }));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const scripted = (id: string) => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: id });
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => scripted("scripted-1"),
    // The team's own model client, as server.ts resolves it: the model its import named.
    teamModelFor: (_team, spec) => scripted(spec && "model" in spec && spec.model ? spec.model : "none"),
  });
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

const newTeamId = () => `gct-${newId("task").slice(-6).toLowerCase()}`;

/** Import `spec` as a team, say `task` in its channel, and wait for the chat's ending. */
async function chat(spec: unknown, task: string) {
  const { channel } = await rt.importPack({ pack: spec, id: newTeamId() } as never, ADMIN);
  await say(rt, channel.thread_id, task);
  const end = await waitFor(rt, channel.thread_id, "the chat's ending", (evs) => evs.find((e) => (isEvent(e, "task.result") || isEvent(e, "task.error")) && e.from.agent_id === "agent:group-chat"), 60_000);
  const events = (await threadEvents(rt, channel.thread_id)).filter((e) => e.run_id === end.run_id);
  const requests = model.requests.filter((r) => all(r).includes(task));
  return { end, events, requests };
}

const turnRequests = (events: StoredEvent[]) => events.filter((e) => isEvent(e, "task.request") && typeof e.meta?.group_chat_turn === "number");
const speakersOf = (events: StoredEvent[]) => turnRequests(events).map((e) => e.meta!.speaker);
const endOf = (events: StoredEvent[], task_id: string) => events.find((e) => e.task_id === task_id && isEvent(e, "task.result"))!;

describe("GraphFlow as AutoGen's GraphFlowManager runs it", () => {
  it("loops writer → reviewer until the reviewer's message meets the exit edge's condition, then ends when the graph is complete", async () => {
    // AutoGen's test_group_chat_graph.py test_digraph_group_chat_loop_with_exit_condition, with a summarizer after the exit.
    reviews = ["REVISE: tighten the intro", "APPROVE"];
    const task = `Write the launch note ${newId("task").slice(-6)}`;
    const spec = graphTeam(
      ["writer", "reviewer", "summarizer"],
      [node("writer", [edge("reviewer")]), node("reviewer", [edge("writer", "REVISE"), edge("summarizer", "APPROVE")]), node("summarizer")],
      { max_turns: 10 },
    );
    // Every node has an edge into it: the graph starts at default_start_node.
    (spec.config.graph as { default_start_node: string | null }).default_start_node = "writer";
    const { end, events } = await chat(spec, task);
    expect(end).toMatchObject({ type: "task.result", payload: { stop_reason: "Digraph execution is complete" } });
    expect(speakersOf(events)).toEqual(["writer", "reviewer", "writer", "reviewer", "summarizer"]);
    const decisions = events.filter((e) => isEvent(e, "routing.decision") && e.payload.mode === "group_chat");
    expect(decisions.map((d) => d.payload.rule)).toEqual(Array(5).fill("graph_flow"));
    expect(String(decisions[2]!.payload.reason)).toContain("REVISE");
    expect(end.payload.report_markdown).toBe("summarizer did its part.");
  });

  it("starts a fan-out's branches together and the join once both have finished (activation all)", async () => {
    const task = `Compare the offers ${newId("task").slice(-6)}`;
    const spec = graphTeam(
      ["planner", "left", "right", "joiner"],
      [node("planner", [edge("left"), edge("right")]), node("left", [edge("joiner")]), node("right", [edge("joiner")]), node("joiner")],
    );
    const { end, events } = await chat(spec, task);
    expect(end.payload.stop_reason).toBe("Digraph execution is complete");
    const turns = turnRequests(events);
    expect(turns.map((t) => [t.meta!.speaker, t.meta!.group_chat_turn, t.meta!.group_chat_batch])).toEqual([
      ["planner", 1, 1],
      ["left", 2, 2],
      ["right", 3, 2],
      ["joiner", 4, 4],
    ]);
    // Both branches were asked for before either answered, and the join only after both.
    const [, left, right, joiner] = turns;
    expect(right!.seq).toBeLessThan(Math.min(endOf(events, left!.task_id).seq, endOf(events, right!.task_id).seq));
    expect(joiner!.seq).toBeGreaterThan(Math.max(endOf(events, left!.task_id).seq, endOf(events, right!.task_id).seq));
  });

  it("refuses a graph AutoGen would refuse, with the graph's JSONPath", async () => {
    const spec = graphTeam(["a", "b"], [node("a", [edge("b")]), node("b", [edge("a")])]);
    const err = await rt.importPack({ pack: spec, id: newTeamId() } as never, ADMIN).then(
      () => null,
      (e: unknown) => e as { issues?: { path: string; message: string }[] },
    );
    expect(err?.issues?.length).toBeGreaterThan(0);
    expect(err!.issues!.every((i) => i.path.startsWith("$.config.graph"))).toBe(true);
    expect(err!.issues!.map((i) => i.message).join("\n")).toMatch(/start node|Cycle detected without exit condition/);
  });
});

describe("MagenticOneGroupChat as AutoGen's MagenticOneOrchestrator runs it", () => {
  it("plans with the team's model client, asks each speaker the ledger names with its instruction, and ends with the final answer", async () => {
    ledgers = ["not json at all", ledger("coder", "Write the function."), ledger("checker", "Check the function."), ledger("checker", "", true)];
    const task = `Find the answer ${newId("task").slice(-6)}`;
    const { end, events, requests } = await chat(magenticTeam(), task);
    expect(end).toMatchObject({ type: "task.result", payload: { stop_reason: "The checker confirmed the answer.", report_markdown: "The answer is 42." } });
    expect(speakersOf(events)).toEqual(["coder", "checker"]);

    // The orchestrator's calls, all on the team's model client: facts, plan, then a ledger per step
    // (the unreadable one asked again), then the final answer.
    const calls = requests.filter(ofTeam);
    expect(calls).toHaveLength(2 + 4 + 1);
    expect(calls[0]!.messages.map((m) => ({ role: m.role, content: text(m) }))).toEqual(factsMessages(task).map(({ role, content }) => ({ role, content })));
    expect(text(calls[2]!.messages.at(-1)!)).toBe(text(calls[3]!.messages.at(-1)!)); // the retry asks the same
    expect(requests.filter((r) => !ofTeam(r)).every((r) => r.model === "scripted-1")).toBe(true);

    // What the run shows: the facts and plan, the task ledger, each ledger and instruction, then the turn.
    const m1 = events.filter((e) => e.meta?.magentic_one && !isEvent(e, "model.usage")).map((e) => `${e.type}:${(e.meta!.magentic_one as { event: string }).event}`);
    expect(m1).toEqual([
      "task.progress:facts",
      "task.progress:plan",
      "chat.message:task_ledger",
      "task.progress:progress_ledger",
      "chat.message:instruction",
      "task.progress:progress_ledger",
      "chat.message:instruction",
      "task.progress:progress_ledger",
    ]);
    const instructions = events.filter((e) => isEvent(e, "chat.message") && (e.meta?.magentic_one as { event?: string } | undefined)?.event === "instruction");
    expect(instructions.map((e) => e.payload.text)).toEqual(["Write the function.", "Check the function."]);
    // The speaker gets the messages since its last turn: the task ledger, then the instruction last.
    const coderTurn = turnRequests(events)[0]!;
    expect(String(coderTurn.payload.instructions)).toContain("We are working to address the following user request:");
    expect(String(coderTurn.payload.instructions)).toMatch(/MagenticOneOrchestrator: Write the function\.\n\nDo what the orchestrator asks/);

    // Every orchestrator call is metered on the chat's root task.
    const usage = events.filter((e) => isEvent(e, "model.usage") && e.task_id === end.task_id);
    expect(usage).toHaveLength(calls.length);
    expect(usage.map((e) => e.payload.step)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(usage.every((e) => e.payload.model === TEAM_MODEL)).toBe(true);
  });

  it("ends when the termination condition holds on a participant's message, without a final answer", async () => {
    ledgers = [ledger("coder", "Write it and say DONE.")];
    const task = `Write a haiku ${newId("task").slice(-6)}`;
    const spec = magenticTeam({ termination_condition: cond("TextMentionTermination", { text: "did its part" }) });
    const { end, requests } = await chat(spec, task);
    expect(end.payload).toMatchObject({ stop_reason: "Text 'did its part' mentioned", report_markdown: "coder did its part." });
    expect(requests.filter(ofTeam).some((r) => text(r.messages.at(-1)!).includes("final answer"))).toBe(false);
  });

  it("refuses a MagenticOneGroupChat without the model client its orchestrator needs", async () => {
    const spec = magenticTeam();
    delete (spec.config as Record<string, unknown>).model_client;
    const err = await rt.importPack({ pack: spec, id: newTeamId() } as never, ADMIN).then(
      () => null,
      (e: unknown) => e as { issues?: { path: string; message: string }[] },
    );
    expect(err?.issues).toContainEqual({ path: "$.config.model_client", message: "a MagenticOneGroupChat needs the model_client its orchestrator plans and picks speakers with" });
  });
});
