/**
 * lib/answers.ts `newMessageOutcome`: who answers a new message, by its mentions. `@here` and
 * `@channel` notify people: they never route a run as if they were capabilities.
 */
import { describe, expect, it } from "vitest";
import { newMessageOutcome } from "./answers";

const isAgent = (id: string) => id === "agent:pm-1";
const outcome = (mentions: string[], answers: "mentions" | "every_message" = "every_message") => newMessageOutcome({ mentions, entry_agent: "agent:pm-1", answers, isAgent });

describe("newMessageOutcome", () => {
  it("makes a message that mentions only @here, @channel or people plain chat", () => {
    expect(outcome(["here"])).toEqual({ kind: "chat", why: "people" });
    expect(outcome(["channel", "user:usr_lee"])).toEqual({ kind: "chat", why: "people" });
  });

  it("routes by capabilities only, leaving @here and @channel out", () => {
    expect(outcome(["channel", "skill:research"])).toEqual({ kind: "routed", capabilities: ["skill:research"] });
  });

  it("asks an agent that is mentioned beside @channel", () => {
    expect(outcome(["agent:pm-1", "channel"], "mentions")).toEqual({ kind: "run", agent: "agent:pm-1" });
  });
});
