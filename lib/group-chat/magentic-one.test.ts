/**
 * MagenticOneGroupChat as lib/group-chat/magentic-one.ts runs it, against AutoGen's
 * MagenticOneOrchestrator at microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14
 * (python/packages/autogen-agentchat/src/autogen_agentchat/teams/_group_chat/_magentic_one/
 * _magentic_one_orchestrator.py and _prompts.py). The AutoGen fixtures replay the answer lists of
 * python/packages/autogen-agentchat/tests/test_magentic_one_group_chat.py (ReplayChatCompletionClient,
 * _EchoAgent) and assert what those tests assert. The expected prompt texts below were filled by
 * Python's str.format from _prompts.py at that commit, not by the module.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_STALLS,
  DEFAULT_MAX_TURNS,
  LEDGER_RETRIES_EXHAUSTED,
  MAX_JSON_RETRIES,
  MAX_ROUNDS_REASON,
  ORCHESTRATOR_FINAL_ANSWER_PROMPT,
  ORCHESTRATOR_NAME,
  applyMagenticEvent,
  decideStep,
  extractJsonFromStr,
  factsMessages,
  finalAnswerMessages,
  foldMagentic,
  initialMagenticState,
  magenticTeam,
  nextAction,
  participantInbox,
  participantNames,
  planMessages,
  readLedgerAnswers,
  readProgressLedger,
  startStep,
  taskLedgerText,
  taskText,
  teamDescription,
  threadToContext,
  type MagenticEvent,
  type MagenticState,
  type MagenticTeam,
  type ModelMessage,
  type ProgressLedger,
  type ThreadMessage,
} from "./magentic-one";

const AUTOGEN_TESTS = "microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14 python/packages/autogen-agentchat/tests/test_magentic_one_group_chat.py";
const O = ORCHESTRATOR_NAME;

/** Python's json.dumps (", " and ": " separators), as AutoGen's tests write the answers. */
const dumps = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(dumps).join(", ")}]`
    : v !== null && typeof v === "object"
      ? `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${dumps(x)}`).join(", ")}}`
      : JSON.stringify(v);
const entry = (answer: unknown, reason = "test") => ({ answer, reason });
const ledger = (o: { satisfied?: unknown; progress?: unknown; loop?: unknown; instruction?: unknown; speaker?: unknown; reason?: string }) => ({
  is_request_satisfied: entry(o.satisfied ?? false, o.reason ?? "test"),
  is_progress_being_made: entry(o.progress ?? true),
  is_in_loop: entry(o.loop ?? false),
  instruction_or_question: entry(o.instruction ?? "Continue task"),
  next_speaker: entry(o.speaker ?? "agent_1"),
});

const echoTeam = (options: Parameters<typeof magenticTeam>[1] = {}) =>
  magenticTeam(
    [1, 2, 3, 4].map((i) => ({ name: `agent_${i}`, description: `echo agent ${i}` })),
    options,
  );

interface RunResult {
  /** The team's result.messages: the task, then every broadcast and response. */
  messages: ThreadMessage[];
  stop_reason: string | null;
  error: string | null;
  calls: string[];
  requests: ModelMessage[][];
  events: MagenticEvent[];
  states: MagenticState[];
  state: MagenticState;
}

/**
 * What Clutch's server does with this module, against a ReplayChatCompletionClient (the answers in
 * order, "No more mock responses available" when out) and AutoGen's _EchoAgent (answers with the first
 * message it was given, else its last answer; reset by the task ledger).
 */
function runTeam(team: MagenticTeam, task: string, completions: readonly string[]): RunResult {
  const replay = [...completions];
  /** The replay client's answer; out of answers, its ValueError ends the run. */
  const create = (messages: ModelMessage[]): string | null => {
    requests.push(messages);
    if (replay.length) return replay.shift()!;
    push({ kind: "failed", error: "ValueError: No more mock responses available" });
    return null;
  };
  const requests: ModelMessage[][] = [];
  const messages: ThreadMessage[] = [{ source: "user", content: task }];
  const calls: string[] = [];
  const events: MagenticEvent[] = [];
  const states: MagenticState[] = [];
  const echoLast = new Map<string, string>();
  let state = initialMagenticState();
  const push = (e: MagenticEvent) => {
    events.push(e);
    state = applyMagenticEvent(state, e, team);
    states.push(state);
  };
  push({ kind: "start", task });
  for (let guard = 0; guard < 500; guard++) {
    const a = nextAction(state, team);
    switch (a.kind) {
      case "done":
        return { messages, stop_reason: a.stop_reason, error: null, calls, requests, events, states, state };
      case "failed":
        return { messages, stop_reason: null, error: a.error, calls, requests, events, states, state };
      case "idle":
        throw new Error("idle");
      case "task_ledger":
        for (const name of a.reset) echoLast.delete(name);
        messages.push({ source: O, content: a.content });
        push({ kind: "task_ledger" });
        break;
      case "speak": {
        const inbox = participantInbox(state, a.speaker);
        const content = inbox.length ? inbox[0]!.content : echoLast.get(a.speaker)!;
        echoLast.set(a.speaker, content);
        const message = { source: a.speaker, content };
        messages.push(message);
        push({ kind: "message", message });
        break;
      }
      case "call": {
        calls.push(a.call);
        if (a.call === "progress_ledger") {
          const answers: string[] = [];
          for (;;) {
            const answer = create(a.messages);
            if (answer === null) break;
            answers.push(answer);
            const got = readLedgerAnswers(answers, participantNames(team.participants));
            if (got.kind === "ask_again") continue;
            push(got.kind === "ledger" ? { kind: "progress_ledger", ledger: got.ledger } : { kind: "failed", error: got.error });
            break;
          }
          if (state.phase === "speaker") messages.push(state.thread.at(-1)!);
        } else {
          const text = create(a.messages);
          if (text === null) break;
          if (a.call === "final_answer") {
            messages.push({ source: O, content: text });
            push({ kind: "final_answer", text });
          } else push({ kind: a.call === "facts" || a.call === "update_facts" ? "facts" : "plan", text });
        }
        break;
      }
    }
  }
  throw new Error("the run did not end");
}

const LEDGER_START = "\nWe are working to address the following user request:";

const TEAM = `coder: Writes and runs Python code.
web_surfer: Browses the web.`;
const FACTS_PROMPT = `Below I will present you a request. Before we begin addressing the request, please answer the following pre-survey to the best of your ability. Keep in mind that you are Ken Jennings-level with trivia, and Mensa-level with puzzles, so there should be a deep well to draw from.

Here is the request:

Find the {answer} to 2+2, then reply in JSON like {"x": 4}.

Here is the pre-survey:

    1. Please list any specific facts or figures that are GIVEN in the request itself. It is possible that there are none.
    2. Please list any facts that may need to be looked up, and WHERE SPECIFICALLY they might be found. In some cases, authoritative sources are mentioned in the request itself.
    3. Please list any facts that may need to be derived (e.g., via logical deduction, simulation, or computation)
    4. Please list any facts that are recalled from memory, hunches, well-reasoned guesses, etc.

When answering this survey, keep in mind that "facts" will typically be specific names, dates, statistics, etc. Your answer should use headings:

    1. GIVEN OR VERIFIED FACTS
    2. FACTS TO LOOK UP
    3. FACTS TO DERIVE
    4. EDUCATED GUESSES

DO NOT include any other headings or sections in your response. DO NOT list next steps or plans until asked to do so.
`;
const PLAN_PROMPT = `Fantastic. To address this request we have assembled the following team:

coder: Writes and runs Python code.
web_surfer: Browses the web.

Based on the team composition, and known and unknown facts, please devise a short bullet-point plan for addressing the original request. Remember, there is no requirement to involve all team members -- a team member's particular expertise may not be needed for this task.`;
const LEDGER = `
We are working to address the following user request:

Find the {answer} to 2+2, then reply in JSON like {"x": 4}.


To answer this request we have assembled the following team:

coder: Writes and runs Python code.
web_surfer: Browses the web.


Here is an initial fact sheet to consider:

1. GIVEN OR VERIFIED FACTS
- 2+2 is given


Here is the plan to follow as best as possible:

- coder computes 2+2
`;
const PROGRESS_PROMPT = `
Recall we are working on the following request:

Find the {answer} to 2+2, then reply in JSON like {"x": 4}.

And we have assembled the following team:

coder: Writes and runs Python code.
web_surfer: Browses the web.

To make progress on the request, please answer the following questions, including necessary reasoning:

    - Is the request fully satisfied? (True if complete, or False if the original request has yet to be SUCCESSFULLY and FULLY addressed)
    - Are we in a loop where we are repeating the same requests and / or getting the same responses as before? Loops can span multiple turns, and can include repeated actions like scrolling up or down more than a handful of times.
    - Are we making forward progress? (True if just starting, or recent messages are adding value. False if recent messages show evidence of being stuck in a loop or if there is evidence of significant barriers to success such as the inability to read from a required file)
    - Who should speak next? (select from: coder, web_surfer)
    - What instruction or question would you give this team member? (Phrase as if speaking directly to them, and include any specific information they may need)

Please output an answer in pure JSON format according to the following schema. The JSON object must be parsable as-is. DO NOT OUTPUT ANYTHING OTHER THAN JSON, AND DO NOT DEVIATE FROM THIS SCHEMA:

    {
       "is_request_satisfied": {
            "reason": string,
            "answer": boolean
        },
        "is_in_loop": {
            "reason": string,
            "answer": boolean
        },
        "is_progress_being_made": {
            "reason": string,
            "answer": boolean
        },
        "next_speaker": {
            "reason": string,
            "answer": string (select from: coder, web_surfer)
        },
        "instruction_or_question": {
            "reason": string,
            "answer": string
        }
    }
`;
const FACTS_UPDATE_PROMPT = `As a reminder, we are working to solve the following task:

Find the {answer} to 2+2, then reply in JSON like {"x": 4}.

It's clear we aren't making as much progress as we would like, but we may have learned something new. Please rewrite the following fact sheet, updating it to include anything new we have learned that may be helpful. Example edits can include (but are not limited to) adding new guesses, moving educated guesses to verified facts if appropriate, etc. Updates may be made to any section of the fact sheet, and more than one section of the fact sheet can be edited. This is an especially good time to update educated guesses, so please at least add or update one educated guess or hunch, and explain your reasoning.

Here is the old fact sheet:

1. GIVEN OR VERIFIED FACTS
- 2+2 is given
`;
const PLAN_UPDATE_PROMPT = `Please briefly explain what went wrong on this last run (the root cause of the failure), and then come up with a new plan that takes steps and/or includes hints to overcome prior challenges and especially avoids repeating the same mistakes. As before, the new plan should be concise, be expressed in bullet-point form, and consider the following team composition (do not involve any other outside people since we cannot contact anyone else):

coder: Writes and runs Python code.
web_surfer: Browses the web.
`;
const LEDGER_2 = `
We are working to address the following user request:

Find the {answer} to 2+2, then reply in JSON like {"x": 4}.


To answer this request we have assembled the following team:

coder: Writes and runs Python code.
web_surfer: Browses the web.


Here is an initial fact sheet to consider:

facts v2


Here is the plan to follow as best as possible:

plan v2
`;
const FINAL_PROMPT = `
We are working on the following task:
Find the {answer} to 2+2, then reply in JSON like {"x": 4}.

We have completed the task.

The above messages contain the conversation that took place to complete the task.

Based on the information gathered, provide the final answer to the original request.
The answer should be phrased as if you were speaking to the user.
`;

describe(`AutoGen's own tests (${AUTOGEN_TESTS})`, () => {
  it("test_magentic_one_group_chat_basic: 5 messages, the instruction, the final answer, stop reason 'Because'", () => {
    const task = "Write a program that prints 'Hello, world!'";
    const r = runTeam(echoTeam(), task, [
      "No facts",
      "No plan",
      dumps({
        is_request_satisfied: { answer: false, reason: "test" },
        is_progress_being_made: { answer: true, reason: "test" },
        is_in_loop: { answer: false, reason: "test" },
        instruction_or_question: { answer: "Continue task", reason: "test" },
        next_speaker: { answer: "agent_1", reason: "test" },
      }),
      dumps({
        is_request_satisfied: { answer: true, reason: "Because" },
        is_progress_being_made: { answer: true, reason: "test" },
        is_in_loop: { answer: false, reason: "test" },
        instruction_or_question: { answer: "Task completed", reason: "Because" },
        next_speaker: { answer: "agent_1", reason: "test" },
      }),
      "print('Hello, world!')",
    ]);
    expect(r.error).toBeNull();
    expect(r.messages).toHaveLength(5);
    expect(r.messages[2]!.content).toBe("Continue task");
    expect(r.messages[4]!.content).toBe("print('Hello, world!')");
    expect(r.stop_reason).toBe("Because");
    // Beyond AutoGen's asserts: who said what, and in what order the calls went.
    expect(r.messages.map((m) => m.source)).toEqual(["user", O, O, "agent_1", O]);
    expect(r.messages[1]!.content.startsWith(LEDGER_START)).toBe(true);
    expect(r.messages[3]!.content).toBe(r.messages[1]!.content); // _EchoAgent answers with the first message it got: the ledger
    expect(r.calls).toEqual(["facts", "plan", "progress_ledger", "progress_ledger", "final_answer"]);
    expect(r.state).toMatchObject({ task, facts: "No facts", plan: "No plan", n_rounds: 2, n_stalls: 0, phase: "done" });
  });

  it("test_magentic_one_group_chat_basic, save and load: the state folded from the stored events is the live state, at every point", () => {
    const r = runTeam(echoTeam(), "Write a program that prints 'Hello, world!'", [
      "No facts",
      "No plan",
      dumps(ledger({ instruction: "Continue task" })),
      dumps(ledger({ satisfied: true, reason: "Because", instruction: "Task completed" })),
      "print('Hello, world!')",
    ]);
    const team = echoTeam();
    for (let k = 1; k <= r.events.length; k++) expect(foldMagentic(r.events.slice(0, k), team)).toEqual(r.states[k - 1]);
    // A restart mid-run: rebuilt from the first events, the rest applied to the rebuilt state.
    const mid = foldMagentic(r.events.slice(0, 5), team);
    expect(mid).toMatchObject({ phase: "speaker", speaker: "agent_1", n_rounds: 1 });
    expect(nextAction(mid, team)).toEqual({ kind: "speak", speaker: "agent_1", instruction: "Continue task" });
    expect(foldMagentic(r.events.slice(5), team, mid)).toEqual(r.state);
    expect(r.state.thread.map((m) => [m.source, m.content.slice(0, 20)])).toEqual([
      [O, LEDGER_START.slice(0, 20)],
      [O, "Continue task"],
      ["agent_1", LEDGER_START.slice(0, 20)],
      [O, "print('Hello, world!"],
    ]);
  });

  it("test_magentic_one_group_chat_with_stalls (max_stalls=2): two stalls replan; 6 messages, the ledger at 1 and 4, stop reason 'test'", () => {
    const r = runTeam(echoTeam({ max_stalls: 2 }), "Write a program that prints 'Hello, world!'", [
      "No facts",
      "No plan",
      dumps({
        is_request_satisfied: { answer: false, reason: "test" },
        is_progress_being_made: { answer: false, reason: "test" },
        is_in_loop: { answer: true, reason: "test" },
        instruction_or_question: { answer: "Stalling", reason: "test" },
        next_speaker: { answer: "agent_1", reason: "test" },
      }),
      dumps({
        is_request_satisfied: { answer: false, reason: "test" },
        is_progress_being_made: { answer: false, reason: "test" },
        is_in_loop: { answer: true, reason: "test" },
        instruction_or_question: { answer: "Stalling again", reason: "test" },
        next_speaker: { answer: "agent_2", reason: "test" },
      }),
      "No facts2",
      "No plan2",
      dumps({
        is_request_satisfied: { answer: true, reason: "test" },
        is_progress_being_made: { answer: true, reason: "test" },
        is_in_loop: { answer: false, reason: "test" },
        instruction_or_question: { answer: "Task completed", reason: "test" },
        next_speaker: { answer: "agent_3", reason: "test" },
      }),
      "print('Hello, world!')",
    ]);
    expect(r.messages).toHaveLength(6);
    expect(r.messages[1]!.content.startsWith(LEDGER_START)).toBe(true);
    expect(r.messages[4]!.content.startsWith(LEDGER_START)).toBe(true);
    expect(r.stop_reason).toBe("test");
    // Beyond AutoGen's asserts: the second instruction is never broadcast, agent_2 never speaks.
    expect(r.messages.map((m) => [m.source, m.content.startsWith(LEDGER_START) ? "ledger" : m.content])).toEqual([
      ["user", "Write a program that prints 'Hello, world!'"],
      [O, "ledger"],
      [O, "Stalling"],
      ["agent_1", "ledger"],
      [O, "ledger"],
      [O, "print('Hello, world!')"],
    ]);
    expect(r.calls).toEqual(["facts", "plan", "progress_ledger", "progress_ledger", "update_facts", "update_plan", "progress_ledger", "final_answer"]);
    expect(r.messages[4]!.content).toContain("No facts2");
    expect(r.messages[4]!.content).toContain("No plan2");
    // The replan keeps the counters: n_stalls stays at max_stalls, n_rounds goes on.
    expect(r.state).toMatchObject({ facts: "No facts2", plan: "No plan2", n_rounds: 3, n_stalls: 2 });
    // The re-planned ledger cleared the thread: the final answer call saw only it.
    const final = r.requests.at(-1)!;
    expect(final.map((m) => m.role)).toEqual(["assistant", "user"]);
    expect(final[0]!.content).toBe(r.messages[4]!.content);
  });

  it("test_magentic_one_group_chat_cancellation's ledger answer (only is_request_satisfied) does not parse: AutoGen asks again", () => {
    const answer = dumps({ is_request_satisfied: { answer: true, reason: "test" } });
    expect(answer).toBe('{"is_request_satisfied": {"answer": true, "reason": "test"}}');
    const read = readProgressLedger(answer, ["agent_1", "agent_2", "agent_3", "agent_4"]);
    expect(read).toMatchObject({ ok: false, retry: true, error: `Failed to parse ledger information, retrying: ${answer}` });
    const r = runTeam(echoTeam(), "Write a program that prints 'Hello, world!'", ["test", "test", answer]);
    // Asked again with the same messages; the replay client has no fourth answer.
    expect(r.calls).toEqual(["facts", "plan", "progress_ledger"]);
    expect(r.requests).toHaveLength(4);
    expect(r.requests[3]).toEqual(r.requests[2]);
    expect(r.error).toBe("ValueError: No more mock responses available");
    expect(r.state).toMatchObject({ phase: "failed", n_rounds: 1 });
  });
});


describe("the exact messages of each call (a small example; expected texts filled from _prompts.py by Python)", () => {
  const team = magenticTeam(
    [
      { name: "coder", description: "Writes  and\n runs\tPython code." },
      { name: "web_surfer", description: "  Browses the web.  " },
    ],
    { max_stalls: 1 },
  );
  const task = 'Find the {answer} to 2+2, then reply in JSON like {"x": 4}.';
  const facts = "1. GIVEN OR VERIFIED FACTS\n- 2+2 is given";
  const plan = "- coder computes 2+2";
  const u = (content: string, source = O): ModelMessage => ({ role: "user", content, source });
  const a = (content: string): ModelMessage => ({ role: "assistant", content, source: O });

  it("builds the team description and names as the orchestrator does", () => {
    expect(teamDescription(team.participants)).toBe(TEAM);
    expect(participantNames(team.participants)).toEqual(["coder", "web_surfer"]);
    expect(teamDescription([{ name: "x", description: null }, { name: "y", description: "\u00a0why\u3000 not " }])).toBe("x:\ny: why not");
    expect(taskText(["first", "second"])).toBe("first second");
  });

  it("walks facts → plan → task ledger → progress ledger → speaker → stall → facts update → plan update → ledger → final answer", () => {
    let s = applyMagenticEvent(initialMagenticState(), { kind: "start", task }, team);
    expect(nextAction(s, team)).toEqual({ kind: "call", call: "facts", messages: [u(FACTS_PROMPT)] });
    expect(factsMessages(task)).toEqual([u(FACTS_PROMPT)]);

    s = applyMagenticEvent(s, { kind: "facts", text: facts }, team);
    expect(nextAction(s, team)).toEqual({ kind: "call", call: "plan", messages: [u(FACTS_PROMPT), a(facts), u(PLAN_PROMPT)] });
    expect(planMessages(task, facts, team)).toEqual([u(FACTS_PROMPT), a(facts), u(PLAN_PROMPT)]);

    s = applyMagenticEvent(s, { kind: "plan", text: plan }, team);
    expect(nextAction(s, team)).toEqual({ kind: "task_ledger", content: LEDGER, reset: ["coder", "web_surfer"] });
    expect(taskLedgerText(task, TEAM, facts, plan)).toBe(LEDGER);

    s = applyMagenticEvent(s, { kind: "task_ledger" }, team);
    expect(s.thread).toEqual([{ source: O, content: LEDGER }]);
    expect(nextAction(s, team)).toEqual({ kind: "call", call: "progress_ledger", messages: [a(LEDGER), u(PROGRESS_PROMPT)] });

    s = applyMagenticEvent(s, { kind: "progress_ledger", ledger: ledger({ speaker: "coder", instruction: "Compute 2+2 in Python." }) }, team);
    expect(nextAction(s, team)).toEqual({ kind: "speak", speaker: "coder", instruction: "Compute 2+2 in Python." });
    expect(participantInbox(s, "coder")).toEqual([{ source: O, content: LEDGER }, { source: O, content: "Compute 2+2 in Python." }]);

    s = applyMagenticEvent(s, { kind: "message", message: { source: "coder", content: "4" } }, team);
    const thread = [a(LEDGER), a("Compute 2+2 in Python."), u("4", "coder")];
    expect(nextAction(s, team)).toEqual({ kind: "call", call: "progress_ledger", messages: [...thread, u(PROGRESS_PROMPT)] });
    expect(finalAnswerMessages(s.thread, task, team)).toEqual([...thread, u(FINAL_PROMPT)]);
    expect(participantInbox(s, "coder")).toEqual([]);
    expect(participantInbox(s, "web_surfer")).toHaveLength(3);

    // max_stalls 1: one stall replans.
    s = applyMagenticEvent(s, { kind: "progress_ledger", ledger: ledger({ progress: false, speaker: "coder" }) }, team);
    expect(s).toMatchObject({ phase: "update_facts", n_rounds: 2, n_stalls: 1 });
    expect(nextAction(s, team)).toEqual({ kind: "call", call: "update_facts", messages: [...thread, u(FACTS_UPDATE_PROMPT)] });

    s = applyMagenticEvent(s, { kind: "facts", text: "facts v2" }, team);
    expect(nextAction(s, team)).toEqual({
      kind: "call",
      call: "update_plan",
      messages: [...thread, u(FACTS_UPDATE_PROMPT), a("facts v2"), u(PLAN_UPDATE_PROMPT)],
    });

    s = applyMagenticEvent(s, { kind: "plan", text: "plan v2" }, team);
    expect(nextAction(s, team)).toEqual({ kind: "task_ledger", content: LEDGER_2, reset: ["coder", "web_surfer"] });
    s = applyMagenticEvent(s, { kind: "task_ledger" }, team);
    expect(s.thread).toEqual([{ source: O, content: LEDGER_2 }]);
    expect(s).toMatchObject({ n_rounds: 2, n_stalls: 1, facts: "facts v2", plan: "plan v2" });

    s = applyMagenticEvent(s, { kind: "progress_ledger", ledger: ledger({ satisfied: true, reason: "2+2 is 4" }) }, team);
    expect(nextAction(s, team)).toEqual({ kind: "call", call: "final_answer", messages: [a(LEDGER_2), u(FINAL_PROMPT)] });
    s = applyMagenticEvent(s, { kind: "final_answer", text: '{"x": 4}' }, team);
    expect(nextAction(s, team)).toEqual({ kind: "done", stop_reason: "2+2 is 4" });
    expect(s.thread.at(-1)).toEqual({ source: O, content: '{"x": 4}' });
  });

  it("sends a custom final_answer_prompt as written, unformatted; the default one filled", () => {
    const custom = magenticTeam(team.participants, { final_answer_prompt: "Answer {task} briefly." });
    expect(finalAnswerMessages([], task, custom)).toEqual([u("Answer {task} briefly.")]);
    const same = magenticTeam(team.participants, { final_answer_prompt: ORCHESTRATOR_FINAL_ANSWER_PROMPT });
    expect(finalAnswerMessages([], task, same)).toEqual([u(FINAL_PROMPT)]);
  });

  it("makes the orchestrator's messages assistant and the rest user, StopMessage and HandoffMessage user whoever sent them", () => {
    expect(
      threadToContext([
        { source: O, content: "a" },
        { source: O, content: "b", type: "ToolCallSummaryMessage" },
        { source: O, content: "c", type: "StopMessage" },
        { source: "coder", content: "d", type: "HandoffMessage" },
        { source: "coder", content: "e" },
        { source: "user", content: "f" },
      ]).map((m) => [m.role, m.content, m.source]),
    ).toEqual([
      ["assistant", "a", O],
      ["assistant", "b", O],
      ["user", "c", O],
      ["user", "d", "coder"],
      ["user", "e", "coder"],
      ["user", "f", "user"],
    ]);
  });
});

describe("readProgressLedger / readLedgerAnswers (AutoGen's retry loop and extract_json_from_str)", () => {
  const names = ["agent_1", "agent_2"];
  const valid = dumps(ledger({}));

  it("reads plain JSON and ```json fences, with or without the language, in any case, with text around", () => {
    for (const text of [valid, "```json\n" + valid + "\n```", "```\n" + valid + "```", "```JSON\n" + valid + "\n```", "Here:\n```json\n" + valid + "\n```\nDone."]) {
      const r = readProgressLedger(text, names);
      expect(r.ok ? r.ledger.next_speaker.answer : r).toBe("agent_1");
    }
    expect(extractJsonFromStr("```json\n[1]\n``` and ```\n{}\n```")).toEqual([[1], {}]);
  });

  it("asks again on invalid JSON (a fence needs a newline after ``` and the language)", () => {
    for (const text of ["not json", "", "```json " + valid + "```", "{'a': 1}"]) {
      expect(readProgressLedger(text, names)).toMatchObject({ ok: false, retry: true, error: "Invalid ledger format encountered, retrying..." });
    }
  });

  it("ends the chat on a fence in another language, and on more or fewer than one JSON value (len of what was held before)", () => {
    expect(readProgressLedger("```python\n" + valid + "\n```", names)).toMatchObject({ ok: false, retry: false, error: "ValueError: Expected JSON object, but found language: python" });
    const two = "```json\n" + valid + "\n```\n```json\n" + valid + "\n```";
    expect(readProgressLedger(two, names)).toMatchObject({ ok: false, retry: false, error: "ValueError: Progress ledger should contain a single JSON object, but found: 0" });
    // The first answer asks again (an entry is not an object) and leaves a 2-key object held.
    expect(readLedgerAnswers(['{"is_request_satisfied": "yes", "b": 2}', two], names)).toEqual({ kind: "failed", error: "ValueError: Progress ledger should contain a single JSON object, but found: 2", calls: 2 });
    // An object missing is_request_satisfied is a KeyError, which AutoGen does not catch.
    expect(readLedgerAnswers(['{"a": 1, "b": 2}', two], names)).toEqual({ kind: "failed", error: "KeyError: 'is_request_satisfied'", calls: 1 });
    // A number held: len() raises TypeError, which AutoGen catches and asks again.
    expect(readLedgerAnswers(["5", two], names)).toMatchObject({ kind: "ask_again", calls: 2 });
    // Invalid JSON in the first fence is read before the second fence's language.
    expect(readProgressLedger("```json\nnope\n```\n```python\n{}\n```", names)).toMatchObject({ ok: false, retry: true });
  });

  it("asks again when an entry lacks reason or answer, or is not an object, or the answer is not an object", () => {
    const noReason = dumps({ ...ledger({}), is_in_loop: { answer: false } });
    expect(readProgressLedger(noReason, names)).toMatchObject({ ok: false, retry: true, error: `Failed to parse ledger information, retrying: ${noReason}` });
    expect(readProgressLedger(dumps({ ...ledger({}), instruction_or_question: "go" }), names)).toMatchObject({ ok: false, retry: true });
    expect(readProgressLedger(dumps({ ...ledger({}), is_request_satisfied: "no" }), names)).toMatchObject({ ok: false, retry: true });
    for (const text of ["[1, 2]", "null", "true", '"is_request_satisfied"']) expect(readProgressLedger(text, names)).toMatchObject({ ok: false, retry: true });
  });

  it("ends the chat at once when the next speaker is not a participant and the request is not satisfied", () => {
    const wrong = dumps(ledger({ speaker: "agent_9" }));
    expect(readProgressLedger(wrong, names)).toMatchObject({ ok: false, retry: false, error: `ValueError: ${LEDGER_RETRIES_EXHAUSTED}` });
    expect(readLedgerAnswers([wrong, valid], names)).toEqual({ kind: "failed", error: `ValueError: ${LEDGER_RETRIES_EXHAUSTED}`, calls: 1 });
    // Even with a structure error before it.
    expect(readProgressLedger(dumps({ ...ledger({ speaker: 3 }), is_in_loop: 1 }), names)).toMatchObject({ ok: false, retry: false });
    // Satisfied: the speaker is not checked. Python truthiness: "false" is true.
    expect(readProgressLedger(dumps(ledger({ satisfied: true, speaker: "agent_9" })), names)).toMatchObject({ ok: true });
    expect(readProgressLedger(dumps(ledger({ satisfied: "false", speaker: "agent_9" })), names)).toMatchObject({ ok: true });
    expect(readProgressLedger(dumps(ledger({ satisfied: 0, speaker: "agent_9" })), names)).toMatchObject({ ok: false, retry: false });
  });

  it("ends the chat with a KeyError when an entry read for the speaker check is missing", () => {
    const { next_speaker: _n, ...noSpeaker } = ledger({});
    expect(readProgressLedger(dumps(noSpeaker), names)).toMatchObject({ ok: false, retry: false, error: "KeyError: 'next_speaker'" });
    const { is_request_satisfied: _s, ...noSatisfied } = ledger({});
    expect(readProgressLedger(dumps(noSatisfied), names)).toMatchObject({ ok: false, retry: false, error: "KeyError: 'is_request_satisfied'" });
    expect(readProgressLedger(dumps({ ...ledger({}), is_request_satisfied: {} }), names)).toMatchObject({ ok: false, retry: false, error: "KeyError: 'answer'" });
    // Satisfied and no next_speaker: not read, so AutoGen asks again.
    const { next_speaker: _m, ...done } = ledger({ satisfied: true });
    expect(readProgressLedger(dumps(done), names)).toMatchObject({ ok: false, retry: true });
  });

  it("names the only participant the next speaker, whatever the model said", () => {
    const r = readProgressLedger(dumps(ledger({ speaker: "nobody" })), ["solo"]);
    expect(r.ok && r.ledger.next_speaker).toEqual({ reason: "The team consists of only one agent.", answer: "solo" });
    const { next_speaker: _n, ...noSpeaker } = ledger({});
    expect(readProgressLedger(dumps(noSpeaker), ["solo"])).toMatchObject({ ok: true });
  });

  it(`asks at most ${MAX_JSON_RETRIES} times, then ends the chat with AutoGen's ValueError`, () => {
    const bad = Array.from({ length: MAX_JSON_RETRIES }, () => "nope");
    expect(readLedgerAnswers([], names)).toMatchObject({ kind: "ask_again", calls: 0 });
    expect(readLedgerAnswers(bad.slice(1), names)).toMatchObject({ kind: "ask_again", calls: 9, log: "Invalid ledger format encountered, retrying..." });
    expect(readLedgerAnswers([...bad.slice(1), valid], names)).toMatchObject({ kind: "ledger", calls: 10 });
    expect(readLedgerAnswers(bad, names)).toEqual({ kind: "failed", error: `ValueError: ${LEDGER_RETRIES_EXHAUSTED}`, calls: 10 });
    expect(readLedgerAnswers([...bad, valid], names)).toMatchObject({ kind: "failed", calls: 10 });
  });
});

describe("the step decision (_orchestrate_step after a valid ledger)", () => {
  const team = { max_turns: DEFAULT_MAX_TURNS, max_stalls: DEFAULT_MAX_STALLS };
  const L = (o: Parameters<typeof ledger>[0]) => ledger(o) as ProgressLedger;

  it("counts the round, then speaks, the stall count going down by one but not below 0", () => {
    expect(decideStep(L({ instruction: "Go", speaker: "agent_2" }), { n_rounds: 0, n_stalls: 0 }, team)).toEqual({ kind: "speak", speaker: "agent_2", instruction: "Go", n_rounds: 1, n_stalls: 0 });
    expect(decideStep(L({}), { n_rounds: 4, n_stalls: 2 }, team)).toMatchObject({ kind: "speak", n_rounds: 5, n_stalls: 1 });
  });

  it("counts a stall once when there is no progress, or a loop, or both", () => {
    for (const o of [{ progress: false }, { loop: true }, { progress: false, loop: true }, { progress: "", loop: [] }, { progress: 1, loop: "no" }]) {
      expect(decideStep(L(o), { n_rounds: 0, n_stalls: 0 }, team)).toMatchObject({ kind: "speak", n_stalls: 1 });
    }
  });

  it("replans when the stalls reach max_stalls, keeping the counters", () => {
    expect(decideStep(L({ progress: false }), { n_rounds: 5, n_stalls: 2 }, team)).toEqual({ kind: "replan", n_rounds: 6, n_stalls: 3 });
    // After the replan n_stalls is still 3: one more stall replans again, progress brings it back under.
    expect(decideStep(L({ loop: true }), { n_rounds: 6, n_stalls: 3 }, team)).toEqual({ kind: "replan", n_rounds: 7, n_stalls: 4 });
    expect(decideStep(L({}), { n_rounds: 6, n_stalls: 3 }, team)).toMatchObject({ kind: "speak", n_stalls: 2 });
  });

  it("ends with the satisfied ledger's reason before counting stalls", () => {
    expect(decideStep(L({ satisfied: true, progress: false, reason: "Done" }), { n_rounds: 2, n_stalls: 2 }, team)).toEqual({ kind: "final_answer", reason: "Done", error: null, n_rounds: 3, n_stalls: 2 });
    expect(decideStep({ ...L({ satisfied: true }), is_request_satisfied: { answer: true, reason: 7 } }, { n_rounds: 0, n_stalls: 0 }, team)).toMatchObject({
      kind: "final_answer",
      reason: null,
      error: expect.stringContaining("validation error for StopMessage"),
    });
    expect(decideStep(L({ instruction: 42 }), { n_rounds: 0, n_stalls: 0 }, team)).toMatchObject({ kind: "error", error: expect.stringContaining("validation error for TextMessage") });
  });

  it("ends with 'Max rounds reached.' once n_rounds > max_turns, before any ledger; never without max_turns", () => {
    expect(startStep({ n_rounds: 20, n_stalls: 1 }, team)).toEqual({ kind: "progress_ledger", n_rounds: 21, n_stalls: 1 });
    expect(startStep({ n_rounds: 21, n_stalls: 1 }, team)).toEqual({ kind: "final_answer", reason: MAX_ROUNDS_REASON, n_rounds: 21, n_stalls: 1 });
    expect(decideStep(L({ satisfied: true }), { n_rounds: 21, n_stalls: 0 }, team)).toMatchObject({ kind: "final_answer", reason: "Max rounds reached." });
    expect(startStep({ n_rounds: 1e6, n_stalls: 0 }, { max_turns: null })).toMatchObject({ kind: "progress_ledger" });
  });

  it("runs max_turns + 1 progress ledgers, then the final answer, in a whole run", () => {
    const answers = ["f", "p", ...Array.from({ length: 3 }, (_, i) => dumps(ledger({ instruction: `step ${i}`, speaker: i % 2 ? "agent_2" : "agent_1" }))), "the answer"];
    const r = runTeam(echoTeam({ max_turns: 2 }), "t", answers);
    expect(r.calls).toEqual(["facts", "plan", "progress_ledger", "progress_ledger", "progress_ledger", "final_answer"]);
    expect(r.stop_reason).toBe(MAX_ROUNDS_REASON);
    expect(r.messages.map((m) => m.source)).toEqual(["user", O, O, "agent_1", O, "agent_2", O, "agent_1", O]);
    expect(r.messages.at(-1)!.content).toBe("the answer");
    expect(r.state).toMatchObject({ n_rounds: 3, phase: "done" });
    expect(foldMagentic(r.events, echoTeam({ max_turns: 2 }))).toEqual(r.state);
  });

  it("replans after max_stalls in a whole run; past max_stalls, one step of progress is not enough to stop replanning", () => {
    const stall = (i: number) => dumps(ledger({ progress: false, instruction: `try ${i}` }));
    const ok = (i: number) => dumps(ledger({ instruction: `ok ${i}` }));
    const answers = ["f", "p", stall(1), stall(2), stall(3), "f2", "p2", stall(4), "f3", "p3", ok(1), "f4", "p4", ok(2), dumps(ledger({ satisfied: true, reason: "r" })), "end"];
    const r = runTeam(echoTeam({ max_stalls: 3 }), "t", answers);
    expect(r.calls).toEqual([
      "facts", "plan", "progress_ledger", "progress_ledger", "progress_ledger", "update_facts", "update_plan",
      "progress_ledger", "update_facts", "update_plan", // stall 4: n_stalls 4
      "progress_ledger", "update_facts", "update_plan", // progress: max(0, 4 - 1) = 3, still ≥ 3
      "progress_ledger", "progress_ledger", "final_answer", // progress: 2, speak; then satisfied
    ]);
    expect(r.messages.filter((m) => m.source === O && !m.content.startsWith(LEDGER_START)).map((m) => m.content)).toEqual(["try 1", "try 2", "ok 2", "end"]);
    expect(r.messages.filter((m) => m.content.startsWith(LEDGER_START) && m.source === O)).toHaveLength(4);
    expect(r.state).toMatchObject({ facts: "f4", plan: "p4", n_rounds: 7, n_stalls: 2, stop_reason: "r" });
  });
});

describe("the orchestrator's state", () => {
  const team = echoTeam();
  const started = foldMagentic([{ kind: "start", task: "t" }, { kind: "facts", text: "f" }, { kind: "plan", text: "p" }, { kind: "task_ledger" }], team);

  it("refuses events that do not fit where the run is", () => {
    expect(() => applyMagenticEvent(initialMagenticState(), { kind: "plan", text: "p" }, team)).toThrow(/plan event does not fit the idle phase/);
    expect(() => applyMagenticEvent(started, { kind: "message", message: { source: "agent_1", content: "x" } }, team)).toThrow();
    expect(() => applyMagenticEvent(started, { kind: "start", task: "again" }, team)).toThrow();
  });

  it("stops on the termination condition after a response, without a final answer", () => {
    const s = foldMagentic([{ kind: "progress_ledger", ledger: ledger({}) as ProgressLedger }, { kind: "message", message: { source: "agent_1", content: "TERMINATE" } }, { kind: "terminated", reason: "Text 'TERMINATE' mentioned" }], team, started);
    expect(nextAction(s, team)).toEqual({ kind: "done", stop_reason: "Text 'TERMINATE' mentioned" });
    expect(s.thread.at(-1)).toEqual({ source: "agent_1", content: "TERMINATE" });
  });

  it("fails after the final answer when the satisfied reason is not a string", () => {
    const s = foldMagentic([{ kind: "progress_ledger", ledger: { ...(ledger({ satisfied: true }) as ProgressLedger), is_request_satisfied: { answer: true, reason: null } } }, { kind: "final_answer", text: "answer" }], team, started);
    expect(s.phase).toBe("failed");
    expect(s.thread.at(-1)!.content).toBe("answer");
    expect(s.error).toContain("StopMessage");
  });

  it("keeps n_rounds across a new task, as AutoGen does until the team is reset, and resets n_stalls with the plan", () => {
    const done = foldMagentic([{ kind: "progress_ledger", ledger: ledger({ progress: false }) as ProgressLedger }, { kind: "message", message: { source: "agent_1", content: "x" } }, { kind: "progress_ledger", ledger: ledger({ satisfied: true }) as ProgressLedger }, { kind: "final_answer", text: "a" }], team, started);
    expect(done).toMatchObject({ phase: "done", n_rounds: 2, n_stalls: 1 });
    const again = foldMagentic([{ kind: "start", task: "t2" }, { kind: "facts", text: "f2" }, { kind: "plan", text: "p2" }], team, done);
    expect(again).toMatchObject({ task: "t2", n_rounds: 2, n_stalls: 0, phase: "task_ledger" });
    expect(again.thread).toEqual(done.thread); // cleared only when the new ledger is broadcast
  });
});
