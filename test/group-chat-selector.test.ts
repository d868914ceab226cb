/**
 * SelectorGroupChat as AutoGen runs it (docs/adapters.md "Group chats: the team's pattern, run by
 * Clutch"), against AutoGen's own source: microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14,
 * python/packages/autogen-agentchat/src/autogen_agentchat/teams/_group_chat/_selector_group_chat.py
 * (`_select_speaker`, `_mentioned_agents`, `construct_message_history`) and _base_group_chat_manager.py
 * (`handle_start` applies the termination condition to the task). A real Clutch on real PostgreSQL;
 * the agents and the selector talk to test/scripted-openai.ts, whose request log is the ground truth:
 *
 * - an invalid answer is asked again with the model's answer and AutoGen's feedback appended, the
 *   prompt a system message (an OpenAI-compatible model), up to max_selector_attempts calls;
 * - after the last failed attempt the previous speaker speaks;
 * - every selector call is a `model.usage` of the run, made on the team's own model_client: calls
 *   and tokens match the model's log;
 * - a task that meets the termination condition ends the chat before any turn.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, newId, type StoredEvent } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { say, threadEvents, waitFor } from "./agents";
import { testClutch } from "./helpers";
import { assistant, cond } from "./autogen-specs";
import { completion, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";

let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
const ADMIN = { kind: "system", agent_id: "system" } as never;

const text = (m: ChatRequest["messages"][number]) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? "").join("") : JSON.stringify(m.content));
const all = (body: ChatRequest) => body.messages.map(text).join("\n");
const isSelector = (body: ChatRequest) => !body.tools?.length;

/** What the selector answers next, in order; "nobody" once the script runs out. */
let selectorAnswers: string[] = [];
/** The usage of the n-th selector call (from 1): distinct from the agents' 10 + 5, so sums tell them apart. */
const selectorUsage = (n: number) => ({ prompt_tokens: 100 + n, completion_tokens: n, total_tokens: 100 + 2 * n });
let selectorCalls = 0;

function answer(body: ChatRequest) {
  if (isSelector(body)) {
    selectorCalls++;
    return completion(body.model, { content: selectorAnswers.shift() ?? "nobody" }, "stop", selectorUsage(selectorCalls));
  }
  if (body.messages.some((m) => m.role === "tool")) return completion(body.model, { content: "Done." }, "stop");
  const who = all(body).match(/You are (\S+) in a selector group chat/)?.[1];
  const says = who === "critic" ? "Checked. APPROVE" : `${who} did its part.`;
  return completion(body.model, toolCall("submit_result", { summary: says }), "tool_calls");
}

const selectorTeam = (config: Record<string, unknown>) => ({
  provider: "autogen_agentchat.teams.SelectorGroupChat",
  component_type: "team",
  label: "Selector team",
  config: {
    participants: [assistant("editor"), assistant("writer"), assistant("critic")],
    model_client: { provider: "OpenAIChatCompletionClient", component_type: "model", config: { model: "selector-client" } },
    selector_prompt: "Pick from {participants}.\n{roles}\n{history}",
    ...config,
  },
});

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-gcs-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [] }));
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: "scripted-1" }),
    // The team's own model client, as server.ts resolves it: the model its import named.
    teamModelFor: (_team, spec) => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: spec && "model" in spec && spec.model ? spec.model : "none" }),
  });
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

/** Import `spec` as a team, say `task` in its channel, and wait for the chat's result. */
async function chat(spec: unknown, task: string) {
  const id = `gcs-${newId("task").slice(-6).toLowerCase()}`;
  const { channel } = await rt.importPack({ pack: spec, id } as never, ADMIN);
  await say(rt, channel.thread_id, task);
  const result = await waitFor(rt, channel.thread_id, "the chat's result", (evs) => evs.find((e) => isEvent(e, "task.result") && e.from.agent_id === "agent:group-chat"));
  const events = (await threadEvents(rt, channel.thread_id)).filter((e) => e.run_id === result.run_id);
  // The model's own log for this chat: every request (selector and agents) carries the task in its history.
  const requests = model.requests.filter((r) => all(r).includes(task));
  return { result, events, requests };
}

const decisions = (events: StoredEvent[]) => events.filter((e) => isEvent(e, "routing.decision") && e.payload.mode === "group_chat");
const speakers = (events: StoredEvent[]) => events.filter((e) => isEvent(e, "task.request") && typeof e.meta?.group_chat_turn === "number").map((e) => e.meta!.speaker);
const messagesOf = (r: ChatRequest) => r.messages.map((m) => ({ role: m.role, content: text(m) }));

describe("SelectorGroupChat as AutoGen runs it", () => {
  it("asks again with the answer and AutoGen's feedback appended, the prompt a system message, until one name is mentioned", async () => {
    selectorAnswers = ["nobody", "writer or critic", "I pick critic."];
    const task = `Review the draft ${newId("task").slice(-6)}`;
    const { result, events, requests } = await chat(selectorTeam({ termination_condition: cond("TextMentionTermination", { text: "APPROVE" }) }), task);
    expect(result.payload.stop_reason).toBe("Text 'APPROVE' mentioned");
    const calls = requests.filter(isSelector);
    expect(calls).toHaveLength(3);
    const prompt = `Pick from ['editor', 'writer', 'critic'].\neditor: editor helps\nwriter: writer helps\ncritic: critic helps\nuser: ${task}\n\n`;
    expect(messagesOf(calls[0]!)).toEqual([{ role: "system", content: prompt }]);
    expect(messagesOf(calls[2]!)).toEqual([
      { role: "system", content: prompt },
      { role: "assistant", content: "nobody" },
      { role: "user", content: "No valid name was mentioned. Please select from: ['editor', 'writer', 'critic']." },
      { role: "assistant", content: "writer or critic" },
      { role: "user", content: "Expected exactly one name to be mentioned. Please select only one from: ['editor', 'writer', 'critic']." },
    ]);
    expect(decisions(events).map((d) => d.payload.reason)).toEqual(['selector: the selector model chose critic on attempt 3 of 3 ("I pick critic.")']);
    expect(speakers(events)).toEqual(["critic"]);
  });

  it("after max_selector_attempts failed answers, the previous speaker speaks again", async () => {
    selectorAnswers = ["editor", "nobody", "editor again"];
    const task = `Tidy the intro ${newId("task").slice(-6)}`;
    const { result, events, requests } = await chat(selectorTeam({ max_selector_attempts: 2, max_turns: 2 }), task);
    expect(result.payload.stop_reason).toBe("Maximum number of turns 2 reached.");
    const calls = requests.filter(isSelector);
    // Turn 1: one call; turn 2: two calls (the limit), the second told repeats are not allowed.
    expect(calls).toHaveLength(3);
    expect(messagesOf(calls[2]!).at(-1)).toEqual({ role: "user", content: "No valid name was mentioned. Please select from: ['writer', 'critic']." });
    expect(speakers(events)).toEqual(["editor", "editor"]);
    expect(decisions(events)[1]!.payload.reason).toBe('selector: the selector model named no single valid participant in 2 attempts ("editor again"); editor, the previous speaker, speaks');
  });

  it("meters every selector call: a 4-turn chat's model.usage events match the model's own log, calls and tokens", async () => {
    selectorAnswers = ["editor", "nobody", "writer", "critic", "editor"];
    const task = `Plan the launch ${newId("task").slice(-6)}`;
    // The task and four messages: MaxMessageTermination(5) ends the chat after the fourth turn.
    const { result, events, requests } = await chat(selectorTeam({ termination_condition: cond("MaxMessageTermination", { max_messages: 5 }) }), task);
    expect(result.payload.stop_reason).toBe("Maximum number of messages 5 reached, current message count: 5");
    expect(speakers(events)).toEqual(["editor", "writer", "critic", "editor"]);
    const calls = requests.filter(isSelector);
    expect(calls).toHaveLength(5);
    // The selector speaks with the team's model_client, the agents with their own.
    expect(calls.map((c) => c.model)).toEqual(Array(5).fill("selector-client"));
    expect(requests.filter((r) => !isSelector(r)).every((r) => r.model === "scripted-1")).toBe(true);
    const usage = events.filter((e) => isEvent(e, "model.usage"));
    const ofSelector = usage.filter((e) => e.task_id === result.task_id);
    expect(ofSelector).toHaveLength(calls.length);
    expect(ofSelector.every((e) => e.from.agent_id === "agent:group-chat")).toBe(true);
    expect(ofSelector.map((e) => e.payload.step)).toEqual([1, 2, 3, 4, 5]);
    // The scripted model's answers to this chat's selector calls, as it reported them.
    const answered = model.requests.filter(isSelector).length;
    const reported = calls.map((_, i) => selectorUsage(answered - calls.length + i + 1));
    const sum = (xs: { input: number; output: number }[]) => xs.reduce((a, x) => ({ input: a.input + x.input, output: a.output + x.output }), { input: 0, output: 0 });
    expect(sum(ofSelector.map((e) => ({ input: e.payload.input_tokens as number, output: e.payload.output_tokens as number })))).toEqual(sum(reported.map((u) => ({ input: u.prompt_tokens, output: u.completion_tokens }))));
    // The run's usage is every call the model answered for it: the agents' (10 + 5 each) and the selector's.
    expect(usage).toHaveLength(requests.length);
    const agentCalls = requests.length - calls.length;
    expect(sum(usage.map((e) => ({ input: e.payload.input_tokens as number, output: e.payload.output_tokens as number })))).toEqual({
      input: agentCalls * 10 + reported.reduce((a, u) => a + u.prompt_tokens, 0),
      output: agentCalls * 5 + reported.reduce((a, u) => a + u.completion_tokens, 0),
    });
  });

  it("a task that meets the termination condition ends the chat before any turn, with AutoGen's stop reason", async () => {
    selectorAnswers = [];
    const task = `Nothing left to do ${newId("task").slice(-6)}. TERMINATE`;
    const { result, events, requests } = await chat(selectorTeam({ termination_condition: cond("TextMentionTermination", { text: "TERMINATE" }) }), task);
    expect(result.payload).toMatchObject({ stop_reason: "Text 'TERMINATE' mentioned", summary: "Text 'TERMINATE' mentioned" });
    expect(decisions(events)).toEqual([]);
    expect(speakers(events)).toEqual([]);
    expect(requests).toEqual([]);
  });
});

describe("a SelectorGroupChat spec with Python callables", () => {
  it("is refused at import, naming selector_func and candidate_func: Clutch cannot run them", async () => {
    const spec = selectorTeam({ selector_func: { provider: "my_pkg.pick", config: {} }, candidate_func: "my_pkg.candidates" });
    const err = await rt.importPack({ pack: spec, id: `gcs-${newId("task").slice(-6).toLowerCase()}` } as never, ADMIN).then(
      () => null,
      (e: unknown) => e as { issues?: { path: string; message: string }[] },
    );
    expect(err?.issues).toEqual([
      { path: "$.config.selector_func", message: "a custom selector_func is a Python callable Clutch cannot run, and the team's speakers depend on it: remove selector_func to let the selector model pick every speaker" },
      { path: "$.config.candidate_func", message: "a custom candidate_func is a Python callable Clutch cannot run, and the team's speakers depend on it: remove candidate_func to let the selector model pick every speaker" },
    ]);
  });
});
