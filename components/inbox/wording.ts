/**
 * What For you says of an item (docs/channels.md "For you"), on its page (./for-you.tsx) and in
 * browser notifications (./attention.tsx), as a person reads it: who by name, where by
 * `channelPlace` (components/identity/channel-label.ts). Pure: the components give it the names.
 *
 *   question  "Project Manager" "asks you in #sales"
 *   approval  "Project Manager" "needs your approval in #sales"
 *   mention   "Lee Park"        "mentioned you in #sales"
 *   dm        "Ada Lovelace"    "sent you a direct message"       (a person, the DM's other party)
 *             "Project Manager" "wrote in your direct message"    (an agent, the DM's other party)
 *             "Analyst"         "wrote in the direct message with Project Manager" (anyone else in it)
 */
import type { InboxItem } from "@/lib/api/types";
import type { ThreadRef } from "@/components/workspace/thread-title";

/** How the components name things for the signed-in person. */
export interface Naming {
  /** The sender's name ("Project Manager", "Ada Lovelace"): components/events/use-sender-name.ts `useNameOf`. */
  nameOf: (who: InboxItem["from"]) => string;
  /** "in #sales", "in the direct message with Project Manager": components/workspace/thread-title.ts `useChannelNames`. */
  place: (ref: ThreadRef) => string;
  /** The other party of a direct message for the person (`agent:pm-1`, `user:<id>`), null when not known. */
  other: (ref: ThreadRef) => string | null;
}

/** True when `item` is a DM's message from someone other than the DM's other party (an agent's delegate); an unknown DM counts as the other party's. */
function fromSomeoneElse(item: InboxItem, naming: Naming): boolean {
  const other = naming.other(item);
  return other !== null && other !== item.from.agent_id;
}

/** What a direct message's item says after the sender's name (see the file comment). */
function dmAction(item: InboxItem, naming: Naming): string {
  if (fromSomeoneElse(item, naming)) return `wrote ${naming.place(item)}`;
  return item.from.agent_id.startsWith("user:") ? "sent you a direct message" : "wrote in your direct message";
}

const VERB: Record<Exclude<InboxItem["kind"], "dm">, string> = {
  question: "asks you",
  approval: "needs your approval",
  mention: "mentioned you",
};

/**
 * The row's words for `item`: `who` (the sender's name) and `action`, what follows it ("asks you
 * in #sales", "sent you a direct message"; see the file comment).
 */
export function itemWords(item: InboxItem, naming: Naming): { who: string; action: string } {
  const who = naming.nameOf(item.from);
  if (item.kind === "dm") return { who, action: dmAction(item, naming) };
  return { who, action: item.thread_name ? `${VERB[item.kind]} ${naming.place(item)}` : VERB[item.kind] };
}

/** "3 new" for a DM with 3 unread messages from the other party; null for one or none, and for other kinds. */
export function newCount(item: InboxItem): string | null {
  return item.kind === "dm" && (item.unread_count ?? 0) > 1 ? `${item.unread_count} new` : null;
}

/**
 * What a browser notification says about `item`: its title and body. A direct message reads like
 * a message from its sender ("Ada Lovelace" / the text), the rest say what they want ("Project
 * Manager asks you in #sales", "Approval needed in #sales", "Lee Park mentioned you in #sales").
 */
export function notificationFor(item: InboxItem, naming: Naming): { title: string; body: string } {
  const who = naming.nameOf(item.from);
  const where = item.thread_name ? ` ${naming.place(item)}` : "";
  if (item.kind === "approval") return { title: `Approval needed${where}`, body: item.text };
  if (item.kind === "dm") return { title: fromSomeoneElse(item, naming) ? `${who} ${naming.place(item)}` : who, body: item.text };
  return { title: `${who} ${VERB[item.kind]}${where}`, body: item.text };
}
