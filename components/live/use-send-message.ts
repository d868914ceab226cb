/**
 * `useSendMessage`: posts the person's chat.message to a channel (the composer) and puts
 * the stored event into the channel's cache at once (the socket copy is deduped by seq).
 * `replyTo` says which question it answers, or `null` for a new request.
 */
import { useMutation } from "@tanstack/react-query";
import { postMessage } from "./api";
import { ingestEvents } from "./live-sync";

/** What the composer sends. */
export interface SendInput {
  text: string;
  displayName?: string;
  /** Question id; `null`: not an answer; omitted: the server decides. */
  replyTo?: string | null;
}

/** Mutation `{ text, displayName?, replyTo? }` → the stored chat.message. */
export function useSendMessage(threadId: string) {
  return useMutation({
    mutationFn: ({ text, displayName, replyTo }: SendInput) => postMessage(threadId, text, displayName, replyTo),
    onSuccess: (event) => ingestEvents([event]),
  });
}
