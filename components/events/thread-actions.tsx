"use client";
/**
 * What the open channel lets an event renderer do (questions to the person): start a
 * reply to a question in the composer, and scroll to a message (an "in reply to" link, the
 * answer of a question). Outside a channel these are no-ops.
 */
import { createContext, useContext } from "react";

/** Actions the channel offers its event renderers. */
export interface ThreadActions {
  /** Make the composer answer the question with this message id, and focus it. */
  replyTo(questionId: string): void;
  /** Scroll to the message with this id and flash it; false when it is not loaded. */
  jumpTo(messageId: string): boolean;
}

const noop: ThreadActions = { replyTo: () => {}, jumpTo: () => false };

/** Provided by ThreadScreen. */
export const ThreadActionsContext = createContext<ThreadActions>(noop);

/** The channel's actions (no-ops outside a channel). */
export function useThreadActions(): ThreadActions {
  return useContext(ThreadActionsContext);
}
