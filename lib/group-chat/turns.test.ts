/**
 * AutoGen's group-chat patterns as lib/group-chat/turns.ts decides them: round robin in the
 * team's order, the selector's candidates, prompt and answer as AutoGen reads them, a Swarm's
 * handoffs (to the people and back), and each termination condition with AND/OR, in AutoGen's words.
 * Selector expectations follow microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14
 * (teams/_group_chat/_selector_group_chat.py and tests/test_group_chat.py `test_selector_group_chat_*`).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_SELECTOR_PROMPT, mentionedAgents, nextSpeaker, readSelection, selectorFallback, selectorPrompt, selectorPromptRole, terminated, type ChatFacts, type GroupChatShape, type Participant, type Termination } from "./turns";

const agent = (name: string, description = `${name} agent`): Participant => ({ name, kind: "agent", agent_id: `agent:team-${name}`, description });
const shape = (kind: GroupChatShape["kind"], participants: Participant[], extra: Partial<GroupChatShape> = {}): GroupChatShape => ({
  kind,
  participants,
  selector_prompt: null,
  allow_repeated_speaker: false,
  max_selector_attempts: null,
  handoffs: [],
  termination: null,
  max_turns: null,
  ...extra,
});
const facts = (o: Partial<ChatFacts> = {}): ChatFacts => ({ task: "t", started_at_ms: 0, now_ms: 1000, tokens: { prompt: 0, completion: 0 }, tool_calls: [], agent_events: 0, ...o });
const speakerOf = (n: ReturnType<typeof nextSpeaker>) => (n.kind === "speak" ? n.speaker.name : n.kind);

describe("round robin", () => {
  it("takes the participants in the team's order, after the last speaker, skipping what Clutch cannot run", () => {
    const s = shape("round_robin", [agent("primary"), { name: "surfer", kind: "left_out", agent_id: null, description: null }, agent("critic")]);
    expect(speakerOf(nextSpeaker(s, "t", []))).toBe("primary");
    expect(speakerOf(nextSpeaker(s, "t", [{ speaker: "primary", text: "a" }]))).toBe("critic");
    expect(speakerOf(nextSpeaker(s, "t", [{ speaker: "primary", text: "a" }, { speaker: "critic", text: "b" }]))).toBe("primary");
  });
});

describe("selector", () => {
  const s = shape("selector", [agent("planner", "plans"), agent("coder", "writes code"), { name: "user", kind: "people", agent_id: null, description: "the person" }], { selector_prompt: "Roles:\n{roles}\nPick one of {participants}.\n{history}" });

  it("leaves the previous speaker out unless repeats are allowed, and fills the prompt as AutoGen does", () => {
    const next = nextSpeaker(s, "Build a CLI", [{ speaker: "planner", text: "Plan: two steps" }]);
    expect(next.kind).toBe("select");
    if (next.kind !== "select") return;
    expect(next.candidates.map((c) => c.name)).toEqual(["coder", "user"]);
    // construct_message_history: each `source: content` right-trimmed + "\n\n", joined by "\n".
    expect(next.prompt).toBe("Roles:\nplanner: plans\ncoder: writes code\nuser: the person\nPick one of ['coder', 'user'].\nuser: Build a CLI\n\n\nplanner: Plan: two steps\n\n");
    const again = nextSpeaker({ ...s, allow_repeated_speaker: true }, "Build a CLI", [{ speaker: "planner", text: "x" }]);
    expect(again.kind === "select" && again.candidates.map((c) => c.name)).toEqual(["planner", "coder", "user"]);
    expect(selectorPrompt({ ...s, selector_prompt: null }, "t", [], [agent("coder")])).toContain("select the next role from ['coder'] to play");
  });

  it("fills roles on one line each and the prompt as Python's str.format, the default prompt AutoGen's", () => {
    const multi = shape("selector", [agent("planner", "plans\n  carefully"), agent("coder")], { selector_prompt: "{{json}} {roles} {participants}" });
    expect(selectorPrompt(multi, "t", [], [agent("coder")])).toBe("{json} planner: plans carefully\ncoder: coder agent ['coder']");
    expect(DEFAULT_SELECTOR_PROMPT.endsWith("Only return the role.\n")).toBe(true);
  });

  it("counts mentions as AutoGen's _mentioned_agents: word bounds, `_` as space or `\\_`", () => {
    const names = ["Story_writer", "critic", "coder"];
    expect([...mentionedAgents("Story writer", names)]).toEqual([["Story_writer", 1]]);
    expect([...mentionedAgents("Story\\_writer should go", names)]).toEqual([["Story_writer", 1]]);
    expect([...mentionedAgents("critic, critic!", names)]).toEqual([["critic", 2]]);
    expect([...mentionedAgents("coders and critics", names)]).toEqual([]);
    expect([...mentionedAgents("coder or critic", names)]).toEqual([["critic", 1], ["coder", 1]]);
  });

  it("reads an answer: one name chosen, else AutoGen's feedback; falls back to the previous speaker, else the first candidate", () => {
    const team = shape("selector", [agent("planner"), agent("coder"), agent("critic")]);
    const c = [agent("coder"), agent("critic")];
    expect(readSelection("I pick critic.", team, c, "planner")).toMatchObject({ kind: "chosen", speaker: { name: "critic" } });
    expect(readSelection("critic critic", team, c, "planner")).toMatchObject({ kind: "chosen", speaker: { name: "critic" } });
    expect(readSelection("nobody", team, c, "planner")).toEqual({ kind: "retry", feedback: "No valid name was mentioned. Please select from: ['coder', 'critic']." });
    expect(readSelection("coder or critic", team, c, "planner")).toEqual({ kind: "retry", feedback: "Expected exactly one name to be mentioned. Please select only one from: ['coder', 'critic']." });
    expect(readSelection("planner again", team, c, "planner")).toEqual({ kind: "retry", feedback: "Repeated speaker is not allowed, please select a different name from: ['coder', 'critic']." });
    expect(readSelection("planner again", { ...team, allow_repeated_speaker: true }, team.participants, "planner")).toMatchObject({ kind: "chosen", speaker: { name: "planner" } });
    expect(selectorFallback(team, c, "planner").name).toBe("planner");
    expect(selectorFallback(team, c, null).name).toBe("coder");
  });

  it("sends the prompt as a system message to OpenAI models, as a user message to the others", () => {
    expect(selectorPromptRole("openai.chat")).toBe("system");
    expect(selectorPromptRole("openai-compatible.chat")).toBe("system");
    expect(selectorPromptRole("anthropic.messages")).toBe("user");
    expect(selectorPromptRole("google.generative-ai")).toBe("user");
  });
});

describe("swarm", () => {
  const s = shape("swarm", [agent("travel"), agent("flights")], { handoffs: [{ from: "travel", target: "flights", name: null, description: null, message: null }, { from: "flights", target: "user", name: null, description: null, message: "Which dates?" }] });

  it("starts with the first participant, follows handoffs, goes to the people and back to who asked them", () => {
    expect(speakerOf(nextSpeaker(s, "t", []))).toBe("travel");
    expect(speakerOf(nextSpeaker(s, "t", [{ speaker: "travel", text: "over to flights", handoff_to: "flights" }]))).toBe("flights");
    const toUser = nextSpeaker(s, "t", [{ speaker: "travel", text: "x", handoff_to: "flights" }, { speaker: "flights", text: "dates?", handoff_to: "user" }]);
    expect(toUser.kind === "speak" && toUser.speaker.kind).toBe("people");
    expect(speakerOf(nextSpeaker(s, "t", [{ speaker: "travel", text: "x", handoff_to: "flights" }, { speaker: "flights", text: "dates?", handoff_to: "user" }, { speaker: "user", text: "May 3" }]))).toBe("flights");
    expect(speakerOf(nextSpeaker(s, "t", [{ speaker: "travel", text: "no handoff" }]))).toBe("travel");
    expect(nextSpeaker(s, "t", [{ speaker: "travel", text: "x", handoff_to: "hotels" }]).kind).toBe("none");
  });
});

describe("termination conditions", () => {
  const turns = [
    { speaker: "primary", text: "Draft" },
    { speaker: "critic", text: "Looks good. APPROVE" },
  ];
  const cases: [string, Termination, ChatFacts, string | null][] = [
    ["text mention", { kind: "text_mention", text: "APPROVE", sources: null }, facts(), "Text 'APPROVE' mentioned"],
    ["text mention from other sources only", { kind: "text_mention", text: "APPROVE", sources: ["primary"] }, facts(), null],
    ["max messages (the request counts)", { kind: "max_message", max_messages: 3, include_agent_event: false }, facts(), "Maximum number of messages 3 reached, current message count: 3"],
    ["max messages not yet", { kind: "max_message", max_messages: 4, include_agent_event: false }, facts(), null],
    ["max messages with agent events", { kind: "max_message", max_messages: 4, include_agent_event: true }, facts({ agent_events: 2 }), "Maximum number of messages 4 reached, current message count: 5"],
    ["timeout", { kind: "timeout", timeout_seconds: 1 }, facts({ now_ms: 1500 }), "Timeout of 1 seconds reached"],
    ["token usage", { kind: "token_usage", max_total_token: 100, max_prompt_token: null, max_completion_token: null }, facts({ tokens: { prompt: 80, completion: 30 } }), "Token usage limit reached, total token count: 110, prompt token count: 80, completion token count: 30."],
    ["function call", { kind: "function_call", function_name: "calculator" }, facts({ tool_calls: ["calculator"] }), "Function 'calculator' was executed."],
    ["OR: the first that holds", { kind: "or", conditions: [{ kind: "max_message", max_messages: 10, include_agent_event: false }, { kind: "text_mention", text: "APPROVE", sources: null }] }, facts(), "Text 'APPROVE' mentioned"],
    ["AND: all must hold", { kind: "and", conditions: [{ kind: "max_message", max_messages: 10, include_agent_event: false }, { kind: "text_mention", text: "APPROVE", sources: null }] }, facts(), null],
    ["AND: both hold", { kind: "and", conditions: [{ kind: "max_message", max_messages: 2, include_agent_event: false }, { kind: "text_mention", text: "APPROVE", sources: null }] }, facts(), "Maximum number of messages 2 reached, current message count: 3; Text 'APPROVE' mentioned"],
  ];
  for (const [what, cond, f, expected] of cases) {
    it(what, () => expect(terminated(cond, turns, f)).toBe(expected));
  }

  it("applies to the task itself, as AutoGen applies it to the start messages", () => {
    const task = facts({ task: "Nothing to do. TERMINATE" });
    expect(terminated({ kind: "text_mention", text: "TERMINATE", sources: null }, [], task)).toBe("Text 'TERMINATE' mentioned");
    expect(terminated({ kind: "text_mention", text: "TERMINATE", sources: ["critic"] }, [], task)).toBeNull();
    expect(terminated({ kind: "source_match", sources: ["user"] }, [], task)).toBe("'user' answered");
    expect(terminated({ kind: "text_message", source: null }, [], task)).toBe("Text message received from 'user'");
    expect(terminated({ kind: "max_message", max_messages: 1, include_agent_event: false }, [], task)).toBe("Maximum number of messages 1 reached, current message count: 1");
    expect(terminated({ kind: "text_mention", text: "TERMINATE", sources: null }, [], facts({ task: "Write a poem" }))).toBeNull();
  });

  it("handoff", () => {
    expect(terminated({ kind: "handoff", target: "user" }, [{ speaker: "flights", text: "dates?", handoff_to: "user" }], facts())).toBe("Handoff to user from flights detected.");
  });
});
