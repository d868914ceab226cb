/**
 * Channel list hooks (the sidebar, the new-channel dialog). The list stays live through
 * `thread.activity` (components/live/live-sync.ts).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ThreadSummary } from "@/lib/api/types";
import { createThread, fetchThreads } from "./api";
import { queryKeys } from "./query-keys";

/** All channels, sorted by name, kept live. */
export function useThreads() {
  return useQuery({ queryKey: queryKeys.threads, queryFn: () => fetchThreads(), staleTime: 30_000 });
}

/** One channel's summary from the list (undefined while loading or when it does not exist). */
export function useThread(threadId: string | undefined): ThreadSummary | undefined {
  const { data } = useThreads();
  return threadId ? data?.find((t) => t.id === threadId) : undefined;
}

/** Creates a channel and adds it to the cached list. Errors are `ApiRequestError`s. */
export function useCreateThread() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: createThread,
    onSuccess: (thread) => {
      qc.setQueryData<ThreadSummary[]>(queryKeys.threads, (old) =>
        old && !old.some((t) => t.id === thread.id)
          ? [...old, thread].sort((a, b) => a.name.localeCompare(b.name))
          : old,
      );
    },
  });
}

/**
 * Normalises a typed channel name the way Slack does: lowercase, spaces and other separators
 * become "-", anything but a–z, 0–9, "-" and "_" is dropped, at most 80 characters.
 */
export function normaliseChannelName(input: string): string {
  return input
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[\s.,/\\:;|+]+/g, "-")
    .replace(/[^a-z0-9_-]/g, "")
    .replace(/-{2,}/g, "-")
    .slice(0, 80);
}
