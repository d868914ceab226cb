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
  /** Question id; `null`: not an answer; omitted: the server decides. */
  replyTo?: string | null;
}

/** Mutation `{ text, replyTo? }` → the stored chat.message, from the signed-in person. */
export function useSendMessage(threadId: string) {
  return useMutation({
    mutationFn: ({ text, replyTo }: SendInput) => postMessage(threadId, text, replyTo),
    onSuccess: (event) => ingestEvents([event]),
  });
}
