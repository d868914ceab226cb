"use client";
/**
 * `ChannelSwitcher`: the Ctrl/Cmd+K quick switcher and search (arrows, Enter). A combobox over
 * the channels that match what is typed (names that start with it first, then names and topics
 * that contain it), the best few messages, reports and results that match it (`GET
 * /api/search`, after a short pause in typing, shown as messages), and "Search everything"
 * which opens `/search`. The search operators (`in:#sales`, `from:pm-1`, `is:result`, …,
 * lib/search/query.ts) work here too and are completed as they are typed: while suggestions
 * show, the list holds them (↑/↓, Enter or Tab takes one); a wrong value says what it takes.
 * A direct message is listed, and found, by its other party's name ("Project Manager"; docs/channels.md
 * "One name per agent"), never its stored `dm-…` name.
 */
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { SearchHit, ThreadSummary } from "@/lib/api/types";
import { parseSearch } from "@/lib/search/query";
import { hitHref, search } from "@/components/search/api";
import { SearchHitView } from "@/components/search/hit";
import { useSearchCompletion } from "@/components/search/use-completion";
import { useThreads } from "@/components/live/use-threads";
import { unreadCount, useReadMarks } from "@/components/prefs/read-marks";
import { Dialog } from "@/components/ui/dialog";
import { HashIcon, SearchIcon } from "@/components/ui/icons";
import { useChannelNames } from "./thread-title";

/** Channels matching `query` by the name a person reads (`label`: "#sales", a DM's other party), best first. */
export function filterChannels(threads: readonly ThreadSummary[], query: string, label: (t: ThreadSummary) => string): ThreadSummary[] {
  const q = query.trim().toLowerCase().replace(/^#/, "");
  if (!q) return [...threads];
  const starts: ThreadSummary[] = [];
  const contains: ThreadSummary[] = [];
  const topic: ThreadSummary[] = [];
  for (const t of threads) {
    const n = label(t).toLowerCase().replace(/^#/, "");
    if (n.startsWith(q)) starts.push(t);
    else if (n.includes(q)) contains.push(t);
    else if (t.topic.toLowerCase().includes(q)) topic.push(t);
  }
  return [...starts, ...contains, ...topic];
}

/** The Ctrl/Cmd+K channel switcher dialog. */
export function ChannelSwitcher({ open, onClose, activeId }: { open: boolean; onClose: () => void; activeId?: string }) {
  return (
    <Dialog open={open} onClose={onClose} title="Jump to a channel or search" hideTitle position="top" className="max-w-lg overflow-hidden">
      {open && <SwitcherBody onClose={onClose} activeId={activeId} />}
    </Dialog>
  );
}

/** One option of the list: a channel, a search hit, or "search everything". */
type Option = { kind: "channel"; thread: ThreadSummary } | { kind: "hit"; hit: SearchHit } | { kind: "all"; q: string };

/** `value`, once it has not changed for `ms`. */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

function SwitcherBody({ onClose, activeId }: { onClose: () => void; activeId?: string }) {
  const router = useRouter();
  const { data: threads = [] } = useThreads();
  const channel = useChannelNames();
  const { marks } = useReadMarks();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [caret, setCaret] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const text = query.trim();
  const settled = useSettled(text, 200);
  const complete = useSearchCompletion(query, caret, (next, at) => {
    setQuery(next);
    setCaret(at);
    requestAnimationFrame(() => input.current?.setSelectionRange(at, at));
  });
  const completing = complete.options.length > 0;
  // With operators in the box it is a search, not a channel name; a wrong value says why.
  const parsed = useMemo(() => (text ? parseSearch(text) : null), [text]);
  const syntaxError = parsed && !parsed.ok ? parsed.error.message : null;
  const operators = Boolean(parsed?.ok && parsed.query.text !== text);
  const hits = useQuery({
    queryKey: ["search", { q: settled, limit: 5 }],
    enabled: settled.length > 1 && !(settled === text && syntaxError),
    queryFn: ({ signal }) => search({ q: settled, limit: 5 }, signal),
    staleTime: 10_000,
  }).data;
  const options = useMemo<Option[]>(() => {
    const channels = operators ? [] : filterChannels(threads, query, (t) => channel.label({ thread_id: t.id })).slice(0, text ? 6 : 50);
    return [
      ...channels.map((thread) => ({ kind: "channel" as const, thread })),
      ...(text && settled === text ? (hits ?? []) : []).map((hit) => ({ kind: "hit" as const, hit })),
      ...(text ? [{ kind: "all" as const, q: text }] : []),
    ];
  }, [threads, query, text, settled, hits, operators, channel]);
  const index = Math.min(active, Math.max(0, options.length - 1));

  const go = (o: Option | undefined) => {
    if (!o) return;
    onClose();
    if (o.kind === "channel") router.push(`/c/${encodeURIComponent(o.thread.id)}`);
    else if (o.kind === "hit") router.push(hitHref(o.hit));
    else router.push(`/search?q=${encodeURIComponent(o.q)}`);
  };
  const firstHit = options.findIndex((o) => o.kind === "hit");

  return (
    <div>
      <div className="flex items-center gap-2 border-b border-line px-4">
        <SearchIcon size={16} className="shrink-0 text-fg-subtle" />
        <input
          ref={input}
          autoFocus
          role="combobox"
          aria-label="Jump to a channel or search"
          aria-expanded="true"
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={completing ? `${listId}-c${complete.active}` : options[index] ? `${listId}-${index}` : undefined}
          value={query}
          placeholder="Jump to a channel or search (in:#channel from:agent is:result)…"
          onChange={(e) => {
            setQuery(e.target.value);
            setCaret(e.target.selectionStart ?? e.target.value.length);
            setActive(0);
          }}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? e.currentTarget.value.length)}
          onKeyDown={(e) => {
            if (complete.onKeyDown(e)) return;
            if (e.key === "ArrowDown") {
              e.preventDefault();
              setActive((index + 1) % Math.max(1, options.length));
            } else if (e.key === "ArrowUp") {
              e.preventDefault();
              setActive((index - 1 + options.length) % Math.max(1, options.length));
            } else if (e.key === "Enter") {
              e.preventDefault();
              go(options[index]);
            }
          }}
          className="h-12 flex-1 bg-transparent text-[15px] text-fg placeholder:text-fg-subtle focus:outline-none"
        />
        <kbd className="rounded border border-line px-1.5 text-[10px] font-semibold text-fg-subtle">Esc</kbd>
      </div>
      {syntaxError && !completing && (
        <p role="alert" className="border-b border-line px-4 py-2 text-sm text-danger">
          {syntaxError}
        </p>
      )}
      <ul id={listId} role="listbox" aria-label={completing ? "Suggestions" : "Channels and matches"} className="scroll-slim max-h-96 overflow-y-auto p-1.5">
        {completing &&
          complete.options.map((o, i) => {
            const selected = i === complete.active;
            return (
              <li
                key={o.key}
                id={`${listId}-c${i}`}
                role="option"
                aria-selected={selected}
                onMouseDown={(e) => {
                  e.preventDefault();
                  complete.accept(o);
                }}
                onMouseMove={() => i !== complete.active && complete.setActive(i)}
                className={`flex cursor-pointer items-baseline gap-2 rounded-md px-3 py-1.5 ${selected ? "bg-accent text-accent-fg" : "text-fg"}`}
              >
                <span className="font-medium">{o.label}</span>
                {o.detail && <span className={`min-w-0 truncate text-xs ${selected ? "text-accent-fg/85" : "text-fg-muted"}`}>{o.detail}</span>}
              </li>
            );
          })}
        {!completing && options.length === 0 && <li className="px-3 py-6 text-center text-sm text-fg-muted">No channel yet.</li>}
        {!completing && options.map((o, i) => {
          const selected = i === index;
          const common = {
            id: `${listId}-${i}`,
            role: "option" as const,
            "aria-selected": selected,
            onMouseMove: () => i !== index && setActive(i),
            onClick: () => go(o),
          };
          const tone = selected ? "bg-accent text-accent-fg" : "text-fg";
          const quiet = selected ? "text-accent-fg/85" : "text-fg-muted";
          if (o.kind === "channel") {
            const t = o.thread;
            const unread = t.id === activeId ? 0 : unreadCount(t, marks);
            return (
              <li key={t.id} {...common} className={`flex cursor-pointer items-center gap-2 rounded-md px-3 py-1.5 ${tone}`}>
                <HashIcon size={14} className={`shrink-0 opacity-70 ${t.kind === "dm" ? "invisible" : ""}`} />
                <span className={`shrink-0 ${unread ? "font-bold" : "font-medium"}`}>{t.kind === "dm" ? channel.label({ thread_id: t.id }) : t.name}</span>
                <span className={`min-w-0 flex-1 truncate text-xs ${quiet}`}>{t.topic}</span>
                {unread > 0 && (
                  <span className={`rounded-full px-1.5 text-[11px] font-bold ${selected ? "bg-accent-fg text-accent" : "bg-accent text-accent-fg"}`}>{unread > 99 ? "99+" : unread}</span>
                )}
                {t.id === activeId && <span className="text-[11px]">current</span>}
              </li>
            );
          }
          if (o.kind === "hit") {
            const ev = o.hit.event;
            return (
              <li key={`hit-${ev.seq}`} {...common} className={`block cursor-pointer rounded-md px-3 py-1.5 ${tone}`}>
                {i === firstHit && <span className="sr-only">Matches: </span>}
                <SearchHitView hit={o.hit} compact selected={selected} />
              </li>
            );
          }
          return (
            <li key="all" {...common} className={`flex cursor-pointer items-center gap-2 rounded-md px-3 py-1.5 ${tone}`}>
              <SearchIcon size={14} className="shrink-0 opacity-70" />
              <span className="font-medium">Search everything for “{o.q}”</span>
            </li>
          );
        })}
      </ul>
      <div className="flex gap-3 border-t border-line px-4 py-1.5 text-[11px] text-fg-subtle">
        <span>↑↓ to move</span>
        <span>{completing ? "Enter or Tab to complete" : "Enter to open"}</span>
        <span>Esc to close</span>
      </div>
    </div>
  );
}
