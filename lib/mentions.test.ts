/**
 * lib/mentions.ts: where mentions are written (the browser draws them inline from these spans),
 * the special mentions `@here`, `@channel` and `@everyone`, and which stored mentions are
 * capabilities. The composer's completion is tested in components/thread/mention-complete.test.ts.
 */
import { describe, expect, it } from "vitest";
import { isCapabilityMention, mentionIds, mentionSpans, mentionsOnlyPeople, parseMentions } from "./mentions";

const PEOPLE = [
  { agent_id: "user:usr_lee", name: "Lee Member" },
  { agent_id: "user:usr_here", name: "Here" },
];
const isAgent = (id: string) => id === "agent:pm-1";

describe("mentionSpans", () => {
  it("finds each @token with its place, trailing punctuation left out", () => {
    const text = "Hi @Lee_Member, ask @pm-1. (@skill:research) mail a@b.c";
    expect(mentionSpans(text)).toEqual([
      { start: 3, end: 14, token: "Lee_Member" },
      { start: 20, end: 25, token: "pm-1" },
      { start: 28, end: 43, token: "skill:research" },
    ]);
    for (const s of mentionSpans(text)) expect(text.slice(s.start, s.end)).toBe(`@${s.token}`);
  });

  it("counts in UTF-16 units, letters beyond the BMP included", () => {
    const text = "𝒜 @José_Ñúñez!";
    const [span] = mentionSpans(text);
    expect(text.slice(span!.start, span!.end)).toBe("@José_Ñúñez");
  });
});

describe("special mentions", () => {
  it("reads @here, @channel and @everyone (any case) as here and channel, before people and agents", () => {
    const m = parseMentions("@here @Channel and @everyone, @Lee_Member", isAgent, PEOPLE);
    expect(m).toEqual({ agents: [], capabilities: [], people: ["user:usr_lee"], special: ["here", "channel"] });
    // A person named "Here" is not mentioned by @here: the word is reserved.
    expect(parseMentions("@here", isAgent, PEOPLE).people).toEqual([]);
  });

  it("stores them after agents, capabilities and people", () => {
    expect(mentionIds(parseMentions("@channel @pm-1 @skill:research @Lee_Member", isAgent, PEOPLE))).toEqual(["agent:pm-1", "skill:research", "user:usr_lee", "channel"]);
  });

  it("are no capabilities, and count like people", () => {
    expect(["here", "channel", "user:usr_lee", "agent:pm-1", "skill:research"].filter(isCapabilityMention)).toEqual(["skill:research"]);
    expect(mentionsOnlyPeople(["here", "user:usr_lee"])).toBe(true);
    expect(mentionsOnlyPeople(["channel", "skill:research"])).toBe(false);
  });
});
