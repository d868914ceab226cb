"use client";
/**
 * `useSenderName`: one name per sender everywhere (docs/channels.md "Threads"). An agent is named
 * by its AgentCard's `display.name` from the directory (components/live/use-agents.ts), with its
 * handle (`analyst-1`) beside it; a person by their display name; Clutch's own senders as
 * "Clutch". An agent the directory does not know keeps the event's display name or bare id.
 */
import { useAgents } from "@/components/live/use-agents";
import type { Participant } from "@/lib/protocol";
import { bareId, displayName, isClutch, isHuman } from "./participant";

/** `{ name, handle }`: handle is the agent's bare id when it differs from the name, else null. */
export function useSenderName(p: Participant): { name: string; handle: string | null } {
  const { data: agents } = useAgents();
  if (isHuman(p) || isClutch(p)) return { name: displayName(p), handle: null };
  const card = agents?.find((a) => a.agent_id === p.agent_id)?.name;
  const name = card?.trim() || displayName(p);
  const handle = bareId(p.agent_id);
  return { name, handle: handle !== name ? handle : null };
}
