"use client";
/**
 * `usePersonLabel()`: how to name a person or an approver entry in the UI (docs/identity.md):
 * `user:<id>` → the person's name (from GET /api/people), `role:admin` → "admins", an email as
 * it is, anything else by its bare id (`agent:pm-1` → "pm-1"), so nobody reads `usr_01…`.
 */
import { useCallback } from "react";
import { personLabel } from "@/components/events/approval-model";
import { usePeople } from "./api";

const ROLE_PLURAL: Record<string, string> = { "role:admin": "admins", "role:member": "members", "role:guest": "guests" };

export function usePersonLabel(): (id: string) => string {
  const people = usePeople();
  return useCallback(
    (id: string) => ROLE_PLURAL[id] ?? people.data?.find((p) => p.agent_id === id)?.name ?? (id.includes("@") ? id : personLabel(id)),
    [people.data],
  );
}
