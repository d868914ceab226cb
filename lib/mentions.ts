/**
 * Mentions of an agent, a capability or a person in a message, shared by the composer's
 * completion and the server, which reads them out of the text (docs/channels.md "Mentions").
 *
 *   `@analyst-1`, `@agent:analyst-1`  an agent (when such an agent is known)
 *   `@skill:research`                 a capability: the request is routed by Clutch §4.2
 *   `@skill:research@^1.2`            a capability within a version range (no spaces)
 *   `@Dana_Scully`, `@user:usr_…`      a person who is a member of the channel (their profile
 *                                     name as a handle, see `personHandle`, or their id)
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

/** The raw tokens after each `@` that starts a mention, trailing punctuation trimmed. */
export function mentionTokens(text: string): string[] {
  const out: string[] = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== "@" || (i > 0 && !/[\s(]/.test(chars[i - 1]!))) continue;
    let j = i + 1;
    while (j < chars.length && MENTION_TOKEN.test(chars[j]!)) j++;
    const token = chars.slice(i + 1, j).join("").replace(/[.:,;]+$/, "");
    if (token) out.push(token);
    i = j - 1;
  }
  return out;
}

/**
 * The agents, capabilities and people a text mentions. `isAgent(id)` says whether a Clutch
 * agent id (`agent:<name>`) is known; `people` are the members of the channel who may be
 * mentioned (a token naming anyone else is no mention). An agent wins over a person of the
 * same handle; a handle several members share mentions each of them. An unknown plain name
 * (`@someone`) is nothing.
 */
export function parseMentions(text: string, isAgent: (agent_id: string) => boolean, people: readonly MentionablePerson[] = []): Mentions {
  const agents: string[] = [];
  const capabilities: string[] = [];
  const named: string[] = [];
  const add = (list: string[], id: string) => {
    if (!list.includes(id)) list.push(id);
  };
  for (const token of mentionTokens(text)) {
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
  return { agents, capabilities, people: named };
}

/** True when a message's `payload.mentions` name people only (a conversation between people: it starts no run). */
export function mentionsOnlyPeople(mentions: readonly string[] | undefined): boolean {
  return !!mentions?.length && mentions.every((m) => m.startsWith("user:"));
}
