"use client";
/**
 * `ThreadScreen`: one channel — header, live event list (the channel's events in order) and
 * composer. Marks the channel read while it is open and remembers it as the last channel visited.
 *
 * Runs and questions: the channel's runs (a header where each starts, a banner while one runs) and
 * its questions to the person: a question's Reply button and the composer's reply chip share one
 * reply mode, and links scroll to the message they name (ThreadActions).
 */
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { indexQuestions } from "@/lib/fold/questions";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { foldApprovals } from "@/lib/fold/approvals";
import type { ApprovalSummary } from "@/lib/api/types";
import { usePendingApprovals } from "@/components/live/approvals";
import { useThreadEvents } from "@/components/live/use-thread-events";
import { useThreadRuns } from "@/components/live/use-runs";
import { useThread, useThreads } from "@/components/live/use-threads";
import { useConnectionStatus } from "@/components/live/connection";
import { ThreadActionsContext, type ThreadActions } from "@/components/events/thread-actions";
import { useReadMarks } from "@/components/prefs/read-marks";
import { writeLocal } from "@/components/prefs/local-store";
import { Composer, type ComposerHandle, type ReplyMode } from "./composer";
import { MessageList, type MessageListHandle } from "./message-list";
import { RunBanner, type BannerApproval } from "./run-banner";
import { ThreadHeader } from "./thread-header";

/** localStorage key of the last channel opened (the home page reopens it). */
export const LAST_THREAD_KEY = "clutch:last-thread";

/** The channel's oldest approval waiting for a decision: loaded events first, else the API's list. */
function bannerApproval(threadId: string, events: readonly StoredEvent[] | undefined, pending: readonly ApprovalSummary[] | undefined): BannerApproval | null {
  const loaded = events ? [...foldApprovals(events).values()].find((a) => a.state === "pending") : undefined;
  if (loaded) return { id: loaded.approval_id, agent: loaded.payload.subject.agent, messageId: loaded.request.id };
  const a = pending?.find((x) => x.thread_id === threadId);
  return a ? { id: a.approval_id, agent: a.agent_id } : null;
}

/** One channel, live: header, events, composer. */
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
  // The oldest approval of the channel still waiting for a decision: from the loaded
  // events, else from the approvals API (its request may be further back than what is loaded).
  const pendingAll = usePendingApprovals().data;
  const pendingApproval = useMemo(() => bannerApproval(threadId, events, pendingAll), [threadId, events, pendingAll]);
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

  // `?approval=<id>` (the inbox's "open in channel"): scroll to that approval's card once loaded,
  // loading a few older pages when it is further back.
  const wantApproval = useRef<{ id: string; pages: number } | null>(null);
  useEffect(() => {
    const id = new URLSearchParams(window.location.search).get("approval");
    wantApproval.current = id ? { id, pages: 0 } : null;
  }, [threadId]);
  const { hasMoreBefore, loadingOlder, loadOlder } = feed;
  useEffect(() => {
    const want = wantApproval.current;
    if (!want || !events) return;
    const request = events.find((e) => isEvent(e, "approval.requested") && e.payload.approval_id === want.id);
    if (!request) {
      if (hasMoreBefore && !loadingOlder && want.pages < 10) {
        want.pages++;
        loadOlder();
      }
      return;
    }
    // After the list has laid out (it follows the bottom on first render).
    const t = setTimeout(() => {
      if (!list.current?.jumpTo(request.id)) return;
      wantApproval.current = null;
      const url = new URL(window.location.href);
      url.searchParams.delete("approval");
      window.history.replaceState(window.history.state, "", url);
    }, 80);
    return () => clearTimeout(t);
  }, [events, hasMoreBefore, loadingOlder, loadOlder]);

  // The open channel is read: the sidebar counts none of its messages as unread.
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
          approval={pendingApproval}
          onJumpToQuestion={(id) => list.current?.jumpTo(id)}
          onJumpToApproval={(a) => {
            if (a.messageId && list.current?.jumpTo(a.messageId)) return;
            // Not loaded yet: load older history until its card is there, then scroll to it.
            wantApproval.current = { id: a.id, pages: 0 };
            loadOlder();
          }}
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
