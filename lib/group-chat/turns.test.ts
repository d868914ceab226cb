/**
 * AutoGen's group-chat patterns as lib/group-chat/turns.ts decides them: round robin in the
 * team's order, the selector's candidates, prompt and answer as AutoGen reads them, a Swarm's
 * handoffs (to the people and back), and each termination condition with AND/OR, in AutoGen's words.
 */
import { describe, expect, it } from "vitest";
import { nextSpeaker, parseSelection, selectorPrompt, terminated, type ChatFacts, type GroupChatShape, type Participant, type Termination } from "./turns";

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
    expect(next.prompt).toBe("Roles:\nplanner: plans\ncoder: writes code\nuser: the person\nPick one of ['coder', 'user'].\nuser: Build a CLI\nplanner: Plan: two steps");
    const again = nextSpeaker({ ...s, allow_repeated_speaker: true }, "Build a CLI", [{ speaker: "planner", text: "x" }]);
    expect(again.kind === "select" && again.candidates.map((c) => c.name)).toEqual(["planner", "coder", "user"]);
    expect(selectorPrompt({ ...s, selector_prompt: null }, "t", [], [agent("coder")])).toContain("select the next role from ['coder'] to play");
  });

  it("takes the one candidate the answer names, else none", () => {
    const c = [agent("coder"), agent("critic")];
    expect(parseSelection("coder", c)?.name).toBe("coder");
    expect(parseSelection("I pick critic.", c)?.name).toBe("critic");
    expect(parseSelection("coder or critic", c)).toBeNull();
    expect(parseSelection("nobody", c)).toBeNull();
    expect(parseSelection("coders", c)).toBeNull();
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

  it("handoff", () => {
    expect(terminated({ kind: "handoff", target: "user" }, [{ speaker: "flights", text: "dates?", handoff_to: "user" }], facts())).toBe("Handoff to user from flights detected.");
  });
});
