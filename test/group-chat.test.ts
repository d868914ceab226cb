/**
 * Imported AutoGen teams run their group chats turn by turn (docs/adapters.md "AutoGen: group
 * chats"): round robin in the team's order until a text mention ends it, a selector whose next
 * speaker the (scripted) model picks, a swarm that hands off to the people and back; each turn a
 * subtask with a routing.decision naming the rule, the run's result carrying AutoGen's stop reason.
 * A real Clutch on real PostgreSQL, agents on a local scripted OpenAI-compatible model.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, newId, type StoredEvent } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { say, threadEvents, waitFor } from "./agents";
import { testClutch } from "./helpers";
import { assistant, cond } from "./autogen-specs";
import { completion, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";

let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
const ADMIN = { kind: "system", agent_id: "system" } as never;

const text = (m: ChatRequest["messages"][number]) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
/** Which participant the request is for: "You are <name> in a … group chat". */
const speakerOf = (body: ChatRequest) => body.messages.map(text).join("\n").match(/You are (\S+) in a (?:round robin|selector|swarm) group chat/)?.[1];
const said = (body: ChatRequest, what: string) => completion(body.model, toolCall("submit_result", { summary: what }), "tool_calls");

/** The scripted team: what each participant says, by its AutoGen name. */
function answer(body: ChatRequest) {
  if (!body.tools?.length) {
    // The selector's call: no tools, the prompt lists the candidates.
    const prompt = body.messages.map(text).join("\n");
    return completion(body.model, { content: prompt.includes("'critic'") ? "critic" : "writer" }, "stop");
  }
  if (body.messages.some((m) => m.role === "tool")) return completion(body.model, { content: "Done." }, "stop");
  const who = speakerOf(body);
  const history = body.messages.map(text).join("\n");
  switch (who) {
    case "primary":
      return said(body, "Draft: the answer is 42.");
    case "critic":
      return said(body, "Checked the draft. APPROVE");
    case "writer":
      return said(body, "Here is the poem. TERMINATE");
    case "travel":
      return history.includes("user: May 3")
        ? said(body, "Booked for May 3. TERMINATE")
        : completion(body.model, toolCall("submit_result", { summary: "Which dates should I book?", data: { handoff_to: "user" } }), "tool_calls");
    default:
      return said(body, `(unknown speaker ${who})`);
  }
}

const team = (provider: string, label: string, config: Record<string, unknown>) => ({ provider: `autogen_agentchat.teams.${provider}`, component_type: "team", label, config });

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-gc-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [] }));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: "scripted-1" }),
  });
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

async function importTeam(spec: unknown, id: string) {
  const r = await rt.importPack({ pack: spec, id } as never, ADMIN);
  return r.channel.thread_id;
}

const decisions = (events: StoredEvent[]) => events.filter((e) => isEvent(e, "routing.decision") && e.payload.mode === "group_chat");
const rootResult = (events: StoredEvent[]) => events.find((e) => isEvent(e, "task.result") && e.from.agent_id === "agent:group-chat");

describe("group chats of imported AutoGen teams", () => {
  it("round robin: the participants take turns in order until a text mention ends the chat", async () => {
    const spec = team("RoundRobinGroupChat", "Review pair", {
      participants: [assistant("primary"), assistant("critic")],
      termination_condition: { provider: "autogen_agentchat.base.OrTerminationCondition", component_type: "termination", config: { conditions: [cond("TextMentionTermination", { text: "APPROVE" }), cond("MaxMessageTermination", { max_messages: 10 })] } },
    });
    const thread_id = await importTeam(spec, `rr-${newId("task").slice(-6).toLowerCase()}`);
    await say(rt, thread_id, "What is the answer to everything?");
    const result = await waitFor(rt, thread_id, "the chat's result", rootResult);
    expect(result.payload).toMatchObject({ stop_reason: "Text 'APPROVE' mentioned", summary: "critic: Checked the draft. APPROVE" });
    const events = await threadEvents(rt, thread_id);
    expect(decisions(events).map((d) => [d.payload.rule, d.payload.reason])).toEqual([
      ["round_robin", "round robin: primary follows the request in the team's order"],
      ["round_robin", "round robin: critic follows primary in the team's order"],
    ]);
    const turns = events.filter((e) => isEvent(e, "task.request") && typeof e.meta?.group_chat_turn === "number");
    expect(turns.map((t) => [t.meta!.group_chat_turn, t.meta!.speaker, t.parent_task_id === result.task_id])).toEqual([
      [1, "primary", true],
      [2, "critic", true],
    ]);
    // Each turn's decision: from the orchestrator, among the team's agents, right before its request in the same task.
    const [first] = decisions(events);
    const members = first!.payload.candidates;
    expect(members).toHaveLength(2);
    expect(first).toMatchObject({ from: { agent_id: "agent:orchestrator" }, to: [], task_id: turns[0]!.task_id, parent_task_id: result.task_id, seq: turns[0]!.seq - 1 });
    expect(first!.payload).toEqual({ selected: turns[0]!.to[0]!.agent_id, candidates: members, reason: "round robin: primary follows the request in the team's order", scores: { [turns[0]!.to[0]!.agent_id]: 1 }, mode: "group_chat", rule: "round_robin" });
    expect(turns[0]!.from.agent_id).toBe("agent:group-chat");
    // The second speaker read the first one's message.
    expect(String(turns[1]!.payload.instructions)).toContain("primary: Draft: the answer is 42.");
  });

  it("selector: the model picks the next speaker among the candidates, the previous speaker left out", async () => {
    const spec = team("SelectorGroupChat", "Poets", {
      participants: [assistant("editor"), assistant("writer"), assistant("critic")],
      model_client: { provider: "OpenAIChatCompletionClient", component_type: "model", config: { model: "gpt-4o" } },
      selector_prompt: "Pick the next role from {participants}.\n{roles}\n{history}",
      termination_condition: cond("TextMentionTermination", { text: "TERMINATE" }),
    });
    const thread_id = await importTeam(spec, `sel-${newId("task").slice(-6).toLowerCase()}`);
    await say(rt, thread_id, "Write a poem about the sea");
    const result = await waitFor(rt, thread_id, "the chat's result", rootResult);
    const events = await threadEvents(rt, thread_id);
    const picks = decisions(events);
    // The scripted selector answers "critic" while critic is a candidate, else "writer".
    expect(picks[0]!.payload).toMatchObject({ rule: "selector", reason: 'selector: the selector model chose critic ("critic")' });
    expect(picks.map((d) => d.payload.selected)).toEqual([expect.stringMatching(/-critic$/), expect.stringMatching(/-writer$/)]);
    expect(result.payload.stop_reason).toBe("Text 'TERMINATE' mentioned");
  });

  it("swarm: a handoff to the user asks the people, and their answer goes back to the agent that asked", async () => {
    const spec = team("Swarm", "Trips", {
      participants: [assistant("travel", { handoffs: ["user"] })],
      termination_condition: cond("TextMentionTermination", { text: "TERMINATE" }),
    });
    const thread_id = await importTeam(spec, `sw-${newId("task").slice(-6).toLowerCase()}`);
    await say(rt, thread_id, "Book my trip to Lisbon");
    const question = await waitFor(rt, thread_id, "the question to the people", (evs) =>
      evs.find((e) => isEvent(e, "chat.message") && e.payload.expects_reply === true && e.from.agent_id === "agent:group-chat"), 15_000,
    ).catch(async (err) => {
      console.log((await threadEvents(rt, thread_id)).map((e) => `${e.seq} ${e.type} ${e.from.agent_id} ${JSON.stringify(e.payload).slice(0, 200)} ${JSON.stringify(e.meta ?? {}).slice(0, 100)}`).join("\n"));
      throw err;
    });
    expect(question.to).toEqual([{ agent_id: "user", role: "human" }]);
    const answer = await personMessage(rt.store.queries, thread_id, { text: "May 3", reply_to: question.id }, { agent_id: "user:dana", display_name: "Dana" });
    await rt.store.append(answer);
    const result = await waitFor(rt, thread_id, "the chat's result", rootResult);
    expect(result.payload).toMatchObject({ stop_reason: "Text 'TERMINATE' mentioned", summary: "travel: Booked for May 3. TERMINATE" });
    const events = await threadEvents(rt, thread_id);
    expect(decisions(events).map((d) => d.payload.reason)).toEqual(["swarm: travel is the first participant", "swarm: the people answered travel, who handed off to them"]);
  });
});
