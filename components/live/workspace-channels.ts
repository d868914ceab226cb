"use client";
/**
 * The workspace's channels as `GET /api/workspace` gives them (entry agents, who answers,
 * suggestions), and who answers a new message in one thread (docs/channels.md "Who answers"):
 * a DM with an agent is always that agent's; a workspace channel says; any other thread has no
 * agent taking its messages. An admin changes a channel's setting with `useSetAnswers`.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ThreadSummary, WorkspaceChannel } from "@/lib/api/types";
import type { AnswerMode } from "@/lib/answers";
import type { ChannelAnswers } from "@/components/thread/composer-mode";
import { apiRequest } from "./api";
import { queryKeys } from "./query-keys";

/** `GET /api/workspace`'s channels the person may read. */
export function useWorkspaceChannels() {
  return useQuery({
    queryKey: queryKeys.workspaceChannels,
    queryFn: async () => (await apiRequest<{ channels: WorkspaceChannel[] }>("/api/workspace")).channels,
    staleTime: 30_000,
  });
}

/** Who answers a new message in `thread` (null: no agent takes messages there unless @mentioned). */
export function useChannelAnswers(thread: ThreadSummary | undefined): ChannelAnswers | null {
  const channels = useWorkspaceChannels().data;
  if (!thread) return null;
  if (thread.kind === "dm") return thread.entry_agent ? { entry_agent: thread.entry_agent, answers: "every_message" } : null;
  const c = channels?.find((x) => x.thread_id === thread.id);
  return c ? { entry_agent: c.entry_agent, answers: c.answers } : null;
}

/** PATCH the channel's `answers` (admins only; 403 otherwise), then refresh the channels. */
export function useSetAnswers(thread_id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (answers: AnswerMode) =>
      apiRequest<{ thread: ThreadSummary }>(`/api/threads/${encodeURIComponent(thread_id)}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ answers }),
      }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.workspaceChannels });
      void qc.invalidateQueries({ queryKey: queryKeys.threads });
    },
  });
}
