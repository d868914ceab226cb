/**
 * MagenticOneGroupChat as Clutch runs it (docs/adapters.md "AutoGen: group chats"): everything AutoGen's
 * MagenticOneOrchestrator does between its model calls, pure, so the server's runner makes the calls,
 * stores what comes back as events, and rebuilds the orchestrator from them after a restart.
 *
 * Source: microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14,
 * python/packages/autogen-agentchat/src/autogen_agentchat/teams/_group_chat/_magentic_one/
 * _magentic_one_orchestrator.py (MagenticOneOrchestrator), _prompts.py (the prompts below, verbatim),
 * _magentic_one_group_chat.py (defaults: max_turns 20, max_stalls 3, the default final answer prompt), and
 * python/packages/autogen-core/src/autogen_core/utils/_load_json.py (`extract_json_from_str`).
 *
 * How AutoGen runs the team (the orchestrator's messages have the source "MagenticOneOrchestrator"):
 * 1. Outer loop (`handle_start`): task = the task messages' texts joined by " ". Facts call
 *    [user: facts prompt]; plan call [user: facts prompt, assistant: facts, user: plan prompt]. n_stalls = 0.
 * 2. `_reenter_outer_loop`: every participant is reset (GroupChatReset: its buffer cleared, `on_reset`),
 *    the orchestrator's thread is cleared, and the full task ledger (task, team, facts, plan) is broadcast
 *    as the orchestrator's message, the thread's first; then a step.
 * 3. Inner loop (`_orchestrate_step`): if max_turns is set and n_rounds > max_turns → final answer,
 *    stop reason "Max rounds reached."; else n_rounds += 1 and the progress ledger call [thread as
 *    context…, user: progress prompt], asked again with the same messages up to 10 times while the
 *    answer does not parse. Then: request satisfied → final answer, stop reason = its `reason`;
 *    stall count: +1 if no progress, else +1 if in a loop, else max(0, n − 1); n_stalls ≥ max_stalls →
 *    facts-update and plan-update calls, then step 2 again (n_stalls and n_rounds are not reset);
 *    else the instruction is broadcast as the orchestrator's message and the named participant speaks.
 * 4. A participant's response (its chat message only, not its inner events) joins the thread; the team's
 *    termination condition sees that response (with its inner events), and only that: never the task nor
 *    the orchestrator's messages; if it fires, the chat stops with its reason and no final answer. Else step 3.
 * 5. Final answer call [thread…, user: final answer prompt]; its text is broadcast as the orchestrator's
 *    last message and the chat stops with the stop reason.
 *
 * The model sees no system message. `_thread_to_context` makes the orchestrator's own messages
 * `assistant` and every other message `user` (a StopMessage or HandoffMessage is `user` whoever sent it),
 * with the content as is: no name prefix. Each message keeps its `source`, which AutoGen's OpenAI client
 * sends as the message's `name` (and prefixes as "source said:\n" only with `add_name_prefixes`).
 */

/** The orchestrator's name: the source of its messages (MagenticOneGroupChat's group_chat_manager_name). */
export const ORCHESTRATOR_NAME = "MagenticOneOrchestrator";
/** MagenticOneGroupChat's defaults. */
export const DEFAULT_MAX_TURNS = 20;
export const DEFAULT_MAX_STALLS = 3;
/** How many progress ledger calls AutoGen makes before giving up (`self._max_json_retries`). */
export const MAX_JSON_RETRIES = 10;
/** The ValueError AutoGen raises when no answer gave a valid ledger; the chat then ends with that error. */
export const LEDGER_RETRIES_EXHAUSTED = "Failed to parse ledger information after multiple retries.";
/** The stop reason when n_rounds passed max_turns. */
export const MAX_ROUNDS_REASON = "Max rounds reached.";
/** The ledger's keys, in the order AutoGen checks them. */
export const PROGRESS_LEDGER_KEYS = ["is_request_satisfied", "is_progress_being_made", "is_in_loop", "instruction_or_question", "next_speaker"] as const;

// The prompts of _prompts.py, verbatim (ORCHESTRATOR_SYSTEM_MESSAGE, "", is not used by the orchestrator).

export const ORCHESTRATOR_TASK_LEDGER_FACTS_PROMPT = `Below I will present you a request. Before we begin addressing the request, please answer the following pre-survey to the best of your ability. Keep in mind that you are Ken Jennings-level with trivia, and Mensa-level with puzzles, so there should be a deep well to draw from.

Here is the request:

{task}

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

export const ORCHESTRATOR_TASK_LEDGER_PLAN_PROMPT = `Fantastic. To address this request we have assembled the following team:

{team}

Based on the team composition, and known and unknown facts, please devise a short bullet-point plan for addressing the original request. Remember, there is no requirement to involve all team members -- a team member's particular expertise may not be needed for this task.`;

export const ORCHESTRATOR_TASK_LEDGER_FULL_PROMPT = `
We are working to address the following user request:

{task}


To answer this request we have assembled the following team:

{team}


Here is an initial fact sheet to consider:

{facts}


Here is the plan to follow as best as possible:

{plan}
`;

export const ORCHESTRATOR_PROGRESS_LEDGER_PROMPT = `
Recall we are working on the following request:

{task}

And we have assembled the following team:

{team}

To make progress on the request, please answer the following questions, including necessary reasoning:

    - Is the request fully satisfied? (True if complete, or False if the original request has yet to be SUCCESSFULLY and FULLY addressed)
    - Are we in a loop where we are repeating the same requests and / or getting the same responses as before? Loops can span multiple turns, and can include repeated actions like scrolling up or down more than a handful of times.
    - Are we making forward progress? (True if just starting, or recent messages are adding value. False if recent messages show evidence of being stuck in a loop or if there is evidence of significant barriers to success such as the inability to read from a required file)
    - Who should speak next? (select from: {names})
    - What instruction or question would you give this team member? (Phrase as if speaking directly to them, and include any specific information they may need)

Please output an answer in pure JSON format according to the following schema. The JSON object must be parsable as-is. DO NOT OUTPUT ANYTHING OTHER THAN JSON, AND DO NOT DEVIATE FROM THIS SCHEMA:

    {{
       "is_request_satisfied": {{
            "reason": string,
            "answer": boolean
        }},
        "is_in_loop": {{
            "reason": string,
            "answer": boolean
        }},
        "is_progress_being_made": {{
            "reason": string,
            "answer": boolean
        }},
        "next_speaker": {{
            "reason": string,
            "answer": string (select from: {names})
        }},
        "instruction_or_question": {{
            "reason": string,
            "answer": string
        }}
    }}
`;

export const ORCHESTRATOR_TASK_LEDGER_FACTS_UPDATE_PROMPT = `As a reminder, we are working to solve the following task:

{task}

It's clear we aren't making as much progress as we would like, but we may have learned something new. Please rewrite the following fact sheet, updating it to include anything new we have learned that may be helpful. Example edits can include (but are not limited to) adding new guesses, moving educated guesses to verified facts if appropriate, etc. Updates may be made to any section of the fact sheet, and more than one section of the fact sheet can be edited. This is an especially good time to update educated guesses, so please at least add or update one educated guess or hunch, and explain your reasoning.

Here is the old fact sheet:

{facts}
`;

export const ORCHESTRATOR_TASK_LEDGER_PLAN_UPDATE_PROMPT = `Please briefly explain what went wrong on this last run (the root cause of the failure), and then come up with a new plan that takes steps and/or includes hints to overcome prior challenges and especially avoids repeating the same mistakes. As before, the new plan should be concise, be expressed in bullet-point form, and consider the following team composition (do not involve any other outside people since we cannot contact anyone else):

{team}
`;

export const ORCHESTRATOR_FINAL_ANSWER_PROMPT = `
We are working on the following task:
{task}

We have completed the task.

The above messages contain the conversation that took place to complete the task.

Based on the information gathered, provide the final answer to the original request.
The answer should be phrased as if you were speaking to the user.
`;

/** A participant as the orchestrator knows it: its name and description (turns.ts `Participant` fits). */
export interface TeamMember {
  name: string;
  description: string | null;
}

/** The team's settings that the orchestrator uses. */
export interface MagenticTeam {
  participants: readonly TeamMember[];
  /** null: no limit. */
  max_turns: number | null;
  max_stalls: number;
  /** null: ORCHESTRATOR_FINAL_ANSWER_PROMPT. */
  final_answer_prompt: string | null;
}

/** A team with MagenticOneGroupChat's defaults for what is left out (max_turns 20, max_stalls 3, the default prompt). */
export function magenticTeam(
  participants: readonly TeamMember[],
  options: { max_turns?: number | null; max_stalls?: number; final_answer_prompt?: string | null } = {},
): MagenticTeam {
  return {
    participants,
    max_turns: options.max_turns === undefined ? DEFAULT_MAX_TURNS : options.max_turns,
    max_stalls: options.max_stalls ?? DEFAULT_MAX_STALLS,
    final_answer_prompt: options.final_answer_prompt ?? null,
  };
}

/** One message of the orchestrator's thread. `type` is AgentChat's message class; TextMessage when absent. */
export interface ThreadMessage {
  source: string;
  content: string;
  type?: "TextMessage" | "StopMessage" | "HandoffMessage" | "ToolCallSummaryMessage" | "MultiModalMessage";
}

/** One message of a model call; `source` is AutoGen's LLMMessage source (OpenAI's `name`), not part of the content. */
export interface ModelMessage {
  role: "system" | "user" | "assistant";
  content: string;
  source: string;
}

// ---------------------------------------------------------------------------------------------
// Python's whitespace (str.isspace, and `\s` of a str pattern), strip, and str.format.

const PY_WS = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_WS_RUN = new RegExp(`[${PY_WS}]+`, "gu");
const PY_STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, "gu");
const pyStrip = (s: string) => s.replace(PY_STRIP, "");

/** Python's `template.format(**fields)` for named fields: `{{` and `}}` are braces, values are not read again. */
function pyFormat(template: string, fields: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, field?: string) => {
    if (field === undefined) return m[0]!;
    if (!Object.hasOwn(fields, field)) throw new Error(`KeyError: '${field}'`);
    return fields[field]!;
  });
}

// ---------------------------------------------------------------------------------------------
// The team description and the prompts, filled as the orchestrator fills them.

/**
 * The team description (MagenticOneOrchestrator.__init__): per participant `name: description` with
 * each run of whitespace made one space and stripped, one a line, the whole stripped.
 */
export function teamDescription(participants: readonly TeamMember[]): string {
  let team = "";
  for (const p of participants) team += pyStrip(`${p.name}: ${p.description ?? ""}`.replace(PY_WS_RUN, " ")) + "\n";
  return pyStrip(team);
}

/** The participants' names, in the team's order (`self._participant_names`). */
export function participantNames(participants: readonly TeamMember[]): string[] {
  return participants.map((p) => p.name);
}

/** The task as `handle_start` makes it from the task messages: their texts joined by one space. */
export function taskText(messages: readonly string[]): string {
  return messages.join(" ");
}

export const factsPrompt = (task: string) => pyFormat(ORCHESTRATOR_TASK_LEDGER_FACTS_PROMPT, { task });
export const planPrompt = (team: string) => pyFormat(ORCHESTRATOR_TASK_LEDGER_PLAN_PROMPT, { team });
/** The full task ledger: the orchestrator's message that opens the thread after each (re)plan. */
export const taskLedgerText = (task: string, team: string, facts: string, plan: string) =>
  pyFormat(ORCHESTRATOR_TASK_LEDGER_FULL_PROMPT, { task, team, facts, plan });
/** `names` joined by ", " in both places the prompt lists them. */
export const progressLedgerPrompt = (task: string, team: string, names: readonly string[]) =>
  pyFormat(ORCHESTRATOR_PROGRESS_LEDGER_PROMPT, { task, team, names: names.join(", ") });
export const factsUpdatePrompt = (task: string, facts: string) => pyFormat(ORCHESTRATOR_TASK_LEDGER_FACTS_UPDATE_PROMPT, { task, facts });
export const planUpdatePrompt = (team: string) => pyFormat(ORCHESTRATOR_TASK_LEDGER_PLAN_UPDATE_PROMPT, { team });

/**
 * The final answer prompt (`_get_final_answer_prompt`): the default with `{task}` filled; a custom
 * `final_answer_prompt` as written, unfilled (AutoGen formats only the default).
 */
export function finalAnswerPrompt(task: string, custom: string | null): string {
  if (custom === null || custom === ORCHESTRATOR_FINAL_ANSWER_PROMPT) return pyFormat(ORCHESTRATOR_FINAL_ANSWER_PROMPT, { task });
  return custom;
}

// ---------------------------------------------------------------------------------------------
// The message lists of the model calls.

const orchestrator = (role: "user" | "assistant", content: string): ModelMessage => ({ role, content, source: ORCHESTRATOR_NAME });

/**
 * The thread as model messages (`_thread_to_context`): StopMessage and HandoffMessage → user; the
 * orchestrator's own messages → assistant; any other message → user. Content as is, source kept.
 */
export function threadToContext(thread: readonly ThreadMessage[]): ModelMessage[] {
  return thread.map((m) => ({
    role: m.type !== "StopMessage" && m.type !== "HandoffMessage" && m.source === ORCHESTRATOR_NAME ? "assistant" : "user",
    content: m.content,
    source: m.source,
  }));
}

/** 1. The facts call: [user: facts prompt]. */
export function factsMessages(task: string): ModelMessage[] {
  return [orchestrator("user", factsPrompt(task))];
}

/** 2. The plan call: the facts conversation, then [user: plan prompt]. */
export function planMessages(task: string, facts: string, team: MagenticTeam): ModelMessage[] {
  return [...factsMessages(task), orchestrator("assistant", facts), orchestrator("user", planPrompt(teamDescription(team.participants)))];
}

/** 4. The progress ledger call (the same messages on each retry): the thread, then [user: progress prompt]. */
export function progressLedgerMessages(thread: readonly ThreadMessage[], task: string, team: MagenticTeam): ModelMessage[] {
  const prompt = progressLedgerPrompt(task, teamDescription(team.participants), participantNames(team.participants));
  return [...threadToContext(thread), orchestrator("user", prompt)];
}

/** 5a. The facts-update call (`_update_task_ledger`): the thread, then [user: facts update prompt with the old facts]. */
export function factsUpdateMessages(thread: readonly ThreadMessage[], task: string, facts: string): ModelMessage[] {
  return [...threadToContext(thread), orchestrator("user", factsUpdatePrompt(task, facts))];
}

/** 5b. The plan-update call: the facts-update conversation, [assistant: the new facts], [user: plan update prompt]. */
export function planUpdateMessages(thread: readonly ThreadMessage[], task: string, oldFacts: string, newFacts: string, team: MagenticTeam): ModelMessage[] {
  return [
    ...factsUpdateMessages(thread, task, oldFacts),
    orchestrator("assistant", newFacts),
    orchestrator("user", planUpdatePrompt(teamDescription(team.participants))),
  ];
}

/** 6. The final answer call: the thread, then [user: final answer prompt]. */
export function finalAnswerMessages(thread: readonly ThreadMessage[], task: string, team: MagenticTeam): ModelMessage[] {
  return [...threadToContext(thread), orchestrator("user", finalAnswerPrompt(task, team.final_answer_prompt))];
}

// ---------------------------------------------------------------------------------------------
// Reading the progress ledger, with Python's semantics where AutoGen's code depends on them.

/** One ledger entry as the model wrote it: `answer` is whatever JSON value it gave. */
export interface LedgerEntry {
  reason: unknown;
  answer: unknown;
  [key: string]: unknown;
}

/** A progress ledger that passed AutoGen's checks (the parsed JSON object, other keys kept). */
export interface ProgressLedger {
  is_request_satisfied: LedgerEntry;
  is_in_loop: LedgerEntry;
  is_progress_being_made: LedgerEntry;
  next_speaker: LedgerEntry;
  instruction_or_question: LedgerEntry;
  [key: string]: unknown;
}

/**
 * One answer read. `retry`: AutoGen asks again (its log line is `error`); not `retry`: the chat ends
 * with `error` (`Type: message`, as AgentChat reports a manager's exception). `held`: what AutoGen's
 * `progress_ledger` variable holds afterwards; the next reading needs it (see readProgressLedger).
 */
export type LedgerReading =
  | { ok: true; ledger: ProgressLedger }
  | { ok: false; retry: boolean; error: string; detail: string; held: unknown };

class PyError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Python truthiness of a JSON value. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string" || Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return true;
}

const pyType = (v: unknown) =>
  v === null ? "NoneType" : typeof v === "boolean" ? "bool" : typeof v === "number" ? (Number.isInteger(v) ? "int" : "float") : typeof v === "string" ? "str" : Array.isArray(v) ? "list" : "dict";

/** `obj[key]` for a str key. */
function getitem(obj: unknown, key: string): unknown {
  if (isDict(obj)) {
    if (Object.hasOwn(obj, key)) return obj[key];
    throw new PyError("KeyError", `'${key}'`);
  }
  if (typeof obj === "string" || Array.isArray(obj)) throw new PyError("TypeError", `${pyType(obj)} indices must be integers`);
  throw new PyError("TypeError", `'${pyType(obj)}' object is not subscriptable`);
}

/** `key in obj` for a str key. */
function contains(obj: unknown, key: string): boolean {
  if (isDict(obj)) return Object.hasOwn(obj, key);
  if (Array.isArray(obj)) return obj.includes(key);
  if (typeof obj === "string") return obj.includes(key);
  throw new PyError("TypeError", `argument of type '${pyType(obj)}' is not iterable`);
}

/** `obj[key] = value`. */
function setitem(obj: unknown, key: string, value: unknown): void {
  if (!isDict(obj)) throw new PyError("TypeError", `'${pyType(obj)}' object does not support item assignment`);
  obj[key] = value;
}

/** `len(obj)`. */
function pyLen(obj: unknown): number {
  if (isDict(obj)) return Object.keys(obj).length;
  if (Array.isArray(obj)) return obj.length;
  if (typeof obj === "string") return [...obj].length;
  throw new PyError("TypeError", `object of type '${pyType(obj)}' has no len()`);
}

function jsonLoads(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new PyError("JSONDecodeError", (e as Error).message);
  }
}

const FENCE = new RegExp(`\`\`\`(?:[${PY_WS}]*([\\p{L}\\p{N}_+-]+))?\\n([\\s\\S]*?)\`\`\``, "gu");

/**
 * autogen_core's `extract_json_from_str`: each ``` fence (optionally with a language, which must be
 * json in any case, else ValueError) is parsed as JSON, in order; with no fence, the whole text.
 */
export function extractJsonFromStr(content: string): unknown[] {
  const matches = [...content.matchAll(FENCE)];
  const ret: unknown[] = [];
  if (!matches.length) ret.push(jsonLoads(content));
  for (const m of matches) {
    const language = m[1] ? pyStrip(m[1]) : null;
    if (language && language.toLowerCase() !== "json") throw new PyError("ValueError", `Expected JSON object, but found language: ${language}`);
    ret.push(jsonLoads(m[2]!));
  }
  return ret;
}

/**
 * Read one progress ledger answer as one pass of `_orchestrate_step`'s retry loop does:
 * - the JSON: `extract_json_from_str`; not valid JSON → ask again; a fence in another language →
 *   ValueError (ends the chat); not exactly one JSON value → ValueError "Progress ledger should contain a
 *   single JSON object, but found: N" (ends the chat) where N is `len` of what the previous attempt held
 *   (`{}` at first: 0; a number, null or bool held → TypeError → ask again);
 * - a single participant: `next_speaker` is set to {reason: "The team consists of only one agent.", answer: it};
 * - each of the five keys must hold an object with `reason` and `answer`, else ask again;
 * - then `not is_request_satisfied.answer and next_speaker.answer not in names` ends the chat at once
 *   with "ValueError: Failed to parse ledger information after multiple retries." (AutoGen `break`s);
 *   reading those two entries: a missing key or `answer` → KeyError (ends the chat), a non-object → ask again;
 * - any value that is not an object → ask again (Python TypeError).
 * Truthiness is Python's ("false" and [0] are true, 0, "", [], {} and null false).
 */
export function readProgressLedger(text: string, names: readonly string[], previous: unknown = {}): LedgerReading {
  let held: unknown = previous;
  let keyError = false;
  let missing = "";
  try {
    const outputJson = extractJsonFromStr(text);
    if (outputJson.length !== 1) {
      throw new PyError("ValueError", `Progress ledger should contain a single JSON object, but found: ${pyLen(held)}`);
    }
    held = outputJson[0];
    if (names.length === 1) setitem(held, "next_speaker", { reason: "The team consists of only one agent.", answer: names[0] });
    for (const key of PROGRESS_LEDGER_KEYS) {
      if (!contains(held, key) || !isDict(getitem(held, key)) || !contains(getitem(held, key), "answer") || !contains(getitem(held, key), "reason")) {
        keyError = true;
        missing = key;
        break;
      }
    }
    if (!truthy(getitem(getitem(held, "is_request_satisfied"), "answer"))) {
      const speaker = getitem(getitem(held, "next_speaker"), "answer");
      if (typeof speaker !== "string" || !names.includes(speaker)) {
        return { ok: false, retry: false, error: `ValueError: ${LEDGER_RETRIES_EXHAUSTED}`, detail: `next_speaker ${JSON.stringify(speaker)} is not one of ${names.join(", ")}`, held };
      }
    }
    if (!keyError) return { ok: true, ledger: held as ProgressLedger };
    return { ok: false, retry: true, error: `Failed to parse ledger information, retrying: ${text}`, detail: `${missing} is not an object with reason and answer`, held };
  } catch (e) {
    if (!(e instanceof PyError)) throw e;
    if (e.type === "JSONDecodeError" || e.type === "TypeError") {
      return { ok: false, retry: true, error: "Invalid ledger format encountered, retrying...", detail: `${e.type}: ${e.message}`, held };
    }
    return { ok: false, retry: false, error: `${e.type}: ${e.message}`, detail: `${e.type}: ${e.message}`, held };
  }
}

/** Where the progress ledger calls stand after `answers` (the answers to this step's calls, in order). */
export type LedgerOutcome =
  | { kind: "ledger"; ledger: ProgressLedger; calls: number }
  /** Every answer so far asks again and fewer than MAX_JSON_RETRIES calls were made: call again, same messages. */
  | { kind: "ask_again"; calls: number; log: string }
  /** The chat ends with this error. */
  | { kind: "failed"; error: string; calls: number };

/**
 * The retry loop of `_orchestrate_step`: at most MAX_JSON_RETRIES (10) calls; the first valid ledger
 * is used; an answer that ends the chat ends it; after 10 answers asking again, the chat ends with
 * "ValueError: Failed to parse ledger information after multiple retries.". Answers past the 10th are ignored.
 */
export function readLedgerAnswers(answers: readonly string[], names: readonly string[]): LedgerOutcome {
  let held: unknown = {};
  let log = "";
  const n = Math.min(answers.length, MAX_JSON_RETRIES);
  for (let i = 0; i < n; i++) {
    const r = readProgressLedger(answers[i]!, names, held);
    if (r.ok) return { kind: "ledger", ledger: r.ledger, calls: i + 1 };
    if (!r.retry) return { kind: "failed", error: r.error, calls: i + 1 };
    held = r.held;
    log = r.error;
  }
  if (n === MAX_JSON_RETRIES) return { kind: "failed", error: `ValueError: ${LEDGER_RETRIES_EXHAUSTED}`, calls: n };
  return { kind: "ask_again", calls: n, log };
}

// ---------------------------------------------------------------------------------------------
// The step decision.

export interface Counters {
  n_rounds: number;
  n_stalls: number;
}

/** What a step does before any model call: end on max_turns, or count the round and ask for the progress ledger. */
export type StepStart =
  | ({ kind: "final_answer"; reason: typeof MAX_ROUNDS_REASON } & Counters)
  | ({ kind: "progress_ledger" } & Counters);

/** The first lines of pydantic's error when a message's content is not a string. */
const notAString = (cls: string) => `ValidationError: 1 validation error for ${cls}\ncontent\n  Input should be a valid string`;

/**
 * What a step comes to, with the counters after it.
 * - final_answer: make the final answer call; the chat stops with `reason`. `error` (then `reason` is
 *   null): the satisfied ledger's reason is not a string, so AutoGen fails building its StopMessage after
 *   broadcasting the final answer, and the chat ends with that error instead.
 * - replan: the facts-update and plan-update calls, then the task ledger again (participants reset,
 *   thread cleared); the counters are kept as they are.
 * - speak: broadcast `instruction` as the orchestrator's message, then `speaker` speaks.
 * - error: the instruction is not a string (AutoGen's TextMessage refuses it): the chat ends.
 */
export type StepDecision =
  | ({ kind: "final_answer"; reason: string | null; error: string | null } & Counters)
  | ({ kind: "replan" } & Counters)
  | ({ kind: "speak"; speaker: string; instruction: string } & Counters)
  | ({ kind: "error"; error: string } & Counters);

/**
 * The start of `_orchestrate_step`, before the progress ledger call: max_turns set and
 * n_rounds > max_turns → final answer "Max rounds reached." (counters unchanged); else n_rounds + 1.
 * (So with max_turns N, N + 1 progress ledgers are asked for before the round limit ends the chat.)
 */
export function startStep(counters: Counters, team: Pick<MagenticTeam, "max_turns">): StepStart {
  if (team.max_turns !== null && counters.n_rounds > team.max_turns) return { kind: "final_answer", reason: MAX_ROUNDS_REASON, ...counters };
  return { kind: "progress_ledger", n_rounds: counters.n_rounds + 1, n_stalls: counters.n_stalls };
}

/**
 * The whole of `_orchestrate_step` given the counters before it and the valid ledger it got, in
 * AutoGen's order: max_turns check (the ledger unused: startStep tells beforehand whether to ask for
 * one), n_rounds + 1, request satisfied → final answer with its reason, stall count (+1 when no
 * progress, else +1 when in a loop, else max(0, n − 1)), n_stalls ≥ max_stalls → replan, else speak.
 */
export function decideStep(ledger: ProgressLedger, counters: Counters, team: Pick<MagenticTeam, "max_turns" | "max_stalls">): StepStart | StepDecision {
  const start = startStep(counters, team);
  return start.kind === "final_answer" ? start : decideLedger(ledger, start, team);
}

/** The rest of the step, after startStep counted the round (`counters` are startStep's). */
function decideLedger(ledger: ProgressLedger, counters: Counters, team: Pick<MagenticTeam, "max_stalls">): StepDecision {
  const { n_rounds } = counters;
  if (truthy(ledger.is_request_satisfied.answer)) {
    const reason = ledger.is_request_satisfied.reason;
    return typeof reason === "string"
      ? { kind: "final_answer", reason, error: null, n_rounds, n_stalls: counters.n_stalls }
      : { kind: "final_answer", reason: null, error: notAString("StopMessage"), n_rounds, n_stalls: counters.n_stalls };
  }
  let n_stalls = counters.n_stalls;
  if (!truthy(ledger.is_progress_being_made.answer)) n_stalls += 1;
  else if (truthy(ledger.is_in_loop.answer)) n_stalls += 1;
  else n_stalls = Math.max(0, n_stalls - 1);
  if (n_stalls >= team.max_stalls) return { kind: "replan", n_rounds, n_stalls };
  const instruction = ledger.instruction_or_question.answer;
  if (typeof instruction !== "string") return { kind: "error", error: notAString("TextMessage"), n_rounds, n_stalls };
  return { kind: "speak", speaker: ledger.next_speaker.answer as string, instruction, n_rounds, n_stalls };
}

// ---------------------------------------------------------------------------------------------
// The orchestrator's state, what to do next, and the events that move it.

/**
 * Where the orchestrator is:
 * idle (no task yet) → facts → plan → task_ledger → step → (speaker → step)… → final_answer → done;
 * from step, a replan goes update_facts → update_plan → task_ledger; failed: the chat ended with an error.
 */
export type MagenticPhase = "idle" | "facts" | "plan" | "task_ledger" | "step" | "speaker" | "update_facts" | "update_plan" | "final_answer" | "done" | "failed";

/** AutoGen's MagenticOneOrchestratorState (task, facts, plan, n_rounds, n_stalls, message_thread) and where the run stands. */
export interface MagenticState {
  task: string;
  facts: string;
  plan: string;
  n_rounds: number;
  n_stalls: number;
  thread: ThreadMessage[];
  phase: MagenticPhase;
  /** speaker: who was asked to speak. */
  speaker: string | null;
  /** update_plan: the fact sheet before the update (the plan-update call quotes it). */
  previous_facts: string | null;
  /** final_answer/done: the stop reason. */
  stop_reason: string | null;
  /** failed, or final_answer when the run will fail after the final answer. */
  error: string | null;
}

/** What was stored: the model's answers, the broadcasts, the participants' responses. */
export type MagenticEvent =
  /** A run starts (`handle_start`): the task (see taskText). */
  | { kind: "start"; task: string }
  /** The answer to the facts call, or to the facts-update call. */
  | { kind: "facts"; text: string }
  /** The answer to the plan call, or to the plan-update call. */
  | { kind: "plan"; text: string }
  /** The task ledger was broadcast (participants reset, thread cleared, the ledger its first message). */
  | { kind: "task_ledger" }
  /** The valid progress ledger of this step (see readLedgerAnswers). */
  | { kind: "progress_ledger"; ledger: ProgressLedger }
  /** The speaker's response (its chat message). */
  | { kind: "message"; message: ThreadMessage }
  /** The team's termination condition fired on the last response. */
  | { kind: "terminated"; reason: string }
  /** The answer to the final answer call. */
  | { kind: "final_answer"; text: string }
  /** The run ended with an error (the ledger's, or a model call's). */
  | { kind: "failed"; error: string };

/** What the server does next. */
export type MagenticAction =
  | { kind: "call"; call: "facts" | "plan" | "progress_ledger" | "update_facts" | "update_plan" | "final_answer"; messages: ModelMessage[] }
  /** Reset every participant (`reset`, the team's names), then broadcast `content` as the orchestrator's message. */
  | { kind: "task_ledger"; content: string; reset: string[] }
  /** The instruction was broadcast (it is the thread's last message): run `speaker`. */
  | { kind: "speak"; speaker: string; instruction: string }
  | { kind: "idle" }
  | { kind: "done"; stop_reason: string }
  | { kind: "failed"; error: string };

export function initialMagenticState(): MagenticState {
  return { task: "", facts: "", plan: "", n_rounds: 0, n_stalls: 0, thread: [], phase: "idle", speaker: null, previous_facts: null, stop_reason: null, error: null };
}

/** What to do in `state`. */
export function nextAction(state: MagenticState, team: MagenticTeam): MagenticAction {
  switch (state.phase) {
    case "idle":
      return { kind: "idle" };
    case "facts":
      return { kind: "call", call: "facts", messages: factsMessages(state.task) };
    case "plan":
      return { kind: "call", call: "plan", messages: planMessages(state.task, state.facts, team) };
    case "task_ledger":
      return { kind: "task_ledger", content: taskLedgerText(state.task, teamDescription(team.participants), state.facts, state.plan), reset: participantNames(team.participants) };
    case "step":
      return startStep(state, team).kind === "final_answer"
        ? { kind: "call", call: "final_answer", messages: finalAnswerMessages(state.thread, state.task, team) }
        : { kind: "call", call: "progress_ledger", messages: progressLedgerMessages(state.thread, state.task, team) };
    case "speaker":
      return { kind: "speak", speaker: state.speaker!, instruction: state.thread.at(-1)!.content };
    case "update_facts":
      return { kind: "call", call: "update_facts", messages: factsUpdateMessages(state.thread, state.task, state.facts) };
    case "update_plan":
      return { kind: "call", call: "update_plan", messages: planUpdateMessages(state.thread, state.task, state.previous_facts ?? "", state.facts, team) };
    case "final_answer":
      return { kind: "call", call: "final_answer", messages: finalAnswerMessages(state.thread, state.task, team) };
    case "done":
      return { kind: "done", stop_reason: state.stop_reason ?? "" };
    case "failed":
      return { kind: "failed", error: state.error ?? "" };
  }
}

/**
 * `state` after `event`, as the orchestrator changes it. Throws when the event does not fit the phase
 * (a stored log out of order). A new `start` keeps n_rounds, as AutoGen does until the team is reset.
 */
export function applyMagenticEvent(state: MagenticState, event: MagenticEvent, team: MagenticTeam): MagenticState {
  const wrong = () => new Error(`Magentic-One: a ${event.kind} event does not fit the ${state.phase} phase`);
  switch (event.kind) {
    case "start":
      if (state.phase !== "idle" && state.phase !== "done" && state.phase !== "failed") throw wrong();
      return { ...state, task: event.task, phase: "facts", speaker: null, previous_facts: null, stop_reason: null, error: null };
    case "facts":
      if (state.phase === "facts") return { ...state, facts: event.text, phase: "plan" };
      if (state.phase === "update_facts") return { ...state, previous_facts: state.facts, facts: event.text, phase: "update_plan" };
      throw wrong();
    case "plan":
      if (state.phase === "plan") return { ...state, plan: event.text, n_stalls: 0, phase: "task_ledger" };
      if (state.phase === "update_plan") return { ...state, plan: event.text, previous_facts: null, phase: "task_ledger" };
      throw wrong();
    case "task_ledger": {
      if (state.phase !== "task_ledger") throw wrong();
      const content = taskLedgerText(state.task, teamDescription(team.participants), state.facts, state.plan);
      return { ...state, thread: [{ source: ORCHESTRATOR_NAME, content }], phase: "step" };
    }
    case "progress_ledger": {
      const start = state.phase === "step" ? startStep(state, team) : null;
      if (start?.kind !== "progress_ledger") throw wrong();
      const d = decideLedger(event.ledger, start, team);
      const counters = { n_rounds: d.n_rounds, n_stalls: d.n_stalls };
      if (d.kind === "final_answer") return { ...state, ...counters, phase: "final_answer", stop_reason: d.reason, error: d.error };
      if (d.kind === "replan") return { ...state, ...counters, phase: "update_facts" };
      if (d.kind === "speak") return { ...state, ...counters, phase: "speaker", speaker: d.speaker, thread: [...state.thread, { source: ORCHESTRATOR_NAME, content: d.instruction }] };
      return { ...state, ...counters, phase: "failed", error: d.error };
    }
    case "message":
      if (state.phase !== "speaker") throw wrong();
      return { ...state, thread: [...state.thread, event.message], speaker: null, phase: "step" };
    case "terminated":
      if (state.phase !== "step") throw wrong();
      return { ...state, phase: "done", stop_reason: event.reason };
    case "final_answer": {
      let { stop_reason, error } = state;
      if (state.phase === "step") {
        if (startStep(state, team).kind !== "final_answer") throw wrong();
        stop_reason = MAX_ROUNDS_REASON;
        error = null;
      } else if (state.phase !== "final_answer") throw wrong();
      const thread = [...state.thread, { source: ORCHESTRATOR_NAME, content: event.text }];
      return { ...state, thread, phase: error ? "failed" : "done", stop_reason: error ? null : stop_reason, error };
    }
    case "failed": {
      // A ledger failure comes after the step counted its round.
      const n_rounds = state.phase === "step" && startStep(state, team).kind === "progress_ledger" ? state.n_rounds + 1 : state.n_rounds;
      return { ...state, n_rounds, phase: "failed", error: event.error };
    }
  }
}

/** The state after `events`, from `from` (a fresh orchestrator by default): the replay after a restart. */
export function foldMagentic(events: readonly MagenticEvent[], team: MagenticTeam, from: MagenticState = initialMagenticState()): MagenticState {
  return events.reduce((s, e) => applyMagenticEvent(s, e, team), from);
}

/**
 * What AutoGen passes `name` when it asks it to speak (ChatAgentContainer's buffer): the thread's
 * messages since its own last one (participants get every broadcast but their own, and their buffer
 * is emptied when they speak and when the task ledger resets them, as the thread is).
 */
export function participantInbox(state: Pick<MagenticState, "thread">, name: string): ThreadMessage[] {
  let i = state.thread.length;
  while (i > 0 && state.thread[i - 1]!.source !== name) i--;
  return state.thread.slice(i);
}
