/**
 * `useSendMessage`: posts the person's chat.message to a channel (issue 2 "composer") and puts
 * the stored event into the channel's cache at once (the socket copy is deduped by seq).
 */
import { useMutation } from "@tanstack/react-query";
import { postMessage } from "./api";
import { ingestEvents } from "./live-sync";

/** Mutation `{ text, displayName? }` → the stored chat.message (issue 2 "composer"). */
export function useSendMessage(threadId: string) {
  return useMutation({
    mutationFn: ({ text, displayName }: { text: string; displayName?: string }) =>
      postMessage(threadId, text, displayName),
    onSuccess: (event) => ingestEvents([event]),
  });
}
