"use client";
/**
 * `ThreadScreen`: one channel — header, live event list and composer (issue 2 "the main pane
 * shows the selected channel's events in order"). Marks the channel read while it is open and
 * remembers it as the last channel visited.
 *
 * Issue 3: the channel's runs (a header where each starts, a banner while one runs) and its
 * questions to the person: a question's Reply button and the composer's reply chip share one
 * reply mode, and links scroll to the message they name (ThreadActions).
 */
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { indexQuestions } from "@/lib/fold/questions";
import { useThreadEvents } from "@/components/live/use-thread-events";
import { useThreadRuns } from "@/components/live/use-runs";
import { useThread, useThreads } from "@/components/live/use-threads";
import { useConnectionStatus } from "@/components/live/connection";
import { ThreadActionsContext, type ThreadActions } from "@/components/events/thread-actions";
import { useReadMarks } from "@/components/prefs/read-marks";
import { writeLocal } from "@/components/prefs/local-store";
import { Composer, type ComposerHandle, type ReplyMode } from "./composer";
import { MessageList, type MessageListHandle } from "./message-list";
import { RunBanner } from "./run-banner";
import { ThreadHeader } from "./thread-header";

/** localStorage key of the last channel opened (the home page reopens it). */
export const LAST_THREAD_KEY = "clutch:last-thread";

/** One channel, live: header, events, composer (issue 2 "main pane"). */
export function ThreadScreen({ threadId }: { threadId: string }) {
  const threads = useThreads();
  const thread = useThread(threadId);
  const feed = useThreadEvents(threadId);
  const runs = useThreadRuns(threadId).data;
  const { markRead } = useReadMarks();
  const list = useRef<MessageListHandle>(null);
  const composer = useRef<ComposerHandle>(null);
  const missing = threads.isSuccess && !thread;
  const [reply, setReply] = useState<ReplyMode>({ kind: "auto" });
  const events = feed.events;
  const openQuestions = useMemo(() => (events ? indexQuestions(events).openToPeople : []), [events]);
  const actions = useMemo<ThreadActions>(
    () => ({
      replyTo: (id) => {
        setReply({ kind: "question", id });
        composer.current?.focus();
      },
      jumpTo: (id) => list.current?.jumpTo(id) ?? false,
    }),
    [],
  );

  // The open channel is read (issue 2 "unread counts").
  const count = thread?.message_count;
  useEffect(() => {
    if (count !== undefined) markRead(threadId, count);
  }, [threadId, count, markRead]);

  useEffect(() => {
    if (thread) writeLocal(LAST_THREAD_KEY, thread.id);
  }, [thread]);

  useEffect(() => {
    if (thread) document.title = `#${thread.name} · Clutch`;
  }, [thread]);

  if (missing) {
    return (
      <div className="flex h-full flex-col">
        <ThreadHeader fallbackName="not-found" />
        <div className="flex flex-1 flex-col items-center justify-center gap-2 p-6 text-center">
          <h2 className="text-lg font-semibold">Channel not found</h2>
          <p className="text-sm text-fg-muted">It may have been typed wrong, or it does not exist on this server.</p>
          <Link href="/" className="mt-2 text-sm font-medium text-accent hover:underline">
            Go to your channels
          </Link>
        </div>
      </div>
    );
  }

  const name = thread?.name ?? "";
  const newestQuestion = openQuestions.length ? openQuestions[openQuestions.length - 1] : null;
  return (
    <ThreadActionsContext.Provider value={actions}>
      <div className="flex h-full min-h-0 flex-col">
        <ThreadHeader thread={thread} />
        <ConnectionBanner />
        <RunBanner
          runs={runs ?? []}
          question={newestQuestion}
          onJumpToQuestion={(id) => list.current?.jumpTo(id)}
          onJumpToRun={(id) => list.current?.jumpToRun(id)}
        />
        {feed.error ? (
          <div className="flex flex-1 flex-col items-center justify-center gap-2 p-6 text-center" role="alert">
            <p className="font-medium">Couldn’t load this channel.</p>
            <p className="text-sm text-fg-muted">{feed.error.message}</p>
            <button type="button" onClick={() => feed.refetch()} className="text-sm font-medium text-accent hover:underline">
              Try again
            </button>
          </div>
        ) : feed.isLoading || !events ? (
          <ListSkeleton />
        ) : (
          <MessageList
            ref={list}
            channelName={name}
            topic={thread?.topic}
            events={events}
            runs={runs}
            hasMoreBefore={feed.hasMoreBefore}
            loadOlder={feed.loadOlder}
            loadingOlder={feed.loadingOlder}
            olderError={feed.olderError}
          />
        )}
        <Composer
          ref={composer}
          threadId={threadId}
          channelName={name}
          onSent={() => list.current?.scrollToBottom()}
          openQuestions={openQuestions}
          reply={reply}
          onReplyChange={setReply}
          onShowQuestion={(id) => list.current?.jumpTo(id)}
        />
      </div>
    </ThreadActionsContext.Provider>
  );
}

function ConnectionBanner() {
  const status = useConnectionStatus();
  if (status !== "disconnected") return null;
  return (
    <div role="status" className="flex items-center justify-center gap-2 bg-warning/12 px-4 py-1 text-xs font-medium text-warning">
      <span className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" aria-hidden="true" />
      Reconnecting… new events will appear when the connection is back.
    </div>
  );
}

function ListSkeleton() {
  return (
    <div className="flex flex-1 flex-col justify-end gap-4 overflow-hidden px-5 pb-4" aria-busy="true" aria-label="Loading messages">
      {[0.7, 0.45, 0.85, 0.55].map((w, i) => (
        <div key={i} className="flex animate-pulse gap-2.5">
          <div className="h-9 w-9 rounded-lg bg-fg-muted/12" />
          <div className="flex-1 space-y-2 pt-1">
            <div className="h-3 w-28 rounded bg-fg-muted/15" />
            <div className="h-3 rounded bg-fg-muted/10" style={{ width: `${w * 100}%` }} />
          </div>
        </div>
      ))}
    </div>
  );
}
