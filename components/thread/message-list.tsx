"use client";
/**
 * `MessageList`: a channel's events in seq order, newest at the bottom.
 * Sticks to the bottom while the person is there; when they have scrolled up, new events show
 * a "N new" pill that jumps down. Scrolling near the top loads older history (`before=`) and
 * keeps the view where it was. Only the rows near the view are drawn (virtual-rows.tsx), so
 * `jumpTo` first scrolls to a row that is not drawn, then flashes it. It tells its messages which
 * one is being edited (`editLastOwn`: ↑ in the empty composer) and moves the unread divider
 * after "Mark unread" (components/events/message-actions.tsx `MessageListContext`).
 */
import { useMe } from "@/components/identity/me";
import { memo, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type Ref } from "react";
import type { StoredEvent } from "@/lib/protocol";
import { isMessageAction } from "@/lib/fold/message-actions";
import { MessageListContext, type Editing, type MessageListControl } from "@/components/events/message-actions";
import { lastOwnMessage } from "@/components/events/message-actions-model";
import type { RunSummary } from "@/lib/api/types";
import { EventView } from "@/components/events/event-view";
import { PolicyAllowGroup } from "@/components/events/policy-event";
import { StepDetails } from "@/components/events/step-details";
import { ArrowDownIcon, HashIcon, MessageIcon } from "@/components/ui/icons";
import { CONVERSATION_ID } from "@/components/workspace/skip-links";
import { buildRows, type Row } from "./rows";
import { RunCard } from "./run-card";
import { useVirtualRows, VirtualRowsView } from "./virtual-rows";
import { LiveReplies } from "./live-replies";
import type { LiveStream } from "@/lib/realtime/streams";

/** What the list lets its parent do (the composer scrolls down after sending). */
export interface MessageListHandle {
  scrollToBottom(smooth?: boolean): void;
  /**
   * Scrolls to the message with this id and flashes it, then calls `shown(el)` with its element
   * (a search hit unfolds and highlights its words there); false when it is not loaded.
   */
  jumpTo(messageId: string, shown?: (el: Element) => void): boolean;
  /** Scrolls to a run's header; false when it is not shown. */
  jumpToRun(runId: string): boolean;
  /** ↑ in the empty composer: edits the person's last message here, scrolled into view; false when there is none. */
  editLastOwn(): boolean;
}

function flash(el: Element): void {
  el.classList.remove("flash");
  // Restart the animation when the same row is flashed twice.
  void (el as HTMLElement).offsetWidth;
  el.classList.add("flash");
  setTimeout(() => el.classList.remove("flash"), 1700);
}

const BOTTOM_SLACK = 48;
const LOAD_OLDER_AT = 400;

/** The scrolling list of a channel's events (see the file comment). */
export function MessageList({
  ref,
  channelName,
  topic,
  events,
  runs,
  view = "conversation",
  readUpTo = null,
  hasMoreBefore,
  loadOlder,
  loadingOlder,
  olderError,
  live,
}: {
  ref?: Ref<MessageListHandle>;
  channelName: string;
  topic?: string;
  events: readonly StoredEvent[];
  /** The channel's runs: a run card goes before each run's first event. */
  runs?: readonly RunSummary[];
  /** The conversation (machinery in threads) or every event inline (components/thread/rows.ts). */
  view?: "conversation" | "all";
  /** The last seq the person had read when they opened the channel: the unread divider. */
  readUpTo?: number | null;
  hasMoreBefore: boolean;
  loadOlder: () => void;
  loadingOlder: boolean;
  olderError: string | null;
  /** The replies being written in this channel (components/live/streams.ts `useLive`). */
  live?: { streams: readonly LiveStream[] };
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const lastTop = useRef(0);
  const lastHeight = useRef(0);
  const firstSeq = useRef<number | null>(null);
  const lastSeqRef = useRef(0);
  const [atBottom, setAtBottom] = useState(true);
  const [seenSeq, setSeenSeq] = useState(Number.POSITIVE_INFINITY);

  const me = useMe().agent_id;
  // "Mark unread" moves the divider while the channel is open, until the channel's own mark changes.
  const [unread, setUnread] = useState<{ from: number | null; seq: number } | null>(null);
  const markedUnread = unread !== null && unread.from === readUpTo;
  const shownReadUpTo = markedUnread ? unread.seq : readUpTo;
  // After "Mark unread" everything from that message is new, the person's own messages too.
  const reader = markedUnread ? null : me;
  const rows = useMemo(() => buildRows(events, runs, { view, readUpTo: shownReadUpTo, me: reader }), [events, runs, view, shownReadUpTo, reader]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const control = useMemo<MessageListControl>(() => ({ editing, setEditing, markedUnread: (seq) => setUnread({ from: readUpTo, seq }) }), [editing, readUpTo]);
  const lastSeq = events.length ? events[events.length - 1].seq : 0;

  const toBottom = useCallback((smooth = false) => {
    const el = scroller.current;
    if (!el) return;
    stick.current = true;
    el.scrollTo({ top: el.scrollHeight, behavior: smooth ? "smooth" : "auto" });
  }, []);
  // Scroll only the list (scrollIntoView would also scroll the page's frame at the list's ends).
  const jumpToElement = useCallback((el: Element | null | undefined, quiet = false) => {
    const box = scroller.current;
    if (!box || !el) return false;
    const r = el.getBoundingClientRect();
    const top = box.scrollTop + (r.top - box.getBoundingClientRect().top) - Math.max(16, (box.clientHeight - r.height) / 2);
    const max = box.scrollHeight - box.clientHeight;
    const target = Math.max(0, Math.min(max, top));
    stick.current = target >= max - BOTTOM_SLACK;
    box.scrollTo({ top: target, behavior: "smooth" });
    if (!quiet) flash(el);
    return true;
  }, []);
  const list = useVirtualRows({ scroller, rows, headerSize: hasMoreBefore ? 48 : 140, startAtEnd: true });
  const { reveal } = list;
  // Where each message and run is among the rows (a grouped row holds several messages).
  const index = useMemo(() => rowIndex(rows), [rows]);
  /** Scrolls to the element `selector` finds, drawing its row (`at`) first when it is not drawn. */
  const jump = useCallback(
    (selector: string, at: number | undefined, shown?: (el: Element) => void) => {
      const find = () => scroller.current?.querySelector(selector);
      const drawn = find();
      if (drawn && jumpToElement(drawn)) {
        shown?.(drawn);
        return true;
      }
      if (at === undefined) return false;
      stick.current = false;
      reveal(at + 1, find, (el) => {
        jumpToElement(el);
        shown?.(el);
      });
      return true;
    },
    [jumpToElement, reveal],
  );
  useImperativeHandle(
    ref,
    () => ({
      scrollToBottom: toBottom,
      jumpTo: (id, shown) => jump(`[data-msg-id="${CSS.escape(id)}"]`, index.get(id), shown),
      jumpToRun: (id) => jump(`[data-run-id="${CSS.escape(id)}"]`, index.get(`run:${id}`)),
      editLastOwn: () => {
        const id = lastOwnMessage(rows, me);
        if (!id) return false;
        setEditing({ id, fromComposer: true });
        const find = () => scroller.current?.querySelector(`[data-msg-id="${CSS.escape(id)}"]`);
        const drawn = find();
        if (drawn) jumpToElement(drawn, true);
        else if (index.has(id)) reveal(index.get(id)! + 1, find, (el) => jumpToElement(el, true));
        return true;
      },
    }),
    [toBottom, jump, index, rows, me, jumpToElement, reveal],
  );

  // After each change: keep the view on older-history prepends, follow the bottom if stuck.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const first = events.length ? events[0].seq : null;
    if (firstSeq.current !== null && first !== null && first < firstSeq.current && !stick.current) {
      el.scrollTop += el.scrollHeight - lastHeight.current;
    }
    if (stick.current) el.scrollTop = el.scrollHeight;
    firstSeq.current = first;
    lastSeqRef.current = events.length ? events[events.length - 1].seq : 0;
    lastHeight.current = el.scrollHeight;
  }, [events]);

  // Content that grows later (images, expanded JSON) keeps the bottom in view when stuck.
  useEffect(() => {
    const el = scroller.current;
    const inner = content.current;
    if (!el || !inner || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (stick.current) el.scrollTop = el.scrollHeight;
      lastHeight.current = el.scrollHeight;
    });
    ro.observe(inner);
    return () => ro.disconnect();
  }, []);

  // A first page that does not fill the pane: fetch more until it does (or none is left).
  useEffect(() => {
    const el = scroller.current;
    if (el && hasMoreBefore && !loadingOlder && !olderError && el.scrollHeight <= el.clientHeight + LOAD_OLDER_AT) {
      loadOlder();
    }
  }, [events, hasMoreBefore, loadingOlder, olderError, loadOlder]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_SLACK;
    // Off the bottom because the person scrolled up, not because rows drawn below it grew
    // (rows are measured as they are drawn, sometimes inside this very scroll event): the
    // list follows the bottom again when the content settles (the ResizeObserver below).
    const movedUp = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    if (bottom) stick.current = true;
    else if (movedUp) stick.current = false;
    const stuck = stick.current;
    setAtBottom(stuck);
    if (stuck) setSeenSeq(lastSeqRef.current);
    else setSeenSeq((s) => (Number.isFinite(s) ? s : lastSeqRef.current));
    lastHeight.current = el.scrollHeight;
    if (el.scrollTop < LOAD_OLDER_AT && hasMoreBefore && !loadingOlder && !olderError) loadOlder();
  };

  const newCount = useMemo(() => {
    if (atBottom || !Number.isFinite(seenSeq)) return 0;
    let n = 0;
    for (let i = events.length - 1; i >= 0 && events[i].seq > seenSeq; i--) if (!isMessageAction(events[i])) n++;
    return n;
  }, [atBottom, seenSeq, events]);

  return (
    <div className="relative min-h-0 flex-1">
      <div
        ref={scroller}
        onScroll={onScroll}
        className="scroll-slim h-full overflow-y-auto overscroll-contain [overflow-anchor:none]"
      >
        <div ref={content} className="flex min-h-full flex-col justify-end pb-3">
          <VirtualRowsView
            list={list}
            header={
              <div className="px-4 pt-4 sm:px-5">
                {hasMoreBefore ? (
                  <div className="flex h-8 items-center justify-center text-xs text-fg-subtle" role="status">
                    {olderError ? (
                      <span>
                        Couldn’t load older messages.{" "}
                        <button type="button" className="font-medium text-accent hover:underline" onClick={loadOlder}>
                          Retry
                        </button>
                      </span>
                    ) : loadingOlder ? (
                      "Loading older messages…"
                    ) : (
                      ""
                    )}
                  </div>
                ) : (
                  <ChannelIntro name={channelName} topic={topic} />
                )}
              </div>
            }
            // Rows drawn by scrolling are not news: the log announces additions only while the person is at the bottom.
            listProps={{ id: CONVERSATION_ID, tabIndex: -1, role: "log", "aria-label": `Messages in ${channelName}`, "aria-live": atBottom ? "polite" : "off", "aria-relevant": "additions" }}
            renderRow={(i) => (
              <MessageListContext.Provider value={control}>
                <ListRow row={rows[i]!} />
              </MessageListContext.Provider>
            )}
          />
          {live && <LiveReplies streams={live.streams} events={events} runs={runs} where="channel" />}
        </div>
      </div>
      {newCount > 0 && (
        <button
          type="button"
          onClick={() => toBottom(true)}
          className="absolute bottom-3 left-1/2 z-10 inline-flex -translate-x-1/2 animate-pop-in items-center gap-1.5 rounded-full bg-accent px-3 py-1.5 text-xs font-semibold text-accent-fg shadow-pop hover:brightness-110"
        >
          <ArrowDownIcon size={13} />
          {newCount} new {newCount === 1 ? "message" : "messages"}
        </button>
      )}
      <span className="sr-only" aria-live="polite">
        {lastSeq ? "" : "No messages yet"}
      </span>
    </div>
  );
}

/** Row index of each message id (every message of a grouped row) and of each run (`run:<id>`). */
function rowIndex(rows: readonly Row[]): Map<string, number> {
  const at = new Map<string, number>();
  rows.forEach((row, i) => {
    if (row.kind === "event") at.set(row.event.id, i);
    else if (row.kind === "run") at.set(`run:${row.run.run_id}`, i);
    else if (row.kind === "policy-group" || row.kind === "details") for (const e of row.events) at.set(e.id, i);
  });
  return at;
}

/** One row of the channel's list (memoized: rows keep their identity until the events change). */
const ListRow = memo(function ListRow({ row }: { row: Row }) {
  return row.kind === "day" ? (
    <DayDivider label={row.label} />
  ) : row.kind === "unread" ? (
    <UnreadDivider />
  ) : row.kind === "run" ? (
    <RunCard run={row.run} />
  ) : row.kind === "policy-group" ? (
    <PolicyAllowGroup events={row.events} />
  ) : row.kind === "details" ? (
    <StepDetails events={row.events} />
  ) : row.kind === "event" ? (
    <EventView event={row.event} ctx={row.ctx} />
  ) : null;
});

function UnreadDivider() {
  return (
    <div role="separator" aria-label="New messages since you were last here" className="relative mx-4 mb-1 mt-3 flex items-center sm:mx-5">
      <div className="h-px flex-1 bg-danger/60" />
      <span className="ml-2 text-[11px] font-semibold uppercase tracking-wide text-danger">New</span>
    </div>
  );
}

function DayDivider({ label }: { label: string }) {
  return (
    <div role="separator" aria-label={label} className="relative mx-4 mb-1 mt-4 flex items-center sm:mx-5">
      <div className="h-px flex-1 bg-line" />
      <span className="mx-2 rounded-full border border-line bg-canvas px-2.5 py-0.5 text-[11px] font-semibold text-fg-muted">
        {label}
      </span>
      <div className="h-px flex-1 bg-line" />
    </div>
  );
}

function ChannelIntro({ name, topic }: { name: string; topic?: string }) {
  // A channel's name comes with its "#"; a direct message is named after the other side.
  const channel = name.startsWith("#");
  return (
    <div className="pb-2 pt-6">
      <div className="mb-2 inline-flex h-11 w-11 items-center justify-center rounded-xl bg-accent/12 text-accent">{channel ? <HashIcon size={22} /> : <MessageIcon size={22} />}</div>
      <h2 className="text-xl font-bold tracking-tight">{channel ? `Welcome to ${name}` : `Your direct messages with ${name}`}</h2>
      <p className="mt-0.5 text-[13px] text-fg-muted">
        {channel ? (
          <>
            This is the very beginning of the <span className="font-medium text-fg">{name}</span> channel.
          </>
        ) : (
          <>Only the two of you are here. Anything you write starts a conversation with {name}.</>
        )}
        {topic ? ` Topic: ${topic}` : ""}
      </p>
    </div>
  );
}
