"use client";
/**
 * `ThreadScreen`: one channel — header, the conversation (or every event, by the channel's
 * toggle), composer, and the side pane with a run's or a message's thread (docs/channels.md).
 * Marks the channel read while it is open, shows an unread divider where the person left off
 * (Escape marks it all read and takes the divider away), and remembers it as the last channel
 * visited. Its keys are on the shortcut sheet (`CHANNEL_KEYS`).
 *
 * Questions and approvals that wait are server state (RunSummary.questions and .approvals, the
 * approvals API), so the banner, the run cards, the composer and the sidebar agree however far
 * back they were asked. A question is answered on purpose: its Answer button (in the channel,
 * the banner or its run card), the run's thread, or, in a DM, the next message while the agent's
 * question waits (docs/channels.md "Who answers"). A message's thread in a run is the run's
 * thread: "Reply in thread" there opens it.
 * The open pane is in the URL (`?run=<run_id>` or `?message=<id>`), so a thread can be linked.
 */
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { indexQuestions } from "@/lib/fold/questions";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { foldApprovals } from "@/lib/fold/approvals";
import { conversationIds, inConversation } from "@/lib/conversation";
import { useChannelAnswers } from "@/components/live/workspace-channels";
import { MARKED_UNREAD } from "@/components/live/message-actions";
import type { ApprovalSummary, RunSummary } from "@/lib/api/types";
import type { ThreadEventsData } from "@/components/live/query-keys";
import { useHydrated } from "@/components/ui/use-hydrated";
import { usePendingApprovals } from "@/components/live/approvals";
import { markChannelRead } from "@/components/live/inbox";
import { useThreadEvents } from "@/components/live/use-thread-events";
import { useLive } from "@/components/live/streams";
import { LiveLine } from "./live-replies";
import { useThreadRuns } from "@/components/live/use-runs";
import { useThread, useThreads } from "@/components/live/use-threads";
import { useConnectionStatus } from "@/components/live/connection";
import { ThreadActionsContext, type ThreadActions, type ThreadTarget } from "@/components/events/thread-actions";
import { preloadMarkdown } from "@/components/markdown/markdown";
import { highlightWords, revealMatch } from "@/components/search/reveal-match";
import { markReadSeq, readSeqOf, useReadMarks } from "@/components/prefs/read-marks";
import { useLocalValue, writeLocal } from "@/components/prefs/local-store";
import { announce } from "@/components/ui/announce";
import { useShortcutSection, type ShortcutSection } from "@/components/ui/shortcuts";
import { isTextField } from "@/components/ui/use-hotkeys";
import { Composer, type AnswerableQuestion, type ComposerHandle, type ComposerTarget } from "./composer";
import { MessageList, type MessageListHandle } from "./message-list";
import { RunBanner, type BannerApproval } from "./run-banner";
import { COMPOSER_ID } from "@/components/workspace/skip-links";
import { useThreadTitle } from "@/components/workspace/thread-title";
import { ThreadHeader } from "./thread-header";
import { ThreadPane } from "./thread-pane";

/** localStorage key of the last channel opened (the home page reopens it). */
export const LAST_THREAD_KEY = "clutch:last-thread";

/** localStorage key of a channel's view: the conversation, or every event inline. */
export const viewKey = (threadId: string) => `clutch:view:${threadId}`;

/** A channel's section of the shortcut sheet (components/ui/shortcuts.tsx). */
export const CHANNEL_KEYS: ShortcutSection = {
  id: "channel",
  title: "In a channel",
  rows: [
    { keys: ["Esc"], does: "Mark the channel read (with a thread open: close the thread)" },
    { keys: ["Enter"], does: "Send the message (in the composer)" },
    { keys: ["Shift+Enter"], does: "New line in the message" },
    { keys: ["↑"], does: "Edit your last message (in the empty composer)" },
    { keys: ["@"], does: "Mention a person or an agent: ↑/↓ choose, Enter or Tab insert" },
  ],
};

/** The channel's oldest approval waiting for a decision: loaded events first, else the API's list. */
const NO_EVENTS: readonly StoredEvent[] = [];

function bannerApproval(threadId: string, events: readonly StoredEvent[] | undefined, pending: readonly ApprovalSummary[] | undefined): BannerApproval | null {
  const loaded = events ? [...foldApprovals(events).values()].find((a) => a.state === "pending") : undefined;
  if (loaded) return { id: loaded.approval_id, agent: loaded.payload.subject.agent, messageId: loaded.request.id };
  const a = pending?.find((x) => x.thread_id === threadId);
  return a ? { id: a.approval_id, agent: a.agent_id } : null;
}

/** The pane named in the URL (`?run=` or `?message=`), if any. */
function paneFromParams(q: { get(name: string): string | null }): ThreadTarget | null {
  const run = q.get("run");
  if (run) return { run_id: run };
  const message = q.get("message");
  return message ? { message_id: message } : null;
}

function paneRunOf(pane: ThreadTarget | null): string | null {
  return pane && "run_id" in pane ? pane.run_id : null;
}

/**
 * One channel, live: header, events, composer, thread pane. `initial`: the channel's newest
 * events and its runs as the page's HTML came with them (app/(app)/initial-data.ts), so nothing
 * waits for a request. They are drawn once the page is live, after the composer can be used (the
 * list shows times in the person's own zone, which the server does not know).
 */
export function ThreadScreen({ threadId, initial }: { threadId: string; initial?: { events?: ThreadEventsData; runs?: RunSummary[] } }) {
  const threads = useThreads();
  const thread = useThread(threadId);
  const titleOf = useThreadTitle(thread);
  const drawn = useDeferredValue(useHydrated());
  const feed = useThreadEvents(threadId, initial?.events);
  const live = useLive(threadId, (drawn && feed.events) || NO_EVENTS);
  const runsQuery = useThreadRuns(threadId, initial?.runs);
  const runs = drawn ? runsQuery.data : undefined;
  const { markRead } = useReadMarks();
  const list = useRef<MessageListHandle>(null);
  const composer = useRef<ComposerHandle>(null);
  const missing = threads.isSuccess && !thread;
  const [chosen, setTarget] = useState<ComposerTarget>({ kind: "new" });
  const [view, setView] = useLocalValue<"conversation" | "all">(viewKey(threadId), "conversation");
  // The pane and the event to show are in the URL (a link or a search hit may change them while the channel is open).
  const params = useSearchParams();
  const pane = useMemo(() => paneFromParams(params), [params]);
  const paneFocus = params.get("event");
  // A search hit's matched words (`hl`): unfolded and highlighted in the event it opens.
  const hlParam = params.get("hl");
  const highlight = useMemo(() => highlightWords(hlParam), [hlParam]);
  const events = drawn ? feed.events : undefined;
  // Where the person left off, as of opening the channel (the unread divider stays put while it is open).
  const [readUpTo, setReadUpTo] = useState(() => (typeof window === "undefined" ? null : readSeqOf(threadId, thread?.read?.seq)));

  // Questions waiting for people: server state, with their run's title.
  const waiting = useMemo<AnswerableQuestion[]>(
    () => (runs ?? []).flatMap((r) => r.questions.map((q) => ({ ...q, runTitle: r.title }))).sort((a, b) => a.seq - b.seq),
    [runs],
  );
  // The oldest approval of the channel still waiting for a decision: from the loaded
  // events, else from the approvals API (its request may be further back than what is loaded).
  const pendingAll = usePendingApprovals().data;
  const pendingApproval = useMemo(() => bannerApproval(threadId, events, pendingAll), [threadId, events, pendingAll]);

  // Opening a thread is a new history entry (Back closes it); closing one replaces it. The
  // history API with a fresh state keeps Next's router and useSearchParams in step.
  const setPane = useCallback((next: ThreadTarget | null, focus?: string) => {
    const url = new URL(window.location.href);
    for (const p of ["run", "message", "event"]) url.searchParams.delete(p);
    if (!next) url.searchParams.delete("hl");
    if (next && "run_id" in next) url.searchParams.set("run", next.run_id);
    if (next && "message_id" in next) url.searchParams.set("message", next.message_id);
    if (next && focus) url.searchParams.set("event", focus);
    if (next) window.history.pushState(null, "", url);
    else window.history.replaceState(null, "", url);
  }, []);
  // A message's thread in a run is the run's thread (docs/channels.md "Threads"): a message of a
  // run, or the person's request that started one, opens the run's.
  const openThread = useCallback(
    (next: ThreadTarget) => {
      if ("message_id" in next) {
        const run = threadRunOf(next.message_id, threadId, events ?? []);
        if (run) return setPane({ run_id: run });
      }
      setPane(next);
    },
    [setPane, threadId, events],
  );

  // Opening a channel puts the cursor in its composer, as in Slack (docs/channels.md "Keyboard
  // shortcuts"): where there is a fine pointer (a phone's keyboard would cover the channel), unless
  // a dialog or another field has the focus or the URL opens a thread beside the channel.
  const paneAtOpen = useRef(pane !== null);
  useEffect(() => {
    if (paneAtOpen.current || !window.matchMedia("(pointer: fine)").matches) return;
    const at = document.activeElement;
    if (at && at !== document.body && (at.closest("dialog, [role=dialog]") || isTextField(at))) return;
    composer.current?.focus();
  }, []);

  // `?compose`: arrived to write (the welcome's "Ask"): the composer has the request and the focus.
  const compose = params.get("compose") !== null;
  useEffect(() => {
    if (!compose || !thread || !composer.current) return;
    composer.current.focus();
    const url = new URL(window.location.href);
    url.searchParams.delete("compose");
    window.history.replaceState(null, "", url);
  }, [compose, thread, events]);

  // The questions of the loaded events (answered, closed or waiting).
  const loadedQuestions = useMemo(() => (events ? indexQuestions(events).questions : null), [events]);

  // The question with this id, as the composer shows it: from the server's list, else from the loaded events.
  const answerable = useCallback(
    (id: string): AnswerableQuestion | null => {
      const known = waiting.find((q) => q.id === id);
      if (known) return known;
      const q = loadedQuestions?.get(id);
      return q ? { id: q.id, run_id: q.run_id, from: q.from, text: q.text, runTitle: runs?.find((r) => r.run_id === q.run_id)?.title } : null;
    },
    [waiting, loadedQuestions, runs],
  );
  const answer = useCallback(
    (id: string) => {
      const q = answerable(id);
      if (!q) return;
      setTarget({ kind: "answer", question: q });
      composer.current?.focus();
    },
    [answerable],
  );
  const actions = useMemo<ThreadActions>(
    () => ({
      replyTo: answer,
      openThread,
      // What the channel does not show (a reply in a run's thread) opens in the run's thread.
      jumpTo: (id) => {
        if (list.current?.jumpTo(id)) return true;
        const ev = events?.find((e) => e.id === id);
        if (!ev || inConversation(ev)) return false;
        setPane({ run_id: ev.run_id }, id);
        return true;
      },
      runTitle: (id) => runs?.find((r) => r.run_id === id)?.title ?? null,
    }),
    [answer, openThread, setPane, events, runs],
  );
  // An answered or closed question leaves the composer's answer mode. Open as far as either
  // source knows: the server's list may lag a question that just arrived live, and the loaded
  // events may not reach back to an old one.
  const stillOpen = (id: string) => {
    if (waiting.some((q) => q.id === id)) return true;
    const q = loadedQuestions?.get(id);
    return q !== undefined && !q.answer && !q.closed;
  };
  // In a DM with an agent, the next message answers its question while one waits (Esc: write something else).
  const [declined, setDeclined] = useState<string | null>(null);
  const dmQuestion = thread?.kind === "dm" && thread.entry_agent && chosen.kind === "new" ? waiting.filter((q) => q.id !== declined).at(-1) : undefined;
  const target: ComposerTarget = dmQuestion
    ? { kind: "answer", question: dmQuestion }
    : chosen.kind === "answer" && !stillOpen(chosen.question.id)
      ? { kind: "new" }
      : chosen;
  const answersHere = useChannelAnswers(thread);

  // `?approval=<id>` (the inbox's "open in channel") and `?event=<id>` (a search hit in the
  // conversation): scroll to that card once loaded, loading older pages when it is further back.
  // A hit in a run's machinery opens the run's thread instead (`?run=`), which scrolls to it.
  const want = useRef<{ match: (e: StoredEvent) => boolean; param: string; pages: number } | null>(null);
  const wantApproval = params.get("approval");
  const wantEvent = paneRunOf(pane) ? null : paneFocus;
  useEffect(() => {
    if (wantApproval) want.current = { match: (e) => isEvent(e, "approval.requested") && e.payload.approval_id === wantApproval, param: "approval", pages: 0 };
    else if (wantEvent) want.current = { match: (e) => e.id === wantEvent, param: "event", pages: 0 };
    else want.current = null;
  }, [wantApproval, wantEvent]);
  const { hasMoreBefore, loadingOlder, loadOlder } = feed;
  useEffect(() => {
    const w = want.current;
    if (!w || !events) return;
    const target = events.find(w.match);
    if (!target) {
      if (hasMoreBefore && !loadingOlder && w.pages < 50) {
        w.pages++;
        loadOlder();
      }
      return;
    }
    // After the list has laid out (it follows the bottom on first render).
    const t = setTimeout(() => {
      if (!list.current?.jumpTo(target.id, (el) => revealMatch(el, highlight))) {
        // Not in the conversation (the channel shows the conversation): its run's thread has it.
        if (!inConversation(target)) setPane({ run_id: target.run_id });
        else return;
      }
      want.current = null;
      const url = new URL(window.location.href);
      url.searchParams.delete(w.param);
      if (w.param === "event" && !url.searchParams.has("run")) url.searchParams.delete("hl");
      window.history.replaceState(null, "", url);
    }, 80);
    return () => clearTimeout(t);
  }, [events, hasMoreBefore, loadingOlder, loadOlder, setPane, wantApproval, wantEvent, highlight]);

  // The open channel is read: the sidebar counts none of its messages as unread, and the
  // server's mark follows (the For you inbox's unread items, other browsers of the person).
  // After "Mark unread" it stays unread while the person is here, until they read it on purpose
  // (Esc, sending a message) or leave.
  const [holdRead, setHoldRead] = useState<string | null>(null);
  const reading = holdRead !== threadId;
  useEffect(() => {
    const onMarked = (e: Event) => setHoldRead((e as CustomEvent<{ threadId: string }>).detail.threadId);
    window.addEventListener(MARKED_UNREAD, onMarked);
    return () => window.removeEventListener(MARKED_UNREAD, onMarked);
  }, []);
  const count = thread?.message_count;
  useEffect(() => {
    if (reading && count !== undefined) markRead(threadId, count);
  }, [reading, threadId, count, markRead]);
  const lastSeq = thread?.last_seq;
  useEffect(() => {
    if (reading && lastSeq !== undefined) markReadSeq(threadId, lastSeq);
  }, [reading, threadId, lastSeq]);
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!reading || lastSeq === undefined || count === undefined) return;
    const t = setTimeout(() => void markChannelRead(queryClient, threadId, lastSeq, count), 400);
    return () => clearTimeout(t);
  }, [reading, queryClient, threadId, lastSeq, count]);

  // Escape with no thread open marks the channel read, as in Slack: the unread divider goes and
  // the server's mark moves to the end at once (not after the usual pause). Not from a dialog, nor
  // when the key was taken (the composer's mention list or answer mode, the pane's own Escape).
  const channelName = titleOf.label;
  useEffect(() => {
    if (pane) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || document.querySelector("dialog[open]")) return;
      if (lastSeq === undefined || count === undefined) return;
      setHoldRead(null);
      setReadUpTo(lastSeq);
      markRead(threadId, count);
      markReadSeq(threadId, lastSeq);
      void markChannelRead(queryClient, threadId, lastSeq, count);
      announce(`Marked ${channelName} as read`);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [pane, lastSeq, count, threadId, markRead, queryClient, channelName]);
  useShortcutSection(CHANNEL_KEYS);

  // Escape closes the pane (unless a dialog or a field has it).
  useEffect(() => {
    if (!pane) return;
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (e.key !== "Escape" || e.defaultPrevented || el?.closest("textarea, input, [role=dialog]")) return;
      setPane(null);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [pane, setPane]);

  useEffect(() => {
    if (thread) writeLocal(LAST_THREAD_KEY, thread.id);
  }, [thread]);

  // The markdown renderer loads beside the channel's first page, not before the page is usable.
  useEffect(() => preloadMarkdown(), []);

  useEffect(() => {
    if (thread) document.title = `${titleOf.label} · Clutch`;
  }, [thread, titleOf.label]);

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

  const name = titleOf.label;
  const newestQuestion = waiting.length ? waiting[waiting.length - 1]! : null;
  const paneRun = paneRunOf(pane);
  const paneQuestion = paneRun ? waiting.filter((q) => q.run_id === paneRun).at(-1) : undefined;
  return (
    <ThreadActionsContext.Provider value={actions}>
      <div className="flex h-full min-h-0">
        <div className={`flex min-h-0 min-w-0 flex-1 flex-col ${pane && events ? "max-lg:hidden" : ""}`}>
          <ThreadHeader thread={thread} view={view} onViewChange={setView} />
          <ConnectionBanner />
          <RunBanner
            runs={runs ?? []}
            question={newestQuestion}
            approval={pendingApproval}
            onJumpToQuestion={(id) => {
              const q = waiting.find((x) => x.id === id);
              if (!list.current?.jumpTo(id) && q) setPane({ run_id: q.run_id });
              answer(id);
            }}
            onJumpToApproval={(a) => {
              if (a.messageId && list.current?.jumpTo(a.messageId)) return;
              // Not loaded yet: load older history until its card is there, then scroll to it.
              want.current = { match: (e) => isEvent(e, "approval.requested") && e.payload.approval_id === a.id, param: "approval", pages: 0 };
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
          ) : !events ? (
            <ListSkeleton />
          ) : (
            <MessageList
              ref={list}
              channelName={name}
              topic={thread?.topic}
              events={events}
              runs={runs}
              view={view}
              readUpTo={readUpTo}
              hasMoreBefore={feed.hasMoreBefore}
              loadOlder={feed.loadOlder}
              loadingOlder={feed.loadingOlder}
              olderError={feed.olderError}
              live={live}
            />
          )}
          <LiveLine statuses={live.statuses} typing={live.typing} streams={live.streams} />
          <Composer
            ref={composer}
            fieldId={COMPOSER_ID}
            threadId={threadId}
            channelName={name}
            draft={threadId}
            target={target}
            onTargetChange={(t) => {
              if (t.kind === "new" && dmQuestion) setDeclined(dmQuestion.id);
              setTarget(t);
            }}
            channel={answersHere}
            answersInChannel
            onSent={() => {
              setHoldRead(null);
              list.current?.scrollToBottom();
            }}
            onShowQuestion={(id) => list.current?.jumpTo(id)}
            onEditLast={() => list.current?.editLastOwn() ?? false}
          />
        </div>
        {pane && events && (
          <div className="flex min-h-0 w-full flex-col lg:w-[420px] lg:shrink-0 xl:w-[480px]">
            <ThreadPane
              key={`${paneRun ?? ("message_id" in pane ? pane.message_id : "")}:${paneFocus ?? ""}`}
              threadId={threadId}
              channelName={name}
              target={pane}
              channelEvents={events}
              runs={runs ?? []}
              answerTarget={paneQuestion ? { kind: "answer", question: paneQuestion } : undefined}
              alsoSendTo={name}
              focusEventId={paneFocus}
              highlight={highlight}
              onClose={() => setPane(null)}
            />
          </div>
        )}
      </div>
    </ThreadActionsContext.Provider>
  );
}

/**
 * The run whose thread holds message `id` of channel `threadId`, if it is in one: a message of a
 * run (not the channel's own conversation), or the person's request that started a run (its root
 * task.request names it in `input.message_id`). Null for a message outside runs.
 */
function threadRunOf(id: string, threadId: string, events: readonly StoredEvent[]): string | null {
  const ev = events.find((e) => e.id === id);
  if (ev && ev.run_id !== conversationIds(threadId).run_id) return ev.run_id;
  const request = events.find((e) => isEvent(e, "task.request") && !e.parent_task_id && (e.payload.input as { message_id?: unknown } | undefined)?.message_id === id);
  return request?.run_id ?? null;
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
    <div className="flex flex-1 flex-col justify-end gap-4 overflow-hidden px-5 pb-4" role="status" aria-busy="true" aria-label="Loading messages">
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
