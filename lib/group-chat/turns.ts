/**
 * AutoGen's group-chat patterns as Clutch runs them (Clutch Protocol §7.3 `autogen`; docs/adapters.md
 * "AutoGen: group chats"): who speaks next and when the chat ends, decided from the turns so far.
 * Pure, so the server's runner (server/orchestrator/group-chat.ts) and tests compute the same.
 *
 * - RoundRobinGroupChat (`round_robin`): the participants in order, starting after the last speaker.
 * - SelectorGroupChat (`selector`): a model reads `selector_prompt` with `{roles}`,
 *   `{participants}` and `{history}` filled in and names the next speaker; the previous speaker is
 *   not a candidate unless `allow_repeated_speaker`. `selectorPrompt` builds the prompt,
 *   `readSelection` reads an answer as AutoGen does (exactly one participant mentioned, else the
 *   feedback to ask again with), `selectorFallback` names who speaks after the last failed attempt.
 *   Source: microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14,
 *   python/packages/autogen-agentchat/src/autogen_agentchat/teams/_group_chat/_selector_group_chat.py.
 * - Swarm (`swarm`): the first participant speaks first; a turn that hands off (`handoff_to`) moves
 *   the turn to its target (`user`: the people of the channel); otherwise the speaker goes on.
 * - GraphFlow (`graph_flow`): ./graph-flow.ts; MagenticOneGroupChat (`magentic_one`): ./magentic-one.ts.
 *
 * Termination conditions (autogen_agentchat.conditions) are checked on the task, then after each turn, with their
 * AND/OR combinations; `terminated` answers the stop reason in AutoGen's words, e.g.
 * "Text 'TERMINATE' mentioned" or "Maximum number of messages 6 reached, current message count: 6".
 */

import type { GraphSpec } from "./graph-flow";

/** A termination condition as data (server/workspace/autogen.ts maps AgentChat's). */
export type Termination =
  | { kind: "text_mention"; text: string; sources: string[] | null }
  | { kind: "max_message"; max_messages: number; include_agent_event: boolean }
  | { kind: "handoff"; target: string }
  | { kind: "timeout"; timeout_seconds: number }
  | { kind: "token_usage"; max_total_token: number | null; max_prompt_token: number | null; max_completion_token: number | null }
  | { kind: "stop_message" }
  | { kind: "source_match"; sources: string[] }
  | { kind: "text_message"; source: string | null }
  | { kind: "function_call"; function_name: string }
  | { kind: "external" }
  | { kind: "and" | "or"; conditions: Termination[] };

/** A participant: an agent Clutch runs, the people of the channel (UserProxyAgent), or one Clutch cannot run. */
export interface Participant {
  name: string;
  kind: "agent" | "people" | "left_out";
  agent_id: string | null;
  description: string | null;
}

/** The team's pattern, as the import keeps it. */
export interface GroupChatShape {
  kind: "round_robin" | "selector" | "swarm" | "graph_flow" | "magentic_one" | string;
  participants: Participant[];
  selector_prompt: string | null;
  allow_repeated_speaker: boolean;
  max_selector_attempts: number | null;
  handoffs: { from: string; target: string; name: string | null; description: string | null; message: string | null }[];
  termination: Termination | null;
  max_turns: number | null;
  /** GraphFlow: the directed graph (./graph-flow.ts). */
  graph?: GraphSpec | null;
  /** MagenticOneGroupChat: stalls before the orchestrator replans (AutoGen default 3). */
  max_stalls?: number | null;
  /** MagenticOneGroupChat: the prompt of the final answer (null: AutoGen's). */
  final_answer_prompt?: string | null;
}

/** One turn of the chat so far: who spoke, what they said, whom they handed off to. */
export interface Turn {
  speaker: string;
  text: string;
  handoff_to?: string | null;
}

/** What the run has done besides the turns, for token and function-call conditions. */
export interface ChatFacts {
  /** The person's request: AutoGen counts it as the first message. */
  task: string;
  started_at_ms: number;
  now_ms: number;
  tokens: { prompt: number; completion: number };
  /** Names of the tools the participants called. */
  tool_calls: string[];
  /** Agent events (tool calls and results) so far, for `include_agent_event`. */
  agent_events: number;
}

/** AutoGen's default SelectorGroupChat prompt (autogen_agentchat.teams.SelectorGroupChat). */
export const DEFAULT_SELECTOR_PROMPT =
  "You are in a role play game. The following roles are available:\n{roles}.\nRead the following conversation. Then select the next role from {participants} to play. Only return the role.\n\n{history}\n\nRead the above conversation. Then select the next role from {participants} to play. Only return the role.\n";

/** The participants that can take a turn (Clutch runs them, or they are the people). */
export function speakers(shape: GroupChatShape): Participant[] {
  return shape.participants.filter((p) => p.kind !== "left_out");
}

export type Next =
  | { kind: "speak"; speaker: Participant; rule: string }
  | { kind: "select"; candidates: Participant[]; prompt: string }
  | { kind: "none"; reason: string };

/** Who speaks next, or (selector) the prompt the selecting model answers. */
export function nextSpeaker(shape: GroupChatShape, task: string, turns: readonly Turn[]): Next {
  const able = speakers(shape);
  if (!able.length) return { kind: "none", reason: "no participant of the team can take a turn in Clutch" };
  const last = turns.at(-1);
  if (shape.kind === "round_robin") {
    const i = last ? shape.participants.findIndex((p) => p.name === last.speaker) : -1;
    for (let k = 1; k <= shape.participants.length; k++) {
      const p = shape.participants[(i + k + shape.participants.length) % shape.participants.length]!;
      if (p.kind !== "left_out") return { kind: "speak", speaker: p, rule: `round robin: ${p.name} follows ${last ? last.speaker : "the request"} in the team's order` };
    }
  }
  if (shape.kind === "swarm") {
    if (!last) return { kind: "speak", speaker: able[0]!, rule: `swarm: ${able[0]!.name} is the first participant` };
    if (last.handoff_to) {
      const to = shape.participants.find((p) => p.name === last.handoff_to) ?? (last.handoff_to === "user" ? people() : undefined);
      if (to && to.kind !== "left_out") return { kind: "speak", speaker: to, rule: `swarm: ${last.speaker} handed off to ${to.name}` };
      return { kind: "none", reason: `${last.speaker} handed off to ${last.handoff_to}, who is not a participant Clutch can run` };
    }
    const same = shape.participants.find((p) => p.name === last.speaker) ?? (last.speaker === "user" ? people() : undefined);
    // After the people answer, the turn goes back to the agent that handed off to them.
    const back = same?.kind === "people" ? [...turns].reverse().find((t) => t.handoff_to === last.speaker || t.handoff_to === "user") : undefined;
    const resumed = back ? shape.participants.find((p) => p.name === back.speaker) : undefined;
    if (resumed) return { kind: "speak", speaker: resumed, rule: `swarm: the people answered ${resumed.name}, who handed off to them` };
    if (same && same.kind !== "left_out") return { kind: "speak", speaker: same, rule: `swarm: no handoff, ${same.name} goes on` };
    return { kind: "speak", speaker: able[0]!, rule: `swarm: ${able[0]!.name} is the first participant` };
  }
  if (shape.kind === "selector") {
    const candidates = able.filter((p) => shape.allow_repeated_speaker || able.length === 1 || p.name !== last?.speaker);
    if (candidates.length === 1) return { kind: "speak", speaker: candidates[0]!, rule: `selector: ${candidates[0]!.name} is the only candidate` };
    return { kind: "select", candidates, prompt: selectorPrompt(shape, task, turns, candidates) };
  }
  return { kind: "none", reason: `Clutch cannot run a ${shape.kind} team's turns` };
}

/** The people of the channel as a Swarm's `user`. */
function people(): Participant {
  return { name: "user", kind: "people", agent_id: null, description: "the people in the channel" };
}

/**
 * The selector prompt with `{roles}`, `{participants}` and `{history}` filled in, as AutoGen's
 * `SelectorGroupChatManager.select_speaker` / `construct_message_history` fill them
 * (autogen_agentchat/teams/_group_chat/_selector_group_chat.py at microsoft/autogen@027ecf0a):
 * roles one line each, `name: description` with runs of whitespace made one space; participants
 * the Python list repr `['a', 'b']`; history every message `source: content`, right-trimmed, with
 * "\n\n" after it, the entries joined by "\n" (the task first, from `user`).
 */
export function selectorPrompt(shape: GroupChatShape, task: string, turns: readonly Turn[], candidates: readonly Participant[]): string {
  const roles = speakers(shape)
    .map((p) => `${p.name}: ${p.description ?? ""}`.replace(/\s+/g, " ").trim())
    .join("\n")
    .trim();
  const participants = pyList(candidates.map((p) => p.name));
  const history = [`user: ${task}`, ...turns.map((t) => `${t.speaker}: ${t.text}`)].map((m) => `${m.trimEnd()}\n\n`).join("\n");
  const fields: Record<string, string> = { roles, participants, history };
  // Python's str.format: the three fields, and `{{` / `}}` as literal braces.
  return (shape.selector_prompt || DEFAULT_SELECTOR_PROMPT).replace(/\{\{|\}\}|\{(roles|participants|history)\}/g, (m, field?: string) => (field ? fields[field]! : m[0]!));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * How many times each of `names` is mentioned in `answer` (AutoGen `_mentioned_agents`): a name
 * counts between non-word characters (the answer padded with a space each side), as written, with
 * each `_` as a space, or with each `_` as `\_`; case-sensitive. Names not mentioned are absent.
 */
export function mentionedAgents(answer: string, names: readonly string[]): Map<string, number> {
  const mentions = new Map<string, number>();
  for (const name of names) {
    const forms = [name, name.replaceAll("_", " "), name.replaceAll("_", "\\_")].map(escapeRegExp);
    const count = [...` ${answer} `.matchAll(new RegExp(`(?<=\\W)(${forms.join("|")})(?=\\W)`, "g"))].length;
    if (count > 0) mentions.set(name, count);
  }
  return mentions;
}

/** The Python `str()` of a list of names, as AutoGen's feedback and prompt show it: `['a', 'b']`. */
function pyList(names: readonly string[]): string {
  return `[${names.map((n) => `'${n}'`).join(", ")}]`;
}

/** What one selector answer comes to: the speaker, or the feedback AutoGen sends before asking again. */
export type SelectorVerdict = { kind: "chosen"; speaker: Participant } | { kind: "retry"; feedback: string };

/**
 * Read one selector answer as AutoGen's `_select_speaker` does: mentions are counted over every
 * participant's name (the previous speaker too), exactly one name mentioned selects it; none →
 * "No valid name was mentioned. Please select from: […]."; several → "Expected exactly one name to
 * be mentioned. Please select only one from: […]."; the previous speaker when repeats are not
 * allowed → "Repeated speaker is not allowed, please select a different name from: […].".
 */
export function readSelection(answer: string, shape: GroupChatShape, candidates: readonly Participant[], previous: string | null): SelectorVerdict {
  const names = candidates.map((c) => c.name);
  const mentions = mentionedAgents(answer, speakers(shape).map((p) => p.name));
  if (mentions.size === 0) return { kind: "retry", feedback: `No valid name was mentioned. Please select from: ${pyList(names)}.` };
  if (mentions.size > 1) return { kind: "retry", feedback: `Expected exactly one name to be mentioned. Please select only one from: ${pyList(names)}.` };
  const name = [...mentions.keys()][0]!;
  if (!shape.allow_repeated_speaker && previous !== null && name === previous) {
    return { kind: "retry", feedback: `Repeated speaker is not allowed, please select a different name from: ${pyList(names)}.` };
  }
  return { kind: "chosen", speaker: speakers(shape).find((p) => p.name === name)! };
}

/**
 * Who speaks when every selector attempt failed (AutoGen): the previous speaker when there is one,
 * else the first candidate.
 */
export function selectorFallback(shape: GroupChatShape, candidates: readonly Participant[], previous: string | null): Participant {
  return (previous !== null ? speakers(shape).find((p) => p.name === previous) : undefined) ?? candidates[0]!;
}

/**
 * The role the selector prompt is sent as: `system` for OpenAI models (AutoGen sends a SystemMessage
 * when `ModelFamily.is_openai`), `user` for the others ("Many other models need a UserMessage to
 * respond to"). `provider` is the AI SDK provider id, e.g. `openai.chat`, `openai-compatible.chat`,
 * `anthropic.messages`, `google.generative-ai`.
 */
export function selectorPromptRole(provider: string): "system" | "user" {
  return /^(openai|azure)/.test(provider) ? "system" : "user";
}

/**
 * Whether `cond` is met after `turns`, and AutoGen's words for why. As AutoGen's group-chat manager
 * applies the condition to the start messages before any turn (`handle_start`), the task counts as
 * the first message, a TextMessage from `user`: with no turns yet, a task that mentions the text of
 * a TextMentionTermination (or any task, for TextMessageTermination without a source) ends the chat.
 * With `withTask: false` the condition sees the turns only, as MagenticOne's orchestrator shows it
 * the participants' responses and never the task.
 */
export function terminated(cond: Termination | null, turns: readonly Turn[], facts: ChatFacts, options: { withTask?: boolean } = {}): string | null {
  if (!cond) return null;
  const withTask = options.withTask ?? true;
  const messages: readonly Turn[] = withTask ? [{ speaker: "user", text: facts.task }, ...turns] : turns;
  switch (cond.kind) {
    case "text_mention": {
      const hit = messages.find((t) => (!cond.sources || cond.sources.includes(t.speaker)) && t.text.includes(cond.text));
      return hit ? `Text '${cond.text}' mentioned` : null;
    }
    case "max_message": {
      const count = (withTask ? 1 : 0) + turns.length + (cond.include_agent_event ? facts.agent_events : 0);
      return count >= cond.max_messages ? `Maximum number of messages ${cond.max_messages} reached, current message count: ${count}` : null;
    }
    case "handoff": {
      const hit = turns.find((t) => t.handoff_to === cond.target);
      return hit ? `Handoff to ${cond.target} from ${hit.speaker} detected.` : null;
    }
    case "timeout":
      return facts.now_ms - facts.started_at_ms >= cond.timeout_seconds * 1000 ? `Timeout of ${cond.timeout_seconds} seconds reached` : null;
    case "token_usage": {
      const { prompt, completion } = facts.tokens;
      const over =
        (cond.max_total_token !== null && prompt + completion >= cond.max_total_token) ||
        (cond.max_prompt_token !== null && prompt >= cond.max_prompt_token) ||
        (cond.max_completion_token !== null && completion >= cond.max_completion_token);
      return over ? `Token usage limit reached, total token count: ${prompt + completion}, prompt token count: ${prompt}, completion token count: ${completion}.` : null;
    }
    case "source_match": {
      const hit = messages.find((t) => cond.sources.includes(t.speaker));
      return hit ? `'${hit.speaker}' answered` : null;
    }
    case "text_message": {
      const hit = messages.find((t) => !cond.source || t.speaker === cond.source);
      return hit ? `Text message received from '${hit.speaker}'` : null;
    }
    case "function_call":
      return facts.tool_calls.includes(cond.function_name) ? `Function '${cond.function_name}' was executed.` : null;
    case "stop_message":
    case "external":
      return null; // no StopMessage or external stop in a Clutch run; a person cancels the run instead
    case "and": {
      const reasons = cond.conditions.map((c) => terminated(c, turns, facts, options));
      return reasons.every(Boolean) ? reasons.join("; ") : null;
    }
    case "or":
      return cond.conditions.map((c) => terminated(c, turns, facts, options)).find(Boolean) ?? null;
  }
}
