"use client";
/**
 * `ChannelSwitcher`: the Ctrl/Cmd+K quick switcher (filter by typing, arrows, Enter). A combobox
 * over the channel list; names that start with the query come first, then names and topics that
 * contain it.
 */
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import type { ThreadSummary } from "@/lib/api/types";
import { useThreads } from "@/components/live/use-threads";
import { unreadCount, useReadMarks } from "@/components/prefs/read-marks";
import { Dialog } from "@/components/ui/dialog";
import { HashIcon, SearchIcon } from "@/components/ui/icons";

/** Channels matching `query`, best first. */
export function filterChannels(threads: readonly ThreadSummary[], query: string): ThreadSummary[] {
  const q = query.trim().toLowerCase().replace(/^#/, "");
  if (!q) return [...threads];
  const starts: ThreadSummary[] = [];
  const contains: ThreadSummary[] = [];
  const topic: ThreadSummary[] = [];
  for (const t of threads) {
    const n = t.name.toLowerCase();
    if (n.startsWith(q)) starts.push(t);
    else if (n.includes(q)) contains.push(t);
    else if (t.topic.toLowerCase().includes(q)) topic.push(t);
  }
  return [...starts, ...contains, ...topic];
}

/** The Ctrl/Cmd+K channel switcher dialog. */
export function ChannelSwitcher({ open, onClose, activeId }: { open: boolean; onClose: () => void; activeId?: string }) {
  return (
    <Dialog open={open} onClose={onClose} title="Switch channel" hideTitle position="top" className="max-w-lg overflow-hidden">
      {open && <SwitcherBody onClose={onClose} activeId={activeId} />}
    </Dialog>
  );
}

function SwitcherBody({ onClose, activeId }: { onClose: () => void; activeId?: string }) {
  const router = useRouter();
  const { data: threads = [] } = useThreads();
  const { marks } = useReadMarks();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const listId = useId();
  const results = useMemo(() => filterChannels(threads, query).slice(0, 50), [threads, query]);
  const index = Math.min(active, Math.max(0, results.length - 1));

  const go = (t: ThreadSummary | undefined) => {
    if (!t) return;
    onClose();
    router.push(`/c/${encodeURIComponent(t.id)}`);
  };

  return (
    <div>
      <div className="flex items-center gap-2 border-b border-line px-4">
        <SearchIcon size={16} className="shrink-0 text-fg-subtle" />
        <input
          autoFocus
          role="combobox"
          aria-label="Find a channel"
          aria-expanded="true"
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={results[index] ? `${listId}-${index}` : undefined}
          value={query}
          placeholder="Jump to a channel…"
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              setActive((index + 1) % Math.max(1, results.length));
            } else if (e.key === "ArrowUp") {
              e.preventDefault();
              setActive((index - 1 + results.length) % Math.max(1, results.length));
            } else if (e.key === "Enter") {
              e.preventDefault();
              go(results[index]);
            }
          }}
          className="h-12 flex-1 bg-transparent text-[15px] text-fg placeholder:text-fg-subtle focus:outline-none"
        />
        <kbd className="rounded border border-line px-1.5 text-[10px] font-semibold text-fg-subtle">Esc</kbd>
      </div>
      <ul id={listId} role="listbox" aria-label="Channels" className="scroll-slim max-h-80 overflow-y-auto p-1.5">
        {results.length === 0 && <li className="px-3 py-6 text-center text-sm text-fg-muted">No channel matches “{query}”.</li>}
        {results.map((t, i) => {
          const unread = t.id === activeId ? 0 : unreadCount(t, marks);
          return (
            <li
              key={t.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === index}
              onMouseMove={() => i !== index && setActive(i)}
              onClick={() => go(t)}
              className={`flex cursor-pointer items-center gap-2 rounded-md px-3 py-1.5 ${
                i === index ? "bg-accent text-accent-fg" : "text-fg"
              }`}
            >
              <HashIcon size={14} className="shrink-0 opacity-70" />
              <span className={`shrink-0 ${unread ? "font-bold" : "font-medium"}`}>{t.name}</span>
              <span className={`min-w-0 flex-1 truncate text-xs ${i === index ? "text-accent-fg/80" : "text-fg-subtle"}`}>
                {t.topic}
              </span>
              {unread > 0 && (
                <span className={`rounded-full px-1.5 text-[11px] font-bold ${i === index ? "bg-accent-fg text-accent" : "bg-accent text-accent-fg"}`}>{unread > 99 ? "99+" : unread}</span>
              )}
              {t.id === activeId && <span className="text-[11px] opacity-70">current</span>}
            </li>
          );
        })}
      </ul>
      <div className="flex gap-3 border-t border-line px-4 py-1.5 text-[11px] text-fg-subtle">
        <span>↑↓ to move</span>
        <span>Enter to open</span>
        <span>Esc to close</span>
      </div>
    </div>
  );
}
