/**
 * `useThreadEvents`: one channel's events, newest at the end, kept live through network drops.
 * Starts from the newest page (`before=end`): the one the page came with, else fetched (or
 * already asked for by `prefetchChannel` when its link was pressed); then subscribes after the
 * last seq held; `loadOlder` prepends the page before the first seq held. All merges dedupe by seq.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { queryOptions, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { CHANNEL_PAGE, fetchEventsBefore, fetchNewestEvents } from "./api";
import { subscribeThread } from "./live-sync";
import { mergeBySeq } from "./merge";
import { queryKeys, type ThreadEventsData } from "./query-keys";
import { threadRunsQuery } from "./use-runs";

/** The query of a channel's events: the newest page, merged with anything that arrived live while it loaded. */
function threadEventsQuery(qc: QueryClient, threadId: string) {
  return queryOptions({
    queryKey: queryKeys.threadEvents(threadId),
    queryFn: async (): Promise<ThreadEventsData> => {
      const page = await fetchNewestEvents(threadId);
      const held = qc.getQueryData<ThreadEventsData>(queryKeys.threadEvents(threadId));
      return { events: mergeBySeq(page.events, held?.events ?? []), hasMoreBefore: page.hasMoreBefore };
    },
    // The socket keeps this fresh; refetching would drop older pages we loaded.
    staleTime: Infinity,
    gcTime: 10 * 60_000,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

/**
 * Starts loading a channel's first data (its newest events and its runs) unless the cache holds
 * it: called as a person presses the channel's link, so the data and the page's move travel
 * side by side. Never throws (a failure is the channel's to show when it opens).
 */
export function prefetchChannel(qc: QueryClient, threadId: string): void {
  void qc.prefetchQuery(threadEventsQuery(qc, threadId));
  void qc.prefetchQuery(threadRunsQuery(threadId));
}

/**
 * A channel's events (ascending, unique by seq), live; `loadOlder` fetches the page before the
 * first seq held. `initial`: the newest page as the page's HTML came with it (used when the
 * cache holds nothing for the channel).
 */
export function useThreadEvents(threadId: string, initial?: ThreadEventsData) {
  const qc = useQueryClient();
  const query = useQuery({ ...threadEventsQuery(qc, threadId), initialData: initial });

  const ready = query.isSuccess;
  useEffect(() => {
    if (!ready) return;
    return subscribeThread(threadId);
  }, [threadId, ready]);

  const [loadingOlder, setLoadingOlder] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);
  const inFlight = useRef(false);

  const loadOlder = useCallback(async () => {
    const data = qc.getQueryData<ThreadEventsData>(queryKeys.threadEvents(threadId));
    if (!data || !data.hasMoreBefore || inFlight.current || data.events.length === 0) return;
    inFlight.current = true;
    setLoadingOlder(true);
    setOlderError(null);
    try {
      const page = await fetchEventsBefore(threadId, data.events[0].seq, CHANNEL_PAGE);
      qc.setQueryData<ThreadEventsData>(queryKeys.threadEvents(threadId), (old) =>
        old ? { events: mergeBySeq(old.events, page.events), hasMoreBefore: page.has_more_before } : old,
      );
    } catch (err) {
      setOlderError(err instanceof Error ? err.message : "Could not load older messages");
    } finally {
      inFlight.current = false;
      setLoadingOlder(false);
    }
  }, [qc, threadId]);

  return {
    events: query.data?.events,
    hasMoreBefore: query.data?.hasMoreBefore ?? false,
    isLoading: query.isPending,
    error: query.error,
    refetch: query.refetch,
    loadOlder,
    loadingOlder,
    olderError,
  };
}
