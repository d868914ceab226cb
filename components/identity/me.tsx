"use client";
/**
 * `useMe()`: the signed-in person (docs/identity.md), handed down by the workspace layout
 * (app/(app)/layout.tsx) from the server's session check, so every component knows who "you" are
 * without a request of its own: `{ agent_id: "user:<id>", user_id, name, email, role }`.
 */
import { createContext, useContext, type ReactNode } from "react";

export interface Me {
  /** `user:<id>`: the `from.agent_id` of this person's events. */
  agent_id: string;
  user_id: string;
  name: string;
  email: string;
  role: "admin" | "member" | "guest";
}

const MeContext = createContext<Me | null>(null);

export function MeProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <MeContext.Provider value={me}>{children}</MeContext.Provider>;
}

/** The signed-in person. Throws outside the workspace layout (a bug, not a state). */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error("useMe() needs the workspace layout's MeProvider");
  return me;
}

/** The signed-in person, or null outside the workspace layout (a renderer shown on its own). */
export function useMeOrNull(): Me | null {
  return useContext(MeContext);
}
