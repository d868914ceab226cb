"use client";
/**
 * How a thread is named to the person looking at it: a channel as `#sales`; a direct message by
 * the other party, an agent by its card's name and a person by theirs (docs/channels.md "Direct
 * messages"). One hook for the sidebar, the header, the composer and the tab title.
 */
import type { ThreadSummary } from "@/lib/api/types";
import { useAgents } from "@/components/live/use-agents";
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

/** The title of `thread` for the signed-in person; a channel's name until the thread is known. */
export function useThreadTitle(thread: Pick<ThreadSummary, "name" | "kind" | "dm_between"> | undefined): ThreadTitle {
  const me = useMe();
  const { data: agents } = useAgents();
  const isDm = thread?.kind === "dm";
  const people = usePeople();
  if (!thread) return { title: "", label: "", other: null };
  if (!isDm) return { title: thread.name, label: `#${thread.name}`, other: null };
  const other = thread.dm_between.find((id) => id !== me.agent_id) ?? me.agent_id;
  const name = other.startsWith("agent:")
    ? (agents?.find((a) => a.agent_id === other)?.name ?? other.slice("agent:".length))
    : (people.data?.find((p) => p.agent_id === other)?.name ?? "Direct message");
  return { title: name, label: name, other };
}
