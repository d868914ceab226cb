/**
 * Who answers a person's new top-level message in a channel (docs/channels.md "Who answers"),
 * the rule the orchestrator applies and the composer states before sending. Pure, shared by the
 * server and the browser.
 *
 *   the message is plain chat (`to` names only people)          → no agent (chat)
 *   it @mentions an agent                                       → that agent (a new run)
 *   it @mentions capabilities (no agent)                        → routed by them (a new run)
 *   it @mentions only people (`@here` and `@channel` included)  → no agent (chat)
 *   a DM with an agent, or a channel whose entry agent answers
 *   `every_message`                                             → the entry agent (a new run)
 *   otherwise (`mentions`, the default, as Slack apps do)       → no agent (chat)
 */
import { isPeopleRecipient } from "./fold/questions";
import { isCapabilityMention } from "./mentions";

/** A channel's setting: agents answer when @mentioned, or its entry agent takes every new message. */
export const ANSWER_MODES = ["mentions", "every_message"] as const;
export type AnswerMode = (typeof ANSWER_MODES)[number];

/** What a new top-level message does. */
export type NewMessageOutcome =
  | { kind: "run"; agent: string }
  | { kind: "routed"; capabilities: string[] }
  | { kind: "chat"; why: "chat_only" | "people" | "not_addressed" | "no_agent" };

/**
 * The outcome of a new message with `mentions` (lib/mentions.ts order: agents, capabilities,
 * people) in a channel whose entry agent is `entry_agent` (null: none) and which answers
 * `answers`; `chatOnly` when the person chose plain chat; `isAgent` tells agents from
 * capabilities among the mentions.
 */
export function newMessageOutcome(input: {
  mentions: readonly string[];
  entry_agent: string | null;
  answers: AnswerMode;
  chatOnly?: boolean;
  isAgent: (id: string) => boolean;
}): NewMessageOutcome {
  if (input.chatOnly) return { kind: "chat", why: "chat_only" };
  const agent = input.mentions.find((m) => input.isAgent(m));
  if (agent) return { kind: "run", agent };
  // `here` and `channel` notify people, like a person's mention: they are no capability to route by.
  const capabilities = input.mentions.filter(isCapabilityMention);
  if (capabilities.length) return { kind: "routed", capabilities };
  if (input.mentions.length) return { kind: "chat", why: "people" };
  if (!input.entry_agent) return { kind: "chat", why: "no_agent" };
  return input.answers === "every_message" ? { kind: "run", agent: input.entry_agent } : { kind: "chat", why: "not_addressed" };
}

/**
 * True when a person's message is plain chat by its address: `to` names only people (`user`,
 * `user:<id>`), so no agent is asked (server/events/chat.ts `chat_only`).
 */
export function addressedToPeopleOnly(to: readonly { agent_id: string; role?: string }[]): boolean {
  return to.length > 0 && to.every(isPeopleRecipient);
}
