"use client";
/**
 * The run view's names (components/run/run-names.ts): `RunNamesContext` holds the run's AutoGen
 * agents' names (RunScreen provides it from the run's events), and `useRunNameOf` /
 * `useRunPersonLabel` are `useNameOf` / `usePersonLabel` that name those agents as the channel
 * does, "AutoGen · assistant", not by id. Outside a run view the context is empty and they are the
 * same as the hooks they wrap.
 */
import { createContext, useContext, useMemo } from "react";
import { useNameOf } from "@/components/events/use-sender-name";
import { usePersonLabel } from "@/components/identity/names";
import type { Participant } from "@/lib/protocol";
import { withAutogenNames } from "./run-names";

/** The run's AutoGen agents' names by id (`autogenNamesOf`). */
export const RunNamesContext = createContext<ReadonlyMap<string, string>>(new Map());

/** `useNameOf()` for the run view. */
export function useRunNameOf(): (who: Participant | string) => string {
  const nameOf = useNameOf();
  const names = useContext(RunNamesContext);
  return useMemo(() => withAutogenNames(nameOf, names), [nameOf, names]);
}

/** `usePersonLabel()` for the run view. */
export function useRunPersonLabel(): (id: string) => string {
  const label = usePersonLabel();
  const names = useContext(RunNamesContext);
  return useMemo(() => withAutogenNames(label, names), [label, names]);
}
