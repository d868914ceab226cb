/**
 * Mentions of an agent or a capability in a person's message, shared by the
 * composer's completion and the server, which reads them out of the text.
 *
 *   `@analyst-1`, `@agent:analyst-1`  an agent (when such an agent is known)
 *   `@skill:research`                 a capability: the request is routed by Clutch §4.2
 *   `@skill:research@^1.2`            a capability within a version range (no spaces)
 *
 * A token is a mention only at the start of the text or after whitespace or `(`, so e-mail
 * addresses are not mentions.
 */

/** The characters a mention token may hold after `@`. */
const TOKEN = /[A-Za-z0-9_.:@^~<>=*-]/;

export interface Mentions {
  /** Clutch agent ids named (`agent:analyst-1`), in order of first mention. */
  agents: string[];
  /** Capability requirements named (`skill:research`, `skill:research@^1.2`). */
  capabilities: string[];
}

/** The raw tokens after each `@` that starts a mention, trailing punctuation trimmed. */
export function mentionTokens(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "@" || (i > 0 && !/[\s(]/.test(text[i - 1]!))) continue;
    let j = i + 1;
    while (j < text.length && TOKEN.test(text[j]!)) j++;
    const token = text.slice(i + 1, j).replace(/[.:,;]+$/, "");
    if (token) out.push(token);
    i = j - 1;
  }
  return out;
}

/**
 * The agents and capabilities a text mentions. `isAgent(id)` says whether a Clutch agent id
 * (`agent:<name>`) is known; an unknown plain name (`@someone`) is neither.
 */
export function parseMentions(text: string, isAgent: (agent_id: string) => boolean): Mentions {
  const agents: string[] = [];
  const capabilities: string[] = [];
  for (const token of mentionTokens(text)) {
    const asAgent = token.startsWith("agent:") ? token : `agent:${token}`;
    if (isAgent(asAgent)) {
      if (!agents.includes(asAgent)) agents.push(asAgent);
    } else if (/^[a-z][a-z0-9_-]*:[^:@]+/i.test(token) && !token.startsWith("agent:")) {
      if (!capabilities.includes(token)) capabilities.push(token);
    }
  }
  return { agents, capabilities };
}
