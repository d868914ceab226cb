"use client";
/**
 * `ReplayTimeline`: the replay controls and the list of every event of the run, under the graph:
 * play, pause, speed (1x to 100x, and instant), one event forward or back, drag to any point;
 * keyboard too.
 *
 * Position n = events shown (0..total): the graph and panel show the state after events 1..n.
 * In the list, the last event applied is marked, later ones are dimmed; a click on an event
 * moves there, and each event has "Re-run from here" (fork at its seq). Keyboard shortcuts are
 * in components/run/run-screen.tsx (they work anywhere on the page).
 */
import { memo, useEffect, useRef } from "react";
import { importedFrom, type StoredEvent } from "@/lib/protocol";
import { useRunNameOf } from "./use-run-names";
import { formatFull } from "@/components/ui/time";
import { ForkIcon, PauseIcon, PlayIcon, RadioIcon, SkipEndIcon, SkipStartIcon, StepBackIcon, StepForwardIcon } from "./icons";
import { familyOf, summarize, type EventFamily } from "./event-summary";
import { SPEEDS, type Speed } from "./use-playback";
import { VirtualList, type VirtualListHandle } from "./virtual-list";

const ROW_H = 28;

const FAMILY: Record<EventFamily, string> = {
  chat: "text-fg",
  task: "text-info",
  tool: "text-agent",
  routing: "text-success",
  agent: "text-fg-muted",
  error: "text-danger",
  other: "text-fg-muted",
};

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });

function clock(ts: string): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? "" : timeFmt.format(d);
}

export function speedLabel(s: Speed): string {
  return s === Infinity ? "Instant" : `${s}×`;
}

const EventRow = memo(function EventRow({
  event,
  index,
  total,
  current,
  future,
  style,
  onSeek,
  onFork,
  forking,
}: {
  event: StoredEvent;
  index: number;
  total: number;
  current: boolean;
  future: boolean;
  style: React.CSSProperties;
  onSeek: (n: number) => void;
  onFork: (seq: number) => void;
  forking: boolean;
}) {
  const fam = familyOf(event);
  const forked = event.meta?.forked_from !== undefined;
  const nameOf = useRunNameOf();
  const sender = nameOf(event.from);
  const imported = importedFrom(event);
  return (
    <div
      role="listitem"
      aria-setsize={total}
      aria-posinset={index + 1}
      aria-current={current ? "step" : undefined}
      data-seq={event.seq}
      style={style}
      className={`group flex items-center border-l-[3px] pr-1 text-[12px] ${
        current ? "border-accent bg-accent-soft" : "border-transparent hover:bg-hover"
      } ${future ? "opacity-45" : ""}`}
    >
      <button
        type="button"
        onClick={() => onSeek(index + 1)}
        title={`${formatFull(event.ts)} · seq ${event.seq}${forked ? " · copied from the source run" : ""}`}
        aria-label={`Event ${index + 1}: ${event.type} from ${sender}. Show the run after it`}
        className="flex h-full min-w-0 flex-1 items-center gap-2 pl-2 text-left"
      >
        <span className="w-12 shrink-0 text-right font-mono text-[10.5px] tabular-nums text-fg-subtle">#{event.seq}</span>
        <span className="w-[62px] shrink-0 font-mono text-[10.5px] tabular-nums text-fg-subtle max-sm:hidden">{clock(event.ts)}</span>
        <span className={`w-[124px] shrink-0 truncate font-mono text-[11px] font-semibold max-sm:w-[100px] ${FAMILY[fam]}`} title={event.type}>
          {event.type}
        </span>
        <span className="w-[84px] shrink-0 truncate font-medium text-fg-muted max-sm:w-16" title={event.from.agent_id}>
          {sender}
        </span>
        <span className="min-w-0 flex-1 truncate text-fg-muted">{summarize(event, nameOf)}</span>
        {forked && (
          <span className="shrink-0 rounded bg-sunken px-1 text-[10px] text-fg-subtle max-sm:hidden" title="Copied from the run this one was forked from">
            copied
          </span>
        )}
        {imported && (
          <span className="shrink-0 truncate rounded bg-warning/10 px-1 text-[10px] font-semibold text-warning max-sm:hidden" title={`${sender} imported this from a file; the file says ${imported.from.agent_id} sent it. The copy acts on nothing.`}>
            imported from {nameOf(imported.from)}
          </span>
        )}
      </button>
      <button
        type="button"
        onClick={() => onFork(event.seq)}
        disabled={forking}
        aria-label={`Re-run from event #${event.seq}`}
        title="Re-run from here: a new run with events up to this one, continuing live"
        className={`ml-1 inline-flex h-6 shrink-0 items-center gap-1 rounded px-1.5 text-[11px] font-medium text-fg-muted hover:bg-accent/10 hover:text-accent focus:opacity-100 disabled:opacity-40 ${
          current ? "opacity-100" : "opacity-0 group-hover:opacity-100 [@media(hover:none)]:opacity-100"
        }`}
      >
        <ForkIcon size={12} />
        <span className="max-sm:hidden">Re-run from here</span>
      </button>
    </div>
  );
});

function IconButton({ label, onClick, disabled, children, shortcut, pressed }: { label: string; onClick: () => void; disabled?: boolean; children: React.ReactNode; shortcut?: string; pressed?: boolean }) {
  return (
    <button
      type="button"
      onClick={onClick}
      disabled={disabled}
      aria-label={label}
      aria-pressed={pressed}
      aria-keyshortcuts={shortcut}
      title={shortcut ? `${label} (${shortcut})` : label}
      className="inline-flex h-8 w-8 shrink-0 items-center justify-center rounded-md text-fg-muted hover:bg-hover hover:text-fg disabled:opacity-40 disabled:hover:bg-transparent"
    >
      {children}
    </button>
  );
}

/** The controls and the event list (see the file comment). */
export function ReplayTimeline({
  events,
  total,
  position,
  following,
  live,
  loading,
  playing,
  speed,
  forking,
  onSeek,
  onPlay,
  onPause,
  onSpeed,
  onFork,
  listHeight,
}: {
  events: readonly StoredEvent[];
  total: number;
  position: number;
  /** Following the head (live) rather than a chosen point. */
  following: boolean;
  /** The run is still running (new events may come). */
  live: boolean;
  /** Events are still loading: "x of y" (y null until the run's summary says how many it has). */
  loading: { loaded: number; expected: number | null } | null;
  playing: boolean;
  speed: Speed;
  forking: boolean;
  onSeek: (n: number) => void;
  onPlay: () => void;
  onPause: () => void;
  onSpeed: (s: Speed) => void;
  onFork: (seq: number) => void;
  listHeight: string;
}) {
  const list = useRef<VirtualListHandle>(null);
  useEffect(() => {
    list.current?.ensureVisible(Math.max(0, position - 1));
  }, [position]);
  const at = position > 0 ? events[position - 1] : undefined;
  const atEnd = position >= total;
  return (
    <section aria-label="Replay" className="flex shrink-0 flex-col border-t border-line bg-canvas">
      <div className="flex flex-wrap items-center gap-x-1 gap-y-1 px-2 py-1.5 sm:px-3">
        <div className="flex items-center">
          <IconButton label="Go to the first event" shortcut="Home" onClick={() => onSeek(0)} disabled={position === 0}>
            <SkipStartIcon size={15} />
          </IconButton>
          <IconButton label="Previous event" shortcut="ArrowLeft" onClick={() => onSeek(position - 1)} disabled={position === 0}>
            <StepBackIcon size={15} />
          </IconButton>
          {playing ? (
            <IconButton label="Pause" shortcut="Space" onClick={onPause}>
              <PauseIcon size={16} />
            </IconButton>
          ) : (
            <IconButton label="Play" shortcut="Space" onClick={onPlay} disabled={total === 0}>
              <PlayIcon size={16} />
            </IconButton>
          )}
          <IconButton label="Next event" shortcut="ArrowRight" onClick={() => onSeek(position + 1)} disabled={atEnd}>
            <StepForwardIcon size={15} />
          </IconButton>
          <IconButton label={live ? "Go live (follow new events)" : "Go to the last event"} shortcut="End" onClick={() => onSeek(total)} disabled={atEnd && following}>
            <SkipEndIcon size={15} />
          </IconButton>
        </div>
        <label className="ml-1 flex items-center gap-1 text-[12px] text-fg-muted">
          <select
            aria-label="Playback speed"
            value={speed === Infinity ? "instant" : String(speed)}
            onChange={(e) => onSpeed(e.target.value === "instant" ? Infinity : (Number(e.target.value) as Speed))}
            className="h-7 rounded-md border border-line bg-surface px-1.5 text-[12px] text-fg focus:border-accent focus:outline-none"
            title="Speed: gaps between events as they happened, divided by this; pauses longer than 1.5 s are shortened"
          >
            {SPEEDS.map((s) => (
              <option key={String(s)} value={s === Infinity ? "instant" : String(s)}>
                {speedLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <input
          type="range"
          min={0}
          max={total}
          step={1}
          value={position}
          onChange={(e) => onSeek(Number(e.target.value))}
          aria-label="Replay position"
          aria-valuetext={`Event ${position} of ${total}${at ? `: ${at.type}, seq ${at.seq}` : ""}`}
          className="mx-1 h-8 min-w-[120px] flex-1 cursor-pointer accent-[var(--c-accent)] max-sm:order-last max-sm:basis-full"
        />
        <div className="flex min-w-0 items-center gap-2 text-[12px] text-fg-muted">
          <span className="tabular-nums" aria-live="off">
            <span className="font-semibold text-fg">{position.toLocaleString()}</span> / {total.toLocaleString()}
            {at && <span className="max-md:hidden"> · seq {at.seq} · {clock(at.ts)}</span>}
          </span>
          {loading ? (
            <span
              className="inline-flex items-center gap-1 rounded-full bg-info/12 px-2 py-px text-[11px] font-semibold tabular-nums text-info"
              role="status"
              title={loading.expected === null ? `Loading events: ${loading.loaded.toLocaleString()} so far` : `Loading events: ${loading.loaded.toLocaleString()} of ${loading.expected.toLocaleString()}`}
            >
              {loading.expected === null ? "Loading…" : `Loading ${Math.floor((100 * loading.loaded) / Math.max(1, loading.expected))}%`}
            </span>
          ) : live && following ? (
            <span className="inline-flex items-center gap-1 rounded-full bg-danger/10 px-2 py-px text-[11px] font-semibold text-danger" title="Following new events as they arrive">
              <RadioIcon size={12} /> Live
            </span>
          ) : !atEnd ? (
            <span className="rounded-full bg-warning/12 px-2 py-px text-[11px] font-semibold text-warning" title="Showing the run as it was after this event">
              Replay
            </span>
          ) : null}
          <button
            type="button"
            onClick={() => at && onFork(at.seq)}
            disabled={!at || forking}
            className="inline-flex h-7 shrink-0 items-center gap-1 rounded-md border border-line bg-surface px-2 text-[12px] font-medium text-fg hover:bg-hover disabled:opacity-40"
            title={at ? `A new run with events up to #${at.seq}, continuing live from there` : "Move to an event first"}
          >
            <ForkIcon size={13} />
            {forking ? "Forking…" : "Re-run from here"}
          </button>
        </div>
      </div>
      <VirtualList
        ref={list}
        count={total}
        rowHeight={ROW_H}
        label="Events of the run"
        className="border-t border-line"
        style={{ height: listHeight }}
        renderRow={(i, style) => (
          <EventRow
            key={events[i]!.seq}
            event={events[i]!}
            index={i}
            total={total}
            current={i === position - 1}
            future={i >= position}
            style={style}
            onSeek={onSeek}
            onFork={onFork}
            forking={forking}
          />
        )}
      />
    </section>
  );
}
