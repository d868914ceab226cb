"use client";
/**
 * `usePersonLabel()`: how to name a person, an agent or an approver entry in the UI
 * (docs/identity.md): `user:<id>` → the person's name (from GET /api/people), `role:admin` →
 * "admins", an email as it is, an agent id → its card's display name (`agent:pm-1` → "PM
 * Agent", components/events/use-sender-name.ts), Clutch's own senders → "Clutch", anything else
 * by its bare id, so nobody reads `usr_01…`.
 */
import { useCallback } from "react";
import { personLabel } from "@/components/events/approval-model";
import { agentName } from "@/components/events/use-sender-name";
import { useAgents } from "@/components/live/use-agents";
import { usePeople } from "./api";

const ROLE_PLURAL: Record<string, string> = { "role:admin": "admins", "role:member": "members", "role:guest": "guests" };

export function usePersonLabel(): (id: string) => string {
  const people = usePeople();
  const agents = useAgents();
  return useCallback(
    (id: string) =>
      ROLE_PLURAL[id] ??
      people.data?.find((p) => p.agent_id === id)?.name ??
      (id.includes("@") ? id : id === "user" || id === "user:*" || id.startsWith("user:") ? personLabel(id) : agentName(agents.data, id)),
    [people.data, agents.data],
  );
}
