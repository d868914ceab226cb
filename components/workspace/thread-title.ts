"use client";
/**
 * How a thread is named to the person looking at it (docs/channels.md "One name per agent",
 * "Direct messages"): a channel as `#sales`; a direct message by the other party, an agent by its
 * card's name and a person by theirs (components/identity/channel-label.ts).
 *
 * - `useThreadTitle(thread)`: `{ title, label, other }` for the sidebar, the header, the composer
 *   and the tab title.
 * - `useChannelNames()`: `{ label(ref), place(ref), other(ref) }` for lists that name many threads
 *   by id (search results and filters, inboxes, pickers): "#sales" / "Project Manager", "in #sales" /
 *   "in the direct message with Project Manager", and a DM's other party (`agent:pm-1`). A thread
 *   the person's list does not hold reads by the name it came with (`#<thread_name>`), with no
 *   other party.
 */
import { useCallback, useMemo } from "react";
import type { ThreadSummary } from "@/lib/api/types";
import { channelLabel, channelPlace, dmOtherParty, type NameOf, type NamedThread } from "@/components/identity/channel-label";
import { agentName } from "@/components/events/use-sender-name";
import { useAgents } from "@/components/live/use-agents";
import { useThreads } from "@/components/live/use-threads";
import { usePeople } from "@/components/identity/api";
import { useMe } from "@/components/identity/me";

export interface ThreadTitle {
  /** "sales" or "Project Manager": the name alone. */
  title: string;
  /** "#sales" or "Project Manager": how the thread is referred to ("Message #sales"). */
  label: string;
  /** For a DM: the other party's id. */
  other: string | null;
}

/** A thread as lists know it: its id and, when the server sent it, its stored name. */
export interface ThreadRef {
  thread_id: string;
  thread_name?: string | null;
}

/** The name of the other party of a DM: an agent's card name (else its bare id), a person's name, else undefined. */
function useDmNameOf(): NameOf {
  const { data: agents } = useAgents();
  const { data: people } = usePeople();
  return useCallback(
    (id: string) => (id.startsWith("user:") ? people?.find((p) => p.agent_id === id)?.name : agentName(agents, id)),
    [agents, people],
  );
}

/** The title of `thread` for the signed-in person; a channel's name until the thread is known. */
export function useThreadTitle(thread: NamedThread | undefined): ThreadTitle {
  const me = useMe().agent_id;
  const nameOf = useDmNameOf();
  if (!thread) return { title: "", label: "", other: null };
  const label = channelLabel(thread, me, nameOf);
  return thread.kind === "dm" ? { title: label, label, other: dmOtherParty(thread, me) } : { title: thread.name, label, other: null };
}

/** See the file comment. */
export function useChannelNames(): { label: (ref: ThreadRef) => string; place: (ref: ThreadRef) => string; other: (ref: ThreadRef) => string | null } {
  const me = useMe().agent_id;
  const nameOf = useDmNameOf();
  const { data: threads } = useThreads();
  return useMemo(() => {
    const byId = new Map((threads ?? []).map((t): [string, ThreadSummary] => [t.id, t]));
    const threadOf = (ref: ThreadRef): NamedThread => byId.get(ref.thread_id) ?? { kind: "channel", name: ref.thread_name ?? ref.thread_id, dm_between: [] };
    return {
      label: (ref: ThreadRef) => channelLabel(threadOf(ref), me, nameOf),
      place: (ref: ThreadRef) => channelPlace(threadOf(ref), me, nameOf),
      other: (ref: ThreadRef) => dmOtherParty(threadOf(ref), me),
    };
  }, [threads, me, nameOf]);
}
