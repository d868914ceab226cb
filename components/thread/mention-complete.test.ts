/**
 * The composer's @-mention completion: finding the `@partial` at the caret,
 * the options from the agents' cards, filtering, and inserting — and that what is inserted is
 * read back by lib/mentions.ts (what the server uses) as that agent, person or capability.
 */
import { describe, expect, it } from "vitest";
import type { AgentSummary } from "@/lib/api/types";
import { parseMentions, personHandle } from "@/lib/mentions";
import { filterMentions, insertMention, mentionAt, mentionOptions, specialDescription, type MentionOption } from "./mention-complete";

function agent(name: string, title: string, capabilities: AgentSummary["card"]["capabilities"], status: AgentSummary["status"] = "online"): AgentSummary {
  return {
    agent_id: `agent:${name}`,
    name: title,
    description: null,
    status,
    card: { v: "clutch/0.1", agent_id: `agent:${name}`, display: { name: title }, capabilities },
  } as unknown as AgentSummary;
}

const AGENTS = [
  agent("analyst-1", "Data Analyst", [
    { id: "skill:data-analysis", version: "1.2", tags: ["sales", "superstore", "sql"] },
    { id: "tool:mcp", servers: ["DataServer"] },
  ]),
  agent("analyst-2", "Backup Analyst", [{ id: "skill:data-analysis", version: "1.10", tags: ["finance"] }], "busy"),
  agent("pm-1", "Project Manager", [{ id: "skill:planning", version: "1.0" }, { id: "tool:mcp" }]),
  agent("qa-1", "Quality Reviewer", [{ id: "skill:review" }], "offline"),
];
const PEOPLE = [
  { agent_id: "user:usr_dana", name: "Dana Scully", role: "admin" },
  { agent_id: "user:usr_jose", name: "José Ñúñez", role: "member" },
  { agent_id: "user:usr_lee", name: "Lee O'Brien Jr.", role: "guest" },
].map((p) => ({ ...p, handle: personHandle(p.name) }));
const OPTIONS = mentionOptions(AGENTS);
const WITH_PEOPLE = mentionOptions(AGENTS, PEOPLE, { special: true });
const label = (o: MentionOption) => (o.kind === "capability" || o.kind === "special" ? o.id : o.handle);
const known = new Set(AGENTS.map((a) => a.agent_id));

describe("mentionAt", () => {
  it.each([
    ["@", 1, { start: 0, end: 1, query: "" }],
    ["hi @ana", 7, { start: 3, end: 7, query: "ana" }],
    ["hi @ana", 5, { start: 3, end: 7, query: "a" }],
    ["(@skill:da", 10, { start: 1, end: 10, query: "skill:da" }],
    ["@skill:data-analysis@^1", 23, { start: 0, end: 23, query: "skill:data-analysis@^1" }],
    ["line one\n@qa", 12, { start: 9, end: 12, query: "qa" }],
  ])("finds the mention in %j at %i", (text, caret, want) => {
    expect(mentionAt(text, caret)).toEqual(want);
  });

  it.each([
    ["mail me at dana@example.com", 27],
    ["@ana and more", 13],
    ["@ana ", 5],
    ["no mention", 3],
    ["", 0],
  ])("finds none in %j at %i", (text, caret) => {
    expect(mentionAt(text, caret)).toBeNull();
  });
});

describe("mentionOptions", () => {
  it("lists every agent, then each capability once with its versions, agents and tags, without tool:mcp", () => {
    expect(OPTIONS.map(label)).toEqual(["analyst-1", "analyst-2", "pm-1", "qa-1", "skill:data-analysis", "skill:planning", "skill:review"]);
    const data = OPTIONS.find((o) => o.kind === "capability" && o.id === "skill:data-analysis");
    expect(data).toMatchObject({ versions: ["1.2", "1.10"], agents: ["analyst-1", "analyst-2"], tags: ["sales", "superstore", "sql", "finance"] });
    expect(OPTIONS.find((o) => o.kind === "agent" && o.handle === "qa-1")).toMatchObject({ name: "Quality Reviewer", status: "offline" });
  });
});

describe("filterMentions", () => {
  it.each([
    ["", ["analyst-1", "analyst-2", "pm-1", "qa-1", "skill:data-analysis", "skill:planning", "skill:review"]],
    // Handle prefix first, then a word start inside a capability id.
    ["ana", ["analyst-1", "analyst-2", "skill:data-analysis"]],
    ["ANA", ["analyst-1", "analyst-2", "skill:data-analysis"]],
    ["skill:", ["skill:data-analysis", "skill:planning", "skill:review"]],
    ["skill:plan", ["skill:planning"]],
    // By name and by tag.
    ["manager", ["pm-1"]],
    ["superstore", ["skill:data-analysis"]],
    ["agent:", ["analyst-1", "analyst-2", "pm-1", "qa-1"]],
    ["agent:qa", ["qa-1"]],
    ["skill:data-analysis@^1", ["skill:data-analysis"]],
    ["zzz", []],
  ])("%j matches %j", (q, want) => {
    expect(filterMentions(OPTIONS, q).map(label)).toEqual(want);
  });

  it("keeps at most `limit`", () => {
    expect(filterMentions(OPTIONS, "", 3)).toHaveLength(3);
  });
});

describe("insertMention", () => {
  const pick = (q: string) => filterMentions(OPTIONS, q)[0]!;

  it("replaces the typed @partial with the handle and a space, caret after it", () => {
    const text = "Hey @ana";
    const r = insertMention(text, mentionAt(text, 8)!, pick("ana"));
    expect(r).toEqual({ text: "Hey @analyst-1 ", caret: 15 });
  });

  it("inserts a capability id as is", () => {
    const text = "@skill:";
    expect(insertMention(text, mentionAt(text, 7)!, pick("skill:data")).text).toBe("@skill:data-analysis ");
  });

  it("replaces the whole token when the caret is inside it, and reuses a following space", () => {
    const text = "@anxx please look";
    const r = insertMention(text, mentionAt(text, 3)!, pick("an"));
    expect(r).toEqual({ text: "@analyst-1 please look", caret: 11 });
  });

  it("writes what the server reads as that agent, person or capability (lib/mentions.ts)", () => {
    for (const option of WITH_PEOPLE) {
      const text = "Please, @x";
      const { text: sent } = insertMention(text, mentionAt(text, text.length)!, option);
      const m = parseMentions(`${sent}which region had the highest sales?`, (id) => known.has(id), PEOPLE);
      if (option.kind === "agent") expect(m).toEqual({ agents: [option.agent_id], capabilities: [], people: [], special: [] });
      else if (option.kind === "person") expect(m).toEqual({ agents: [], capabilities: [], people: [option.agent_id], special: [] });
      else if (option.kind === "special") expect(m).toEqual({ agents: [], capabilities: [], people: [], special: [option.id] });
      else expect(m).toEqual({ agents: [], capabilities: [option.id], people: [], special: [] });
    }
  });
});

describe("people", () => {
  it("makes handles of profile names: spaces as _, letters of any script, no trailing punctuation", () => {
    expect(PEOPLE.map((p) => p.handle)).toEqual(["Dana_Scully", "José_Ñúñez", "Lee_OBrien_Jr"]);
  });

  it("offers the channel's people after the agents, matched by handle or a word of the name", () => {
    // "Data Analyst" (analyst-1's name) matches at a word start, after the handles.
    expect(filterMentions(WITH_PEOPLE, "da").map(label)).toEqual(["Dana_Scully", "skill:data-analysis", "analyst-1"]);
    expect(filterMentions(WITH_PEOPLE, "scu").map(label)).toEqual(["Dana_Scully"]);
    expect(filterMentions(WITH_PEOPLE, "agent:").some((o) => o.kind === "person")).toBe(false);
  });

  it("reads a person only among the given members: anyone else's handle or id is plain text", () => {
    const members = PEOPLE.slice(0, 1);
    expect(parseMentions("@Dana_Scully @José_Ñúñez @user:usr_lee hi", () => false, members)).toEqual({ agents: [], capabilities: [], people: ["user:usr_dana"], special: [] });
    expect(parseMentions("@dana_scully, and @user:usr_dana.", () => false, members).people).toEqual(["user:usr_dana"]);
    // Not in an e-mail address; an agent wins over a person of the same handle.
    expect(parseMentions("mail dana@Dana_Scully", () => false, members).people).toEqual([]);
    expect(parseMentions("@pm-1", (id) => id === "agent:pm-1", [{ agent_id: "user:usr_pm", name: "pm-1" }])).toEqual({ agents: ["agent:pm-1"], capabilities: [], people: [], special: [] });
  });
});

describe("@here and @channel", () => {
  it("are offered in a channel after its people, not in a direct message", () => {
    expect(WITH_PEOPLE.filter((o) => o.kind === "special").map(label)).toEqual(["here", "channel"]);
    expect(mentionOptions(AGENTS, PEOPLE).some((o) => o.kind === "special")).toBe(false);
  });

  it("are found by their words, @everyone finding @channel", () => {
    expect(filterMentions(WITH_PEOPLE, "he").map(label)).toEqual(["here"]);
    expect(filterMentions(WITH_PEOPLE, "ch").map(label)).toEqual(["channel"]);
    expect(filterMentions(WITH_PEOPLE, "every").map(label)).toEqual(["channel"]);
  });

  it("say what they do in the channel", () => {
    expect(specialDescription("here", "#sales")).toBe("Notify everyone online in #sales");
    expect(specialDescription("channel", "#sales")).toBe("Notify every member of #sales");
  });
});
