/**
 * `useThreadEvents`: one channel's events, newest at the end, kept live through network drops.
 * Loads the newest page (`before=end`), then subscribes after the last seq
 * held; `loadOlder` prepends the page before the first seq held. All merges dedupe by seq.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { fetchEventsBefore } from "./api";
import { subscribeThread } from "./live-sync";
import { mergeBySeq } from "./merge";
import { queryKeys, type ThreadEventsData } from "./query-keys";

const PAGE = 100;

/**
 * A channel's events (ascending, unique by seq), live; `loadOlder` fetches the page before the
 * first seq held.
 */
export function useThreadEvents(threadId: string) {
  const qc = useQueryClient();
  const query = useQuery({
    queryKey: queryKeys.threadEvents(threadId),
    queryFn: async (): Promise<ThreadEventsData> => {
      const page = await fetchEventsBefore(threadId, "end", PAGE);
      // Keep anything that arrived live while the page loaded.
      const held = qc.getQueryData<ThreadEventsData>(queryKeys.threadEvents(threadId));
      return { events: mergeBySeq(page.events, held?.events ?? []), hasMoreBefore: page.has_more_before };
    },
    // The socket keeps this fresh; refetching would drop older pages we loaded.
    staleTime: Infinity,
    gcTime: 10 * 60_000,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

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
      const page = await fetchEventsBefore(threadId, data.events[0].seq, PAGE);
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
