/**
 * Mentions of an agent, a capability or a person in a message, shared by the composer's
 * completion and the server, which reads them out of the text (docs/channels.md "Mentions").
 *
 *   `@analyst-1`, `@agent:analyst-1`  an agent (when such an agent is known)
 *   `@skill:research`                 a capability: the request is routed by Clutch §4.2
 *   `@skill:research@^1.2`            a capability within a version range (no spaces)
 *   `@Dana_Scully`, `@user:usr_…`      a person who is a member of the channel (their profile
 *                                     name as a handle, see `personHandle`, or their id)
 *   `@channel`, `@everyone`, `@here`   everyone in the channel (`channel`), or those online
 *                                     (`here`), as in Slack: reserved words, stored as
 *                                     `channel` / `here`; they notify people and start no run
 *
 * A token is a mention only at the start of the text or after whitespace or `(`, so e-mail
 * addresses are not mentions. A person is mentioned only when the caller lists them among the
 * channel's members: a handle of anybody else stays plain text, and nothing about them is read.
 */

/** The characters a mention token may hold after `@` (letters of any script, for people's names). */
export const MENTION_TOKEN = /[\p{L}\p{N}_.:@^~<>=*-]/u;

export interface Mentions {
  /** Clutch agent ids named (`agent:analyst-1`), in order of first mention. */
  agents: string[];
  /** Capability requirements named (`skill:research`, `skill:research@^1.2`). */
  capabilities: string[];
  /** People named (`user:<id>`), members of the channel only, in order of first mention. */
  people: string[];
  /** `channel` (for `@channel` and `@everyone`) and `here`, in order of first mention. */
  special: SpecialMention[];
}

/** What `@channel` / `@everyone` and `@here` are stored as in `payload.mentions`. */
export const SPECIAL_MENTIONS = ["here", "channel"] as const;
export type SpecialMention = (typeof SPECIAL_MENTIONS)[number];

/** The reserved words after `@` and what each mentions (`@everyone` is another name for `@channel`). */
const SPECIAL_WORDS: Readonly<Record<string, SpecialMention>> = { here: "here", channel: "channel", everyone: "channel" };

/** The special mention a token names (`here`, `Channel`, `everyone`), matched without regard to case; else null. */
export function specialMention(token: string): SpecialMention | null {
  return Object.hasOwn(SPECIAL_WORDS, token.toLowerCase()) ? SPECIAL_WORDS[token.toLowerCase()]! : null;
}

/** True for a stored mention that is `here` or `channel`. */
export function isSpecialMention(mention: string): mention is SpecialMention {
  return (SPECIAL_MENTIONS as readonly string[]).includes(mention);
}

/**
 * True for a stored mention that is a capability (`skill:research`): neither an agent, a person
 * nor a special mention. Who answers a message (lib/answers.ts) routes by these only.
 */
export function isCapabilityMention(mention: string): boolean {
  return !mention.startsWith("agent:") && !mention.startsWith("user:") && !isSpecialMention(mention);
}

/** The ids stored as a message's `payload.mentions`: agents, capabilities, people, then special mentions. */
export function mentionIds(m: Mentions): string[] {
  return [...m.agents, ...m.capabilities, ...m.people, ...m.special];
}

/** A person who may be mentioned: `user:<id>` and their profile name. */
export interface MentionablePerson {
  agent_id: string;
  name: string;
}

/**
 * The handle a person is mentioned by: their profile name with spaces as `_` and only letters,
 * digits, `_`, `.` and `-` kept (`Dana Scully` → `Dana_Scully`, `Lee O'Brien` → `Lee_OBrien`).
 * Matched without regard to case. Empty when nothing of the name is left.
 */
export function personHandle(name: string): string {
  return name
    .normalize("NFC")
    .trim()
    .replace(/\s+/g, "_")
    .replace(/[^\p{L}\p{N}_.-]/gu, "")
    .replace(/[._-]+$/, "");
}

/** Where a mention is written: `text.slice(start, end)` is `@` + `token`. */
export interface MentionSpan {
  /** Index (UTF-16) of the `@`. */
  start: number;
  /** Index just after the token, trailing punctuation left out. */
  end: number;
  token: string;
}

/**
 * Each `@token` that starts a mention, where it is in `text`: an `@` at the start of the text or
 * after whitespace or `(`, then token characters, trailing `.:,;` left out.
 */
export function mentionSpans(text: string): MentionSpan[] {
  const out: MentionSpan[] = [];
  const chars = Array.from(text);
  // The UTF-16 index of each character (letters beyond the BMP take two units).
  const at: number[] = [];
  let offset = 0;
  for (const c of chars) {
    at.push(offset);
    offset += c.length;
  }
  at.push(offset);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== "@" || (i > 0 && !/[\s(]/.test(chars[i - 1]!))) continue;
    let j = i + 1;
    while (j < chars.length && MENTION_TOKEN.test(chars[j]!)) j++;
    const token = chars.slice(i + 1, j).join("").replace(/[.:,;]+$/, "");
    if (token) out.push({ start: at[i]!, end: at[i]! + 1 + token.length, token });
    i = j - 1;
  }
  return out;
}

/** The raw tokens after each `@` that starts a mention, trailing punctuation trimmed. */
export function mentionTokens(text: string): string[] {
  return mentionSpans(text).map((s) => s.token);
}

/**
 * The agents, capabilities, people and special mentions a text has. `isAgent(id)` says whether
 * a Clutch agent id (`agent:<name>`) is known; `people` are the members of the channel who may be
 * mentioned (a token naming anyone else is no mention). `@here`, `@channel` and `@everyone` are
 * reserved: always the special mention, never an agent or a person. An agent wins over a person
 * of the same handle; a handle several members share mentions each of them. An unknown plain
 * name (`@someone`) is nothing.
 */
export function parseMentions(text: string, isAgent: (agent_id: string) => boolean, people: readonly MentionablePerson[] = []): Mentions {
  const agents: string[] = [];
  const capabilities: string[] = [];
  const named: string[] = [];
  const special: SpecialMention[] = [];
  const add = <T extends string>(list: T[], id: T) => {
    if (!list.includes(id)) list.push(id);
  };
  for (const token of mentionTokens(text)) {
    const reserved = specialMention(token);
    if (reserved) {
      add(special, reserved);
      continue;
    }
    const asAgent = token.startsWith("agent:") ? token : `agent:${token}`;
    if (isAgent(asAgent)) {
      add(agents, asAgent);
      continue;
    }
    if (token.startsWith("user:")) {
      if (people.some((p) => p.agent_id === token)) add(named, token);
      continue;
    }
    const lower = token.toLowerCase();
    const matches = people.filter((p) => {
      const h = personHandle(p.name);
      return h !== "" && h.toLowerCase() === lower;
    });
    if (matches.length) {
      for (const p of matches) add(named, p.agent_id);
    } else if (/^[a-z][a-z0-9_-]*:[^:@]+/i.test(token) && !token.startsWith("agent:")) {
      add(capabilities, token);
    }
  }
  return { agents, capabilities, people: named, special };
}

/**
 * True when a message's `payload.mentions` name people only, `@here` and `@channel` included (a
 * conversation between people: it starts no run).
 */
export function mentionsOnlyPeople(mentions: readonly string[] | undefined): boolean {
  return !!mentions?.length && mentions.every((m) => m.startsWith("user:") || isSpecialMention(m));
}
