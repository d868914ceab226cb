/**
 * What the composer's next message will do, said before it is sent (docs/channels.md "Who
 * answers"): start a run, continue one, answer a question, or be plain chat that no agent
 * answers; and what Esc switches it to. Pure: the composer renders it, the tests read it.
 */
import { newMessageOutcome, type AnswerMode } from "@/lib/answers";
import { isSpecialMention } from "@/lib/mentions";

/** Who answers in the channel the composer writes to: its entry agent and its setting (a DM with an agent: `every_message`). */
export interface ChannelAnswers {
  entry_agent: string | null;
  answers: AnswerMode;
}

/** What the message does, as the composer's target and the text's mentions make it. */
export type ComposerMode =
  | { kind: "run"; agent: string }
  | { kind: "routed"; capabilities: string[] }
  | { kind: "continue"; agent: string }
  | { kind: "answer"; agent: string }
  | { kind: "chat"; why: "chat_only" | "people" | "not_addressed" | "no_agent" | "thread"; people?: string[] };

/**
 * The mode of the next message. `target` is the composer's (a new message, an answer, a
 * follow-up of an agent, a reply in a person's thread); `plain` is set when the person switched
 * to plain chat (Esc); `mentions` are the text's (lib/mentions.ts ids, agents first).
 */
export function composerMode(input: {
  target: { kind: "new" } | { kind: "answer"; agent: string } | { kind: "follow_up"; agent: string } | { kind: "thread" };
  plain: boolean;
  mentions: readonly string[];
  channel: ChannelAnswers | null;
  isAgent: (id: string) => boolean;
}): ComposerMode {
  const { target, plain } = input;
  if (target.kind === "thread") return { kind: "chat", why: "thread" };
  if (target.kind === "answer") return plain ? { kind: "chat", why: "chat_only" } : { kind: "answer", agent: target.agent };
  if (target.kind === "follow_up") return plain ? { kind: "chat", why: "chat_only" } : { kind: "continue", agent: target.agent };
  const outcome = newMessageOutcome({
    mentions: input.mentions,
    entry_agent: input.channel?.entry_agent ?? null,
    answers: input.channel?.answers ?? "mentions",
    chatOnly: plain,
    isAgent: input.isAgent,
  });
  if (outcome.kind === "run") return { kind: "run", agent: outcome.agent };
  if (outcome.kind === "routed") return { kind: "routed", capabilities: outcome.capabilities };
  return outcome.why === "people"
    ? { kind: "chat", why: "people", people: input.mentions.filter((m) => m.startsWith("user:") || isSpecialMention(m)) }
    : { kind: "chat", why: outcome.why };
}

/**
 * The line under the box, in people's words ("Starts a run with Project Manager"), or null
 * when there is nothing to say (plain chat in a channel without agents). `nameOf` names agents,
 * people and `here` / `channel` ("everyone in #sales").
 */
export function modeLine(mode: ComposerMode, nameOf: (id: string) => string): string | null {
  switch (mode.kind) {
    case "run":
      return `Starts a run with ${nameOf(mode.agent)}`;
    case "routed":
      return `Starts a run routed by ${mode.capabilities.join(" + ")}`;
    case "continue":
      return `Continues the run: ${nameOf(mode.agent)} answers`;
    case "answer":
      return `Answers ${nameOf(mode.agent)}’s question`;
    case "chat":
      switch (mode.why) {
        case "chat_only":
          return "Just chat: no agent answers";
        case "people":
          return `A message for ${(mode.people ?? []).map(nameOf).join(", ")}: no agent answers`;
        case "not_addressed":
          return "Just chat: @mention an agent to ask it";
        case "thread":
          return "Reply in thread: no agent answers";
        case "no_agent":
          return null;
      }
  }
}

/**
 * What Esc switches to, as its button reads ("Just chat", "Ask Project Manager"), or null when
 * Esc has nothing to switch: a message that asks an agent can always become plain chat, and
 * plain chat can go back to asking the agent it would have asked (`asked`: the entry agent of a
 * channel that answers every message, or the agent a follow-up or an answer is for).
 */
export function toggleLabel(mode: ComposerMode, plain: boolean, asked: string | null, nameOf: (id: string) => string): string | null {
  if (plain) return asked ? `Ask ${nameOf(asked)}` : "Ask an agent";
  return mode.kind === "run" || mode.kind === "routed" || mode.kind === "continue" ? "Just chat" : null;
}
