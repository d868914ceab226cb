"use client";
/**
 * `useSenderName` and `useNameOf`: one name per sender everywhere (docs/channels.md "Threads").
 * An agent is named by its AgentCard's `display.name` from the directory
 * (components/live/use-agents.ts), with its handle (`analyst-1`) beside it where useful; a person
 * by their display name; Clutch's own senders (lib/clutch-senders.ts) as "Clutch"; an AutoGen
 * team's agents by the name Clutch gave them, "AutoGen · pm-1" (lib/autogen-name.ts). An agent the
 * directory does not know keeps the event's display name or bare id.
 */
import { useCallback } from "react";
import { useAgents } from "@/components/live/use-agents";
import type { AgentSummary } from "@/lib/api/types";
import { isClutchSender } from "@/lib/clutch-senders";
import type { Participant } from "@/lib/protocol";
import { bareId, displayName, isAutogen, isClutch, isHuman } from "./participant";

/** The directory's entry for `id`, matched by full id (`agent:pm-1`) or bare id (`pm-1`). */
function findAgent(agents: readonly AgentSummary[] | undefined, id: string): AgentSummary | undefined {
  if (!agents) return undefined;
  const bare = bareId(id);
  return agents.find((a) => a.agent_id === id) ?? agents.find((a) => bareId(a.agent_id) === bare);
}

/**
 * The name a person reads for an agent id: "Clutch" for Clutch's own senders, the card's
 * `display.name` when the directory knows the agent, else the bare id (`agent:pm-1` → "pm-1").
 */
export function agentName(agents: readonly AgentSummary[] | undefined, id: string): string {
  if (isClutchSender(id)) return "Clutch";
  return findAgent(agents, id)?.name?.trim() || bareId(id);
}

/** `{ name, handle }`: handle is the agent's bare id when it differs from the name, else null. */
export function useSenderName(p: Participant): { name: string; handle: string | null } {
  const { data: agents } = useAgents();
  if (isHuman(p) || isClutch(p)) return { name: displayName(p), handle: null };
  // An AutoGen agent is never shown by a directory card's name (an external agent's id may look like its own).
  const card = isAutogen(p) ? undefined : findAgent(agents, p.agent_id)?.name;
  const name = card?.trim() || displayName(p);
  const handle = bareId(p.agent_id);
  return { name, handle: handle !== name ? handle : null };
}

/**
 * `useNameOf()` → `(who) => name`, for lists that name many senders (run cards, task panels,
 * inboxes): `who` is a Participant or an id. People keep their display name (or bare id), agents
 * get their card's name, Clutch's senders "Clutch". Use `useSenderName` for one sender.
 */
export function useNameOf(): (who: Participant | string) => string {
  const { data: agents } = useAgents();
  return useCallback(
    (who: Participant | string) => {
      if (typeof who === "string") return who.startsWith("user:") || who === "user" ? bareId(who) : agentName(agents, who);
      if (isHuman(who) || isClutch(who) || isAutogen(who)) return displayName(who);
      return findAgent(agents, who.agent_id)?.name?.trim() || displayName(who);
    },
    [agents],
  );
}
