/**
 * The composer's @-mention completion, as pure functions: a person mentions an agent
 * (`@analyst-1`), a capability (`@skill:research`), a person of the channel (`@Dana_Scully`,
 * docs/channels.md "Mentions") or everyone (`@here`, `@channel`) and picks it from a list.
 *
 *   mentionAt(text, caret)      the `@partial` the caret is in, if it starts a mention
 *   mentionOptions(agents, people, { special })  every agent, every person of the channel,
 *                               `@here` and `@channel` (in a channel) and every capability
 *                               offered (not `tool:mcp`)
 *   filterMentions(opts, q)     the options matching what was typed, best first
 *   insertMention(text, at, o)  the text with `@partial` replaced by `@analyst-1 `
 *
 * What counts as a mention follows lib/mentions.ts, which the server reads the sent text with:
 * an `@` at the start of the text or after whitespace or `(`, then token characters. The tests
 * check that whatever `insertMention` writes is parsed back as that agent or capability.
 */
import type { AgentSummary } from "@/lib/api/types";
import { MENTION_TOKEN, type SpecialMention } from "@/lib/mentions";

/** A mention being typed: `text.slice(start, end)` is `@` + `query` (+ the rest of the token). */
export interface MentionQuery {
  /** Index of the `@`. */
  start: number;
  /** Index just after the token (the caret may be inside it). */
  end: number;
  /** What was typed between `@` and the caret. */
  query: string;
}

/** An agent to mention (`@analyst-1`). */
export interface AgentOption {
  kind: "agent";
  /** `agent:analyst-1`. */
  agent_id: string;
  /** `analyst-1`: what is inserted after `@`. */
  handle: string;
  name: string;
  description: string | null;
  status: AgentSummary["status"];
}

/** A capability to mention (`@skill:data-analysis`): the request is routed by Clutch §4.2. */
export interface CapabilityOption {
  kind: "capability";
  /** `skill:data-analysis`: what is inserted after `@`. */
  id: string;
  /** The versions offered, ascending (`["1.2"]`); empty when no agent gives one. */
  versions: string[];
  /** Handles of the agents that offer it. */
  agents: string[];
  tags: string[];
}

/** A person of the channel to mention (`@Dana_Scully`): `GET /api/threads/:id/people`. */
export interface PersonOption {
  kind: "person";
  /** `user:<id>`. */
  agent_id: string;
  /** `Dana_Scully` (lib/mentions.ts `personHandle`): what is inserted after `@`. */
  handle: string;
  name: string;
  role: string;
}

/** `@here` (everyone online in the channel) or `@channel` (every member), as in Slack. */
export interface SpecialOption {
  kind: "special";
  /** `here` or `channel`: what is inserted after `@`. */
  id: SpecialMention;
}

export type MentionOption = AgentOption | PersonOption | SpecialOption | CapabilityOption;

/** A person as the people endpoint lists them. */
export interface ChannelPerson {
  agent_id: string;
  name: string;
  handle: string;
  role: string;
}

/** Characters of a mention token (the same set as lib/mentions.ts). */
const TOKEN = MENTION_TOKEN;
/** Capabilities that are plumbing, not something to route a request by. */
const HIDDEN_CAPABILITIES = new Set(["tool:mcp"]);

/**
 * The mention the caret is in, or null: scans back from `caret` over token characters to an
 * `@` that is at the start of the text or after whitespace or `(`. `end` runs on to the end of
 * the token, so completing in the middle of a word replaces all of it.
 */
export function mentionAt(text: string, caret: number): MentionQuery | null {
  if (caret < 1 || caret > text.length) return null;
  let i = caret;
  while (i > 0 && TOKEN.test(text[i - 1]!)) i--;
  // The token may hold further `@`s (`@skill:x@^1.2`): the mention starts at the first one.
  const at = text.indexOf("@", i);
  if (at < 0 || at >= caret || at !== i) return null;
  if (at > 0 && !/[\s(]/.test(text[at - 1]!)) return null;
  let end = caret;
  while (end < text.length && TOKEN.test(text[end]!)) end++;
  return { start: at, end, query: text.slice(at + 1, caret) };
}

/** Dotted versions compared numerically (`1.10` after `1.9`); anything else as text. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  if (pa.some(Number.isNaN) || pb.some(Number.isNaN)) return a.localeCompare(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** The handle of an agent id: `agent:analyst-1` → `analyst-1`. */
export function handleOf(agent_id: string): string {
  return agent_id.startsWith("agent:") ? agent_id.slice("agent:".length) : agent_id;
}

/**
 * Every agent (by handle), then every person of the channel (`people`, by name; those without
 * a handle by their id), then `@here` and `@channel` when `special` (a channel, not a direct
 * message), then every distinct capability id across the agents' cards (with the versions, the
 * agents offering it and the union of its tags), capabilities sorted by id.
 */
export function mentionOptions(agents: readonly AgentSummary[], people: readonly ChannelPerson[] = [], { special = false }: { special?: boolean } = {}): MentionOption[] {
  const out: MentionOption[] = [];
  const caps = new Map<string, CapabilityOption>();
  for (const a of agents) {
    const handle = handleOf(a.agent_id);
    out.push({ kind: "agent", agent_id: a.agent_id, handle, name: a.name, description: a.description, status: a.status });
    for (const c of a.card?.capabilities ?? []) {
      if (HIDDEN_CAPABILITIES.has(c.id)) continue;
      let cap = caps.get(c.id);
      if (!cap) caps.set(c.id, (cap = { kind: "capability", id: c.id, versions: [], agents: [], tags: [] }));
      if (c.version && !cap.versions.includes(c.version)) cap.versions.push(c.version);
      if (!cap.agents.includes(handle)) cap.agents.push(handle);
      for (const t of c.tags ?? []) if (!cap.tags.includes(t)) cap.tags.push(t);
    }
  }
  for (const p of people) out.push({ kind: "person", agent_id: p.agent_id, handle: p.handle || p.agent_id, name: p.name, role: p.role });
  if (special) out.push({ kind: "special", id: "here" }, { kind: "special", id: "channel" });
  for (const cap of [...caps.values()].sort((a, b) => a.id.localeCompare(b.id))) {
    cap.versions.sort(compareVersions);
    out.push(cap);
  }
  return out;
}

/** How well `q` (lower case, non-empty) matches `s`: 0 prefix, 1 at a word start, 2 inside, null not. */
function matchRank(s: string, q: string): number | null {
  const v = s.toLowerCase();
  if (v.startsWith(q)) return 0;
  const i = v.indexOf(q);
  if (i < 0) return null;
  return /[\s:._/-]/.test(v[i - 1] ?? "") ? 1 : 2;
}

/** True when `q` matches `s` at its start or at a word start (names and tags). */
function atWordStart(s: string, q: string): boolean {
  const r = matchRank(s, q);
  return r !== null && r < 2;
}

function best(...ranks: (number | null)[]): number | null {
  const r = ranks.filter((x): x is number => x !== null);
  return r.length ? Math.min(...r) : null;
}

/**
 * The options matching `query` (what follows `@`), best first: a match at the start of the
 * handle or capability id, then at a word start in it, then anywhere in it, then at a word
 * start in the name or a tag. At equal rank agents come first, then people, `@here` and
 * `@channel` (`@everyone` finds `@channel`), then capabilities. `agent:` in the query only
 * matches agents; a version range after a second `@` (`skill:x@^1`) is ignored. At most `limit`.
 */
export function filterMentions(options: readonly MentionOption[], query: string, limit = 8): MentionOption[] {
  let q = query.split("@")[0]!.toLowerCase();
  const agentsOnly = q.startsWith("agent:");
  if (agentsOnly) q = q.slice("agent:".length);
  const ranked: { o: MentionOption; r: number; i: number }[] = [];
  options.forEach((o, i) => {
    if (agentsOnly && o.kind !== "agent") return;
    let r: number | null;
    if (!q) r = 0;
    else if (o.kind === "agent" || o.kind === "person") r = best(matchRank(o.handle, q), atWordStart(o.name, q) ? 3 : null);
    else if (o.kind === "special") r = best(matchRank(o.id, q), o.id === "channel" && "everyone".startsWith(q) ? 0 : null);
    else r = best(matchRank(o.id, q), o.tags.some((t) => atWordStart(t, q)) ? 3 : null);
    if (r !== null) ranked.push({ o, r, i });
  });
  ranked.sort((a, b) => a.r - b.r || a.i - b.i);
  return ranked.slice(0, limit).map((x) => x.o);
}

/** What `@` is followed by when `option` is inserted: the handle, `here` / `channel` or the capability id. */
export function mentionText(option: MentionOption): string {
  return option.kind === "capability" || option.kind === "special" ? option.id : option.handle;
}

/** What `@here` and `@channel` do in channel `channel` ("#sales"), as the completion says it. */
export function specialDescription(id: SpecialMention, channel: string): string {
  return id === "here" ? `Notify everyone online in ${channel}` : `Notify every member of ${channel}`;
}

/**
 * `text` with the mention `at` replaced by `@<handle or id>` and one space (an existing space
 * after the token is reused, not doubled); `caret` is just after that space.
 */
export function insertMention(text: string, at: MentionQuery, option: MentionOption): { text: string; caret: number } {
  const inserted = `@${mentionText(option)}`;
  const rest = text.slice(at.end);
  const glue = /^\s/.test(rest) ? "" : " ";
  const next = text.slice(0, at.start) + inserted + glue + rest;
  return { text: next, caret: at.start + inserted.length + 1 };
}

/** "2 agents" / "1 agent". */
export function agentCount(n: number): string {
  return `${n} agent${n === 1 ? "" : "s"}`;
}
