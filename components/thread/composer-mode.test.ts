/** What the composer says a message will do before it is sent (components/thread/composer-mode.ts; docs/channels.md "Who answers"). */
import { describe, expect, it } from "vitest";
import { composerMode, modeLine, toggleLabel, type ChannelAnswers } from "./composer-mode";

const names: Record<string, string> = { "agent:pm-1": "Project Manager", "agent:analyst-1": "Analyst Agent", "user:lee": "Lee Park" };
const nameOf = (id: string) => names[id] ?? id;
const isAgent = (id: string) => id.startsWith("agent:");
const help: ChannelAnswers = { entry_agent: "agent:pm-1", answers: "every_message" };
const quiet: ChannelAnswers = { entry_agent: "agent:pm-1", answers: "mentions" };
const line = (input: Parameters<typeof composerMode>[0]) => modeLine(composerMode(input), nameOf);

describe("the composer's line", () => {
  it("says a new message starts a run with the entry agent where it answers every message, and is plain chat where agents answer when mentioned", () => {
    expect(line({ target: { kind: "new" }, plain: false, mentions: [], channel: help, isAgent })).toBe("Starts a run with Project Manager");
    expect(line({ target: { kind: "new" }, plain: false, mentions: [], channel: quiet, isAgent })).toBe("Just chat: @mention an agent to ask it");
    expect(line({ target: { kind: "new" }, plain: false, mentions: ["agent:analyst-1"], channel: quiet, isAgent })).toBe("Starts a run with Analyst Agent");
    expect(line({ target: { kind: "new" }, plain: false, mentions: ["skill:data-analysis"], channel: quiet, isAgent })).toBe("Starts a run routed by skill:data-analysis");
    expect(line({ target: { kind: "new" }, plain: false, mentions: ["user:lee"], channel: help, isAgent })).toBe("A message for Lee Park: no agent answers");
    // A channel no agent takes messages in: nothing to say beyond the keys.
    expect(line({ target: { kind: "new" }, plain: false, mentions: [], channel: null, isAgent })).toBeNull();
  });

  it("switches a message that would ask an agent to plain chat (Esc) and back", () => {
    const asking = composerMode({ target: { kind: "new" }, plain: false, mentions: [], channel: help, isAgent });
    expect(toggleLabel(asking, false, "agent:pm-1", nameOf)).toBe("Just chat");
    const chatting = composerMode({ target: { kind: "new" }, plain: true, mentions: [], channel: help, isAgent });
    expect(modeLine(chatting, nameOf)).toBe("Just chat: no agent answers");
    expect(toggleLabel(chatting, true, "agent:pm-1", nameOf)).toBe("Ask Project Manager");
    // Plain chat has nothing to switch from.
    const talk = composerMode({ target: { kind: "new" }, plain: false, mentions: [], channel: quiet, isAgent });
    expect(toggleLabel(talk, false, null, nameOf)).toBeNull();
  });

  it("says what a reply in a run's thread does: continue the run, answer the question, or just chat", () => {
    expect(line({ target: { kind: "follow_up", agent: "agent:pm-1" }, plain: false, mentions: [], channel: help, isAgent })).toBe("Continues the run: Project Manager answers");
    expect(line({ target: { kind: "answer", agent: "agent:pm-1" }, plain: false, mentions: [], channel: help, isAgent })).toBe("Answers Project Manager’s question");
    expect(line({ target: { kind: "follow_up", agent: "agent:pm-1" }, plain: true, mentions: [], channel: help, isAgent })).toBe("Just chat: no agent answers");
    expect(line({ target: { kind: "thread" }, plain: false, mentions: [], channel: help, isAgent })).toBe("Reply in thread: no agent answers");
  });
});
