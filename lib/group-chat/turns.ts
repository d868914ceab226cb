/**
 * AutoGen's group-chat patterns as Clutch runs them (Clutch Protocol §7.3 `autogen`; docs/adapters.md
 * "AutoGen: group chats"): who speaks next and when the chat ends, decided from the turns so far.
 * Pure, so the server's runner (server/orchestrator/group-chat.ts) and tests compute the same.
 *
 * - RoundRobinGroupChat (`round_robin`): the participants in order, starting after the last speaker.
 * - SelectorGroupChat (`selector`): a model reads `selector_prompt` with `{roles}`,
 *   `{participants}` and `{history}` filled in and names the next speaker; the previous speaker is
 *   not a candidate unless `allow_repeated_speaker`. `selectorPrompt` builds the prompt,
 *   `parseSelection` reads the answer as AutoGen does (exactly one candidate mentioned).
 * - Swarm (`swarm`): the first participant speaks first; a turn that hands off (`handoff_to`) moves
 *   the turn to its target (`user`: the people of the channel); otherwise the speaker goes on.
 *
 * Termination conditions (autogen_agentchat.conditions) are checked after each turn, with their
 * AND/OR combinations; `terminated` answers the stop reason in AutoGen's words, e.g.
 * "Text 'TERMINATE' mentioned" or "Maximum number of messages 6 reached, current message count: 6".
 */

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
  kind: "round_robin" | "selector" | "swarm" | string;
  participants: Participant[];
  selector_prompt: string | null;
  allow_repeated_speaker: boolean;
  max_selector_attempts: number | null;
  handoffs: { from: string; target: string; name: string | null; description: string | null; message: string | null }[];
  termination: Termination | null;
  max_turns: number | null;
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
  "You are in a role play game. The following roles are available:\n{roles}.\nRead the following conversation. Then select the next role from {participants} to play. Only return the role.\n\n{history}\n\nRead the above conversation. Then select the next role from {participants} to play. Only return the role.";

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

/** The selector prompt with `{roles}`, `{participants}` and `{history}` filled in, as AutoGen fills them. */
export function selectorPrompt(shape: GroupChatShape, task: string, turns: readonly Turn[], candidates: readonly Participant[]): string {
  const roles = speakers(shape)
    .map((p) => `${p.name}: ${p.description ?? ""}`.trim())
    .join("\n");
  const participants = `[${candidates.map((p) => `'${p.name}'`).join(", ")}]`;
  const history = [`user: ${task}`, ...turns.map((t) => `${t.speaker}: ${t.text}`)].join("\n");
  return (shape.selector_prompt || DEFAULT_SELECTOR_PROMPT).replaceAll("{roles}", roles).replaceAll("{participants}", participants).replaceAll("{history}", history);
}

/** The candidate the selector's answer names: exactly one mentioned (AutoGen `_mentioned_agents`), else null. */
export function parseSelection(answer: string, candidates: readonly Participant[]): Participant | null {
  const mentioned = candidates.filter((c) => new RegExp(`(^|\\W)${c.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\W|$)`).test(answer));
  return mentioned.length === 1 ? mentioned[0]! : null;
}

/** Whether `cond` is met after `turns`, and AutoGen's words for why. */
export function terminated(cond: Termination | null, turns: readonly Turn[], facts: ChatFacts): string | null {
  if (!cond) return null;
  switch (cond.kind) {
    case "text_mention": {
      const hit = turns.find((t) => (!cond.sources || cond.sources.includes(t.speaker)) && t.text.includes(cond.text));
      return hit ? `Text '${cond.text}' mentioned` : null;
    }
    case "max_message": {
      const count = 1 + turns.length + (cond.include_agent_event ? facts.agent_events : 0);
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
      const hit = turns.find((t) => cond.sources.includes(t.speaker));
      return hit ? `'${hit.speaker}' answered` : null;
    }
    case "text_message": {
      const hit = turns.find((t) => !cond.source || t.speaker === cond.source);
      return hit ? `Text message received from '${hit.speaker}'` : null;
    }
    case "function_call":
      return facts.tool_calls.includes(cond.function_name) ? `Function '${cond.function_name}' was executed.` : null;
    case "stop_message":
    case "external":
      return null; // no StopMessage or external stop in a Clutch run; a person cancels the run instead
    case "and": {
      const reasons = cond.conditions.map((c) => terminated(c, turns, facts));
      return reasons.every(Boolean) ? reasons.join("; ") : null;
    }
    case "or":
      return cond.conditions.map((c) => terminated(c, turns, facts)).find(Boolean) ?? null;
  }
}
