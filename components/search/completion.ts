/**
 * Completion of the search box's operators as they are typed (docs/channels.md "Search",
 * lib/search/query.ts): channels after `in:#` (a direct message by its other party's name, as
 * the person reads it: docs/channels.md "One name per agent"), agents and people after `from:` (people after
 * `from:@`), kinds after `is:`, today and yesterday after `on:`, `after:` and `before:`.
 * `completions` is pure (the lists come in); `acceptCompletion` puts the chosen one in the box.
 */
import { personHandle } from "@/lib/mentions";
import { replaceToken, SEARCH_KINDS, tokenAtCaret } from "@/lib/search/query";

/** One suggestion: what the list shows and what replaces the token under the caret. */
export interface Completion {
  key: string;
  label: string;
  /** A second, quieter line (a channel's topic, an agent's id). */
  detail?: string;
  insert: string;
  /** The token under the caret when it was offered: [start, end). */
  start: number;
  end: number;
}

export interface CompletionSources {
  /** `label`: how the person reads the thread ("#sales", a DM's other party: components/identity/channel-label.ts); else `#<name>`. */
  channels: readonly { name: string; topic?: string; label?: string }[];
  agents: readonly { agent_id: string; name?: string }[];
  people: readonly { agent_id: string; name: string }[];
}

const MAX = 8;
const bare = (id: string) => id.replace(/^agent:/, "");

/** Names that start with `v` first, then those that contain it. */
function best<T>(items: readonly T[], v: string, keys: (t: T) => string[]): T[] {
  const low = v.toLowerCase();
  const score = (t: T) => {
    const ks = keys(t).map((k) => k.toLowerCase());
    if (ks.some((k) => k.startsWith(low))) return 0;
    if (ks.some((k) => k.includes(low))) return 1;
    return 2;
  };
  return items
    .map((t) => ({ t, s: score(t) }))
    .filter((x) => x.s < 2)
    .sort((a, b) => a.s - b.s)
    .map((x) => x.t);
}

/** The suggestions for the token under the caret (none when it is no operator with a value to complete). */
export function completions(text: string, caret: number, src: CompletionSources): Completion[] {
  const t = tokenAtCaret(text, caret);
  if (!t?.operator || t.end !== caret) return [];
  const v = t.value ?? "";
  const at = { start: t.start, end: t.end };
  const done = (insert: string) => insert === t.raw;
  let out: Completion[] = [];
  switch (t.operator) {
    case "in": {
      const name = v.replace(/^#/, "");
      out = best(src.channels, name, (c) => [c.name, c.label?.replace(/^#/, "") ?? ""]).map((c) => ({
        key: `in:${c.name}`,
        label: c.label ?? `#${c.name}`,
        detail: c.topic || undefined,
        insert: `in:#${c.name}`,
        ...at,
      }));
      break;
    }
    case "from": {
      const person = v.startsWith("@");
      const name = person ? v.slice(1) : v;
      const people = best(src.people, name, (p) => [p.name, personHandle(p.name)]).map((p) => ({
        key: `from:${p.agent_id}`,
        label: p.name,
        detail: `@${personHandle(p.name)}`,
        insert: `from:@${personHandle(p.name)}`,
        ...at,
      }));
      const agents = person
        ? []
        : best(src.agents, name, (a) => [bare(a.agent_id), a.name ?? ""]).map((a) => ({
            key: `from:${a.agent_id}`,
            label: a.name?.trim() || bare(a.agent_id),
            detail: bare(a.agent_id),
            insert: `from:${bare(a.agent_id)}`,
            ...at,
          }));
      out = [...agents, ...people];
      break;
    }
    case "is":
      out = best(Object.keys(SEARCH_KINDS), v, (k) => [k]).map((k) => ({ key: `is:${k}`, label: `is:${k}`, detail: SEARCH_KINDS[k as keyof typeof SEARCH_KINDS], insert: `is:${k}`, ...at }));
      break;
    case "on":
    case "after":
    case "before":
      out = best(["today", "yesterday"], v, (k) => [k]).map((k) => ({ key: `${t.operator}:${k}`, label: `${t.operator}:${k}`, detail: "or a day as YYYY-MM-DD", insert: `${t.operator}:${k}`, ...at }));
      break;
  }
  // Nothing left to complete once the token is exactly the only suggestion.
  if (out.length === 1 && done(out[0]!.insert)) return [];
  return out.slice(0, MAX);
}

/** The box's text and caret once `c` is chosen (a space after it, ready for the next word). */
export function acceptCompletion(text: string, c: Completion): { text: string; caret: number } {
  return replaceToken(text, c.start, c.end, c.insert, true);
}
