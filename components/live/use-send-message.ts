/**
 * `useSendMessage`: posts the person's chat.message to a channel (the composer) and puts
 * the stored event into the channel's cache at once (the socket copy is deduped by seq).
 * `replyTo` names the message it replies to in a thread (an agent's question: the answer);
 * without it the message is a new message in the channel. `chatOnly` sends a new message as
 * plain chat (no agent asked), `alsoInChannel` shows a reply in the channel too
 * (docs/channels.md "Who answers", "Threads").
 */
import { useMutation } from "@tanstack/react-query";
import { postMessage } from "./api";
import { ingestEvents } from "./live-sync";

/** What the composer sends. */
export interface SendInput {
  text: string;
  /** The message replied to in its thread (a question: the answer); omitted or null: a new message. */
  replyTo?: string | null;
  /** A new message as plain chat: no agent is asked. */
  chatOnly?: boolean;
  /** A reply the channel shows too. */
  alsoInChannel?: boolean;
}

/** Mutation `{ text, replyTo? }` → the stored chat.message, from the signed-in person. */
export function useSendMessage(threadId: string) {
  return useMutation({
    mutationFn: ({ text, replyTo, chatOnly, alsoInChannel }: SendInput) => postMessage(threadId, text, replyTo, { chatOnly, alsoInChannel }),
    onSuccess: (event) => ingestEvents([event]),
  });
}
