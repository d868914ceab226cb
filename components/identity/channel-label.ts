/**
 * How a person reads a thread's name (docs/channels.md "One name per agent", "Direct
 * messages"): a channel by its name, `#sales`; a direct message by the other party, an agent by
 * its card's display name ("Project Manager") and a person by theirs ("Ada Lovelace"), never by
 * the DM's stored name (`dm-35f747arcpbw`). Pure: the hooks of
 * components/workspace/thread-title.ts give it the signed-in person and the names.
 *
 *   channelLabel({ kind: "channel", name: "sales" }, me, nameOf)                  → "#sales"
 *   channelLabel({ kind: "dm", dm_between: ["agent:pm-1", me] }, me, nameOf)      → "Project Manager"
 *   channelLabel(dm with somebody nameOf does not know, me, nameOf)               → "Direct message"
 *   channelPlace(…)  the same for a sentence: "in #sales", "in the direct message with Project Manager"
 */
import type { ThreadSummary } from "@/lib/api/types";

/** What naming a thread needs of it. */
export type NamedThread = Pick<ThreadSummary, "name" | "kind" | "dm_between">;

/** The name of a principal (`agent:<id>`, `user:<id>`), or undefined when it is not known. */
export type NameOf = (id: string) => string | undefined;

/** What a direct message whose other party is not known reads. */
export const UNKNOWN_DM = "Direct message";

/** The other party of a direct message for `me` (yourself, in a DM with yourself); null for a channel. */
export function dmOtherParty(thread: NamedThread, me: string): string | null {
  if (thread.kind !== "dm") return null;
  return thread.dm_between.find((id) => id !== me) ?? me;
}

/** The other party's name, or null when the DM's other party is not known (see the file comment). */
function otherName(thread: NamedThread, me: string, nameOf: NameOf): string | null {
  const other = dmOtherParty(thread, me);
  return (other && nameOf(other)?.trim()) || null;
}

/** "#sales" for a channel; the other party's name for a direct message, else "Direct message". */
export function channelLabel(thread: NamedThread, me: string, nameOf: NameOf): string {
  if (thread.kind !== "dm") return `#${thread.name}`;
  return otherName(thread, me, nameOf) ?? UNKNOWN_DM;
}

/** `channelLabel` inside a sentence: "in #sales", "in the direct message with Project Manager", "in a direct message". */
export function channelPlace(thread: NamedThread, me: string, nameOf: NameOf): string {
  if (thread.kind !== "dm") return `in #${thread.name}`;
  const other = otherName(thread, me, nameOf);
  return other ? `in the direct message with ${other}` : "in a direct message";
}
