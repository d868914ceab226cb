"use client";
/**
 * What the open channel lets an event renderer do: answer a question in the composer, open the
 * thread of a run or of a message in the side pane, and scroll to a message (an "in reply to"
 * link, the answer of a question). Outside a channel these are no-ops.
 */
import { createContext, useContext } from "react";

/** What the side pane shows: a run's thread (its events) or a message's thread (people's replies). */
export type ThreadTarget = { run_id: string } | { message_id: string };

/** Actions the channel offers its event renderers. */
export interface ThreadActions {
  /** Make the composer answer the question with this message id, and focus it. */
  replyTo(questionId: string): void;
  /** Open a thread in the side pane. */
  openThread(target: ThreadTarget): void;
  /** Scroll to the message with this id and flash it; false when it is not loaded. */
  jumpTo(messageId: string): boolean;
  /** The title of a run of the channel (a fork says so), when known. */
  runTitle?(runId: string): string | null;
}

const noop: ThreadActions = { replyTo: () => {}, openThread: () => {}, jumpTo: () => false };

/** Provided by ThreadScreen. */
export const ThreadActionsContext = createContext<ThreadActions>(noop);

/** The channel's actions (no-ops outside a channel). */
export function useThreadActions(): ThreadActions {
  return useContext(ThreadActionsContext);
}
