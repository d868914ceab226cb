/**
 * Who sent an event, for display: avatar or initials and name, humans and agents told apart at
 * a glance. Humans are `role: "human"` or `user:` ids; everyone else counts as an agent.
 */
import { isAutogenName } from "@/lib/autogen-name";
import { personId } from "@/lib/people";
import { isClutchSender } from "@/lib/clutch-senders";
import type { Participant } from "@/lib/protocol";

/** True for a person rather than an agent or the system. */
export function isHuman(p: Participant | undefined): boolean {
  if (!p) return false;
  return p.role === "human" || p.agent_id.startsWith("user:");
}

/** The id without its reserved prefix: `agent:ken` → `ken`. */
export function bareId(id: string): string {
  const i = id.indexOf(":");
  return i > 0 && i < id.length - 1 ? id.slice(i + 1) : id;
}

/** True for Clutch itself (lib/clutch-senders.ts) rather than an agent or a person: shown as "Clutch". */
export function isClutch(p: Participant | undefined): boolean {
  return Boolean(p && isClutchSender(p.agent_id));
}

/**
 * True for an agent of an AutoGen team Clutch watches (`agent:autogen`, `agent:autogen-<source>`)
 * under the name Clutch gave it, "AutoGen · pm-1" (lib/autogen-name.ts): it is shown by that
 * name, never by a directory card's, so it never reads as a Clutch agent's words.
 */
export function isAutogen(p: Participant | undefined): boolean {
  return Boolean(p && (p.agent_id === "agent:autogen" || p.agent_id.startsWith("agent:autogen-")) && isAutogenName(p.display_name));
}

/** The name to show: "Clutch" for Clutch's own senders, else `display_name`, else the bare id. */
export function displayName(p: Participant | undefined): string {
  if (!p) return "unknown";
  if (isClutch(p)) return "Clutch";
  const n = typeof p.display_name === "string" ? p.display_name.trim() : "";
  return n || bareId(p.agent_id);
}

/**
 * The names a person reads for several agents shown together (a routing table, a list of
 * recipients; docs/channels.md "One name per agent"): each id's `nameOf`, with its handle beside
 * it where two ids share a name, so they cannot be confused:
 * `["agent:analyst-1", "agent:analyst-2", "agent:pm-1"]` → `{ "agent:analyst-1": "Analyst (analyst-1)",
 * "agent:analyst-2": "Analyst (analyst-2)", "agent:pm-1": "Project Manager" }`.
 */
export function distinctNames(ids: readonly string[], nameOf: (id: string) => string): Map<string, string> {
  const unique = [...new Set(ids)];
  const named = unique.map((id) => [id, nameOf(id)] as const);
  const count = new Map<string, number>();
  for (const [, name] of named) count.set(name.toLowerCase(), (count.get(name.toLowerCase()) ?? 0) + 1);
  return new Map(named.map(([id, name]) => [id, count.get(name.toLowerCase())! > 1 && bareId(id) !== name ? `${name} (${bareId(id)})` : name]));
}

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const HUES = [262, 212, 172, 142, 32, 350, 292, 192, 12, 232];

/** A stable hue (0–360) for an id, so a sender keeps their colour. */
export function hueFor(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return HUES[h % HUES.length];
}

/** The id of the person with this display name (lib/people.ts). */
export const personIdFor = personId;
