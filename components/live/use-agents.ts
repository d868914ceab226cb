/**
 * `useAgents`: the workspace's agents with their status (issue 3 "agents in the sidebar with
 * their status"). Refetched every 10 s and whenever a task event arrives on the socket
 * (components/live/live-sync.ts).
 */
import { useQuery } from "@tanstack/react-query";
import { fetchAgents } from "./api";
import { queryKeys } from "./query-keys";

/** Agents sorted by id, kept fresh (see the file comment). */
export function useAgents() {
  return useQuery({
    queryKey: queryKeys.agents,
    queryFn: async () => (await fetchAgents()).slice().sort((a, b) => a.agent_id.localeCompare(b.agent_id)),
    refetchInterval: 10_000,
    staleTime: 5_000,
  });
}
