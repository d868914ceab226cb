/**
 * `useThreadRuns`: a channel's runs (for the run headers in the channel), oldest first.
 * Refetched when a task event of the channel arrives (components/live/live-sync.ts) and, as a
 * safety net, every 15 s while a run is in progress.
 */
import { queryOptions, useQuery } from "@tanstack/react-query";
import type { RunSummary } from "@/lib/api/types";
import { fetchThreadRuns } from "./api";
import { queryKeys } from "./query-keys";

/** The query of a channel's runs (also prefetched when its link is pressed: use-thread-events.ts `prefetchChannel`). */
export function threadRunsQuery(threadId: string) {
  return queryOptions({
    queryKey: queryKeys.threadRuns(threadId),
    queryFn: () => fetchThreadRuns(threadId),
    staleTime: 5_000,
    refetchInterval: (q) => (q.state.data?.some((r: RunSummary) => r.state === "running") ? 15_000 : false),
  });
}

/** The channel's runs, kept live (see the file comment); `initial`: as the page's HTML came with them. */
export function useThreadRuns(threadId: string, initial?: RunSummary[]) {
  return useQuery({ ...threadRunsQuery(threadId), initialData: initial });
}
