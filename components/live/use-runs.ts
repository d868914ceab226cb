/**
 * `useThreadRuns`: a channel's runs (for the run headers in the channel), oldest first.
 * Refetched when a task event of the channel arrives (components/live/live-sync.ts) and, as a
 * safety net, every 15 s while a run is in progress.
 */
import { useQuery } from "@tanstack/react-query";
import type { RunSummary } from "@/lib/api/types";
import { fetchThreadRuns } from "./api";
import { queryKeys } from "./query-keys";

/** The channel's runs, kept live (see the file comment). */
export function useThreadRuns(threadId: string) {
  return useQuery({
    queryKey: queryKeys.threadRuns(threadId),
    queryFn: () => fetchThreadRuns(threadId),
    staleTime: 5_000,
    refetchInterval: (q) => ((q.state.data as RunSummary[] | undefined)?.some((r) => r.state === "running") ? 15_000 : false),
  });
}
