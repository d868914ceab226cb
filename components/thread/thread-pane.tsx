"use client";
/**
 * `ThreadPane`: the side pane beside a channel, like Slack's thread view (docs/channels.md).
 *
 * - A run's thread: the run's card, the person's request, and every event of the run (task
 *   steps, tool calls and results, routing and policy decisions, messages between agents),
 *   streaming live, with the run view one click away. Its composer answers the run's open
 *   question, or asks the agent that spoke last to carry on (a follow-up); Esc makes it plain
 *   chat in the thread (a reply to the request). What is written here stays here, unless "Also
 *   send to #channel" (docs/channels.md "Threads"); the pane shows it at once and scrolls to it.
 * - A message's thread: the message and people's replies to it, with a composer that replies
 *   in the thread.
 *
 * The run's history is what the channel already holds of it when that is the whole run (its
 * `event_count`), else loaded from `GET /api/runs/:id/events` (all pages, up to RUN_CAP
 * events); live events come with the channel's own subscription (a run's events are in its
 * channel), merged by seq (components/live/merge.ts). Only the rows near the view are drawn
 * (virtual-rows.tsx): a run of RUN_CAP events opens like a short one.
 */
import { useNameOf } from "@/components/events/use-sender-name";
import Link from "next/link";
import { CancelWork } from "@/components/run/work-controls";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import type { RunSummary } from "@/lib/api/types";
import { isThreadReply } from "@/lib/conversation";
import { excerpt } from "@/lib/fold/questions";
import { EventView } from "@/components/events/event-view";
import { withActions } from "@/components/events/message-actions-model";
import { PolicyAllowGroup } from "@/components/events/policy-event";
import { StepDetails } from "@/components/events/step-details";
import { ForkCopies } from "@/components/events/fork-copies";
import { isClutchSender } from "@/lib/clutch-senders";
import { useThreadActions, type ThreadTarget } from "@/components/events/thread-actions";
import { useLive } from "@/components/live/streams";
import { LiveLine, LiveReplies } from "./live-replies";
import { mergeBySeq } from "@/components/live/merge";
import { EVENT_PAGE, fetchRunEvents } from "@/components/run/api";
import { CloseIcon, MessageIcon } from "@/components/ui/icons";
import { Composer, type ComposerTarget } from "./composer";
import { revealMatch } from "@/components/search/reveal-match";
import { RunCard } from "./run-card";
import { buildRows, type Row } from "./rows";
import { useVirtualRows, VirtualRowsView } from "./virtual-rows";

/** At most this many of a run's events are shown in its thread; the run view shows them all. */
export const RUN_CAP = 20_000;

/** Events in the first page of a run's thread: enough to draw its start at once. */
const FIRST_PAGE = 1000;

/** A run's history as the pane holds it. */
interface RunHistory {
  events: StoredEvent[];
  capped: boolean;
  complete: boolean;
}

/**
 * Every stored event of a run, up to RUN_CAP (ascending): `{ events, capped, complete }`. The
 * pages show as they come (the pane opens at the run's start): `complete` is false until the
 * last one is in. `held`: the whole run when the channel's loaded events already hold it (as
 * many as the run's `event_count`): the pane opens from those at once, asking nothing.
 */
function useRunHistory(runId: string | null, held: RunHistory | undefined) {
  return useQuery({
    queryKey: ["run-thread", runId],
    enabled: runId !== null,
    initialData: held,
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    refetchOnWindowFocus: false,
    queryFn: async ({ signal, client, queryKey }) => {
      const events: StoredEvent[] = [];
      let after = 0;
      for (;;) {
        const page = await fetchRunEvents(runId!, after, events.length ? EVENT_PAGE : FIRST_PAGE, signal);
        for (const e of page.events) events.push(e);
        if (page.next_after === null || page.events.length === 0 || events.length >= RUN_CAP) break;
        client.setQueryData(queryKey, { events: events.slice(), capped: false, complete: false });
        after = page.next_after;
      }
      return { events, capped: events.length >= RUN_CAP, complete: true };
    },
  });
}

/** The id of the person's message a run answers (its root task.request's `input.message_id`). */
function requestMessageId(events: readonly StoredEvent[]): string | null {
  for (const ev of events) {
    if (isEvent(ev, "task.request") && !ev.parent_task_id) {
      const input = ev.payload?.input as { message_id?: unknown } | undefined;
      return typeof input?.message_id === "string" ? input.message_id : null;
    }
  }
  return null;
}

/** The side pane (see the file comment). */
export function ThreadPane({
  threadId,
  channelName,
  target,
  channelEvents,
  runs,
  answerTarget,
  alsoSendTo,
  focusEventId = null,
  highlight,
  onClose,
}: {
  threadId: string;
  channelName: string;
  target: ThreadTarget;
  /** The channel's loaded events (live). */
  channelEvents: readonly StoredEvent[];
  runs: readonly RunSummary[];
  /** When the run waits for an answer: the composer's answer target (server state). */
  answerTarget?: Extract<ComposerTarget, { kind: "answer" }>;
  /** The channel's name, for "Also send to #channel". */
  alsoSendTo: string;
  /** An event to scroll to and flash once it is loaded (a search hit). */
  focusEventId?: string | null;
  /** The words the hit matched: unfolded and highlighted in that event (components/search/reveal-match.ts). */
  highlight?: readonly string[];
  onClose: () => void;
}) {
  const nameOf = useNameOf();
  const runId = "run_id" in target ? target.run_id : null;
  const messageId = "message_id" in target ? target.message_id : null;
  const run = runId ? runs.find((r) => r.run_id === runId) : undefined;
  const held = useMemo(() => {
    if (!run) return undefined;
    const own = channelEvents.filter((e) => e.run_id === run.run_id);
    return own.length >= run.event_count ? { events: own, capped: false, complete: true } : undefined;
  }, [run, channelEvents]);
  const history = useRunHistory(runId, held);
  const heading = useRef<HTMLHeadingElement>(null);
  const body = useRef<HTMLDivElement>(null);
  useEffect(() => heading.current?.focus(), [runId, messageId]);

  const { events, rootId } = useMemo(() => {
    if (runId) {
      const live = channelEvents.filter((e) => e.run_id === runId);
      const own = mergeBySeq(history.data?.events ?? [], live);
      const requestId = requestMessageId(own);
      const extra = channelEvents.filter((e) => e.id === requestId || (isThreadReply(e) && isEvent(e, "chat.message") && e.payload.reply_to === requestId));
      return { events: withActions(mergeBySeq(own, extra), channelEvents), rootId: requestId };
    }
    const root = channelEvents.find((e) => e.id === messageId);
    const replies = channelEvents.filter((e) => isThreadReply(e) && isEvent(e, "chat.message") && e.payload.reply_to === messageId);
    return { events: withActions(root ? [root, ...replies] : replies, channelEvents), rootId: messageId };
  }, [runId, messageId, channelEvents, history.data]);

  const rows = useMemo(() => buildRows(events, [], { view: "all", steps: Boolean(runId) }), [events, runId]);
  const live = useLive(threadId, runId ? events : [], runId ?? undefined);

  const list = useVirtualRows({ scroller: body, rows, headerSize: runId ? 140 : 0 });
  // Whether the log announces additions: until the person scrolls away from the end.
  const [atEnd, setAtEnd] = useState(true);
  const stickEnd = useRef(false);
  const lastTop = useRef(0);
  const content = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = body.current;
    const inner = content.current;
    if (!el || !inner || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (stickEnd.current) el.scrollTop = el.scrollHeight;
    });
    ro.observe(inner);
    return () => ro.disconnect();
  }, []);
  const { reveal } = list;

  // Scroll to the event asked for, once, when it is there (drawing its row first).
  const focused = useRef(false);
  const show = useCallback(
    (el: Element) => {
      el.scrollIntoView({ block: "center" });
      el.classList.add("flash");
      setTimeout(() => el.classList.remove("flash"), 1700);
      if (highlight?.length) revealMatch(el, highlight);
    },
    [highlight],
  );
  useEffect(() => {
    if (!focusEventId || focused.current) return;
    const at = rows.findIndex((row) => rowHolds(row, focusEventId));
    if (at < 0) return;
    focused.current = true;
    reveal(at + 1, () => body.current?.querySelector(`[data-msg-id="${CSS.escape(focusEventId)}"]`), show);
  }, [focusEventId, rows, reveal, show]);
  const root = events.find((e) => e.id === rootId);
  const title = runId ? (run?.title ?? "Run") : root ? `${nameOf(root.from)}: ${excerpt(isEvent(root, "chat.message") ? root.payload.text : "", 60)}` : "Thread";
  // × on the answer chip: reply in the thread instead of answering.
  const [declined, setDeclined] = useState<string | null>(null);
  const answer = answerTarget?.kind === "answer" && answerTarget.question.id !== declined ? answerTarget : null;
  // In a run's thread, what a person writes carries the conversation on: an answer when an
  // agent waits for one, else a follow-up to the agent that spoke to people last.
  const followed = runId ? lastAgentWord(events) : root && isAgentWord(root) ? root : null;
  const composerTarget: ComposerTarget | null =
    answer ??
    (followed
      ? { kind: "follow_up", parentId: followed.id, agent: followed.from }
      : rootId
        ? { kind: "thread", parentId: rootId, label: "Reply in thread" }
        : null);

  return (
    <aside aria-label={runId ? `Thread of run ${title}` : "Thread"} className="flex min-h-0 flex-col border-l border-line bg-canvas">
      <div className="flex h-12 shrink-0 items-center gap-2 border-b border-line px-3">
        <MessageIcon size={15} className="shrink-0 text-fg-muted" />
        <h2 ref={heading} tabIndex={-1} className="min-w-0 flex-1 truncate text-[14px] font-bold focus:outline-none">
          Thread <span className="font-normal text-fg-muted">· {title}</span>
        </h2>
        {runId && (
          <Link
            href={`/runs/${encodeURIComponent(runId)}`}
            className="inline-flex h-8 shrink-0 items-center gap-1 rounded-md px-2 text-xs font-medium text-accent hover:bg-hover"
          >
            Open run
          </Link>
        )}
        {runId && run?.state === "running" && <CancelWork kind="run" id={runId} title={title} className="h-8 shrink-0 px-2 text-xs" />}
        <button
          type="button"
          onClick={onClose}
          aria-label="Close thread"
          title="Close thread (Esc)"
          className="inline-flex h-8 w-8 shrink-0 items-center justify-center rounded-md text-fg-muted hover:bg-hover hover:text-fg"
        >
          <CloseIcon size={16} />
        </button>
      </div>
      <div
        ref={body}
        onScroll={(e) => {
          const el = e.currentTarget;
          const end = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
          // As in the channel: at the end, the pane follows it while rows drawn there are
          // measured and new events come; scrolling up lets go.
          if (end) stickEnd.current = true;
          else if (el.scrollTop < lastTop.current - 1) stickEnd.current = false;
          lastTop.current = el.scrollTop;
          setAtEnd(end || stickEnd.current);
        }}
        className="scroll-slim min-h-0 flex-1 overflow-y-auto pb-3 [overflow-anchor:none]"
      >
        <div ref={content}>
          <VirtualRowsView
            list={list}
            header={
              <>
                {run && (
                  <div className="px-3 pt-3">
                    <RunCard run={run} inPane />
                  </div>
                )}
                {runId && <ForksOf runId={runId} runs={runs} />}
                {runId && history.isLoading && (
                  <p className="px-4 py-3 text-sm text-fg-muted" role="status">
                    Loading the run’s events…
                  </p>
                )}
                {history.error && (
                  <p className="px-4 py-3 text-sm text-danger" role="alert">
                    Couldn’t load the run’s events: {history.error.message}
                  </p>
                )}
                {!runId && !root && (
                  <p className="px-4 py-3 text-sm text-fg-muted">This message is further back than what is loaded in the channel.</p>
                )}
              </>
            }
            // Rows drawn by scrolling are not news: the log announces additions only while the person is at the end.
            listProps={{ role: "log", "aria-label": `Events in the thread of ${title}`, "aria-live": atEnd ? "polite" : "off", "aria-relevant": "additions" }}
            renderRow={(i) => <PaneRow row={rows[i]!} />}
          />
          {runId && <LiveReplies streams={live.streams} events={events} runs={runs} where="thread" />}
          {history.data && !history.data.complete && (
            <p className="px-4 py-2 text-xs text-fg-muted" role="status">
              Loading the rest of the run’s events…
            </p>
          )}
          {history.data?.capped && (
            <p className="px-4 py-2 text-xs text-fg-muted">
              The first {RUN_CAP.toLocaleString()} events are shown here;{" "}
              <Link href={`/runs/${encodeURIComponent(runId!)}`} className="font-medium text-accent hover:underline">
                the run view
              </Link>{" "}
              has them all.
            </p>
          )}
        </div>
      </div>
      {runId && <LiveLine statuses={live.statuses} typing={live.typing} streams={live.streams} />}
      {composerTarget && (
        <Composer
          threadId={threadId}
          typingRunId={runId ?? undefined}
          channelName={channelName}
          draft={`${threadId}:${runId ?? messageId}`}
          target={composerTarget}
          chatParentId={runId && root && !isAgentWord(root) ? root.id : null}
          alsoSendTo={alsoSendTo}
          onSent={() => {
            // Your reply is yours to read: the pane follows the end, where it appears.
            stickEnd.current = true;
            const el = body.current;
            if (el) requestAnimationFrame(() => (el.scrollTop = el.scrollHeight));
          }}
          onTargetChange={(t) => {
            if (t.kind === "new" && answer) setDeclined(answer.question.id);
          }}
          label={
            composerTarget.kind === "answer"
              ? `Answer ${nameOf(composerTarget.question.from)}`
              : composerTarget.kind === "follow_up"
                ? `Follow-up for ${nameOf(composerTarget.agent)}`
                : "Reply in thread"
          }
        />
      )}
    </aside>
  );
}

/**
 * The forks of a run, each a line in the run's thread that opens the fork's own thread: a fork
 * lives beside the run it was forked from (docs/channels.md "Forks"), not in the channel.
 */
function ForksOf({ runId, runs }: { runId: string; runs: readonly RunSummary[] }) {
  const { openThread } = useThreadActions();
  const forks = runs.filter((r) => r.forked_from?.run_id === runId);
  if (!forks.length) return null;
  return (
    <ul aria-label="Forks of this run" className="mx-3 mt-2 space-y-1 rounded-lg border border-line bg-surface px-3 py-2 text-[12.5px]">
      {forks.map((f) => (
        <li key={f.run_id} className="flex min-w-0 items-baseline gap-1.5">
          <span className="shrink-0 text-fg-muted">Forked at step #{f.forked_from!.seq}:</span>
          <button type="button" onClick={() => openThread({ run_id: f.run_id })} className="min-w-0 truncate text-left font-medium text-accent hover:underline">
            {f.run_number > 0 ? `#${f.run_number} ` : ""}
            {f.title ?? "Untitled fork"}
          </button>
          <Link href={`/runs/${encodeURIComponent(f.run_id)}/compare`} className="shrink-0 text-fg-muted hover:text-fg hover:underline">
            Compare
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Whether `row` shows the event `id` (a "Details" or policy row holds several). */
function rowHolds(row: Row, id: string): boolean {
  if (row.kind === "event") return row.event.id === id;
  if (row.kind === "details" || row.kind === "policy-group") return row.events.some((e) => e.id === id);
  return false;
}

/** One row of a thread: a day line, a fold of machinery or policy allows, or an event (memoized like the channel's). */
const PaneRow = memo(function PaneRow({ row }: { row: Row }) {
  return row.kind === "day" ? (
    <p className="mx-4 mt-3 text-[11px] font-semibold text-fg-muted">{row.label}</p>
  ) : row.kind === "policy-group" ? (
    <PolicyAllowGroup events={row.events} />
  ) : row.kind === "details" ? (
    <StepDetails events={row.events} />
  ) : row.kind === "copied" ? (
    <ForkCopies events={row.events} />
  ) : row.kind === "event" ? (
    <>
      <EventView event={row.event} ctx={row.ctx} />
      {row.ctx.updates && row.ctx.updates > 1 ? (
        <p className="pb-0.5 pl-[62px] text-[11px] text-fg-subtle sm:pl-[66px]">{row.ctx.updates.toLocaleString()} progress updates; the latest is shown</p>
      ) : null}
    </>
  ) : null;
});

/**
 * The newest thing an agent said to people in a run's events: a message to people (not a
 * question, which is answered instead) or a root task's result; what a follow-up replies to.
 */
function lastAgentWord(events: readonly StoredEvent[]): StoredEvent | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (!isAgentWord(e)) continue;
    // A result that its agent also told people as a message (its report): the reply names the message, which people read.
    if (e.type === "task.result") {
      for (let j = i - 1; j >= 0; j--) {
        const m = events[j]!;
        if (m.task_id === e.task_id && isEvent(m, "chat.message") && isAgentWord(m)) return m;
      }
    }
    return e;
  }
  return null;
}

/** An agent's message to people (not a question) or a root task's result. */
function isAgentWord(e: StoredEvent): boolean {
  if (e.from.role === "human" || e.from.agent_id.startsWith("user:") || isClutchSender(e.from.agent_id)) return false;
  if (isEvent(e, "chat.message")) return !e.payload.expects_reply && e.to.some((t) => t.agent_id === "user" || t.agent_id.startsWith("user:"));
  return isEvent(e, "task.result") && !e.parent_task_id;
}

