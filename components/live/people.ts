/**
 * The people of a channel, who may be @mentioned in it (`GET /api/threads/:id/people`,
 * docs/channels.md "Mentions"), for the composer's completion. Refetched after a minute.
 */
import { useQuery } from "@tanstack/react-query";
import type { ChannelPerson } from "@/components/thread/mention-complete";
import { apiRequest } from "./api";

/** The people who may read channel `threadId`, by name; empty while loading or on an error. */
export function useChannelPeople(threadId: string | undefined) {
  return useQuery({
    queryKey: ["thread-people", threadId ?? ""] as const,
    queryFn: async () => (await apiRequest<{ people: ChannelPerson[] }>(`/api/threads/${encodeURIComponent(threadId!)}/people`)).people,
    enabled: Boolean(threadId),
    staleTime: 60_000,
  });
}
