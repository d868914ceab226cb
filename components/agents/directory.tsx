"use client";
/**
 * `AgentDirectory`, the frame of `/agents` and `/agents/:agent_id`, a directory of every
 * registered agent (online or offline from heartbeats, shown live, current load against
 * max_concurrency, recent success rate):
 *
 * - The list: every agent with its presence (dot and word, live from `agents.changed`), where it
 *   comes from (workspace or external), load as `active/max` with a bar, recent success rate,
 *   when it was last seen (ticking every second) and its capabilities as `id@version` chips.
 * - A search box (name, id, capability id or tag; `/` focuses it) and a status filter.
 * - `children` is the selected agent's card (`/agents/:agent_id`) or the overview (`/agents`).
 *   From 1024 px up the list and the card sit side by side; below, the page shows the list, or
 *   the selected card with a way back.
 * - Keys: ↑/↓ move between agents in the list, Enter opens one.
 * - Admins import a team from a PromptPack ("Import a team…", ./import-pack-dialog.tsx).
 */
import Link from "next/link";
import { useParams } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from "react";
import type { AgentSummary } from "@/lib/api/types";
import { useAgents } from "@/components/live/use-agents";
import { bareId, hueFor } from "@/components/events/participant";
import { Avatar } from "@/components/ui/avatar";
import { useMe } from "@/components/identity/me";
import { Button, inputClass } from "@/components/ui/button";
import { BotIcon, SearchIcon, UploadIcon } from "@/components/ui/icons";
import { useNow } from "@/components/ui/use-now";
import { useHotkeys } from "@/components/ui/use-hotkeys";
import { useShortcutSection, type ShortcutSection } from "@/components/ui/shortcuts";
import { formatFull } from "@/components/ui/time";
import { PageHeader, PageTitle } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { agentHref, seenText, successText } from "@/components/workspace/agent-status";
import { ImportPackDialog } from "./import-pack-dialog";
import { countByStatus, filterAgents, type StatusFilter } from "./model";
import { CapabilityChips, LoadMeter, PresenceDot, SourceBadge, StatusWord } from "./parts";

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The agent directory's section of the shortcut sheet (components/ui/shortcuts.tsx). */
export const AGENTS_KEYS: ShortcutSection = {
  id: "agents",
  title: "Agents",
  rows: [
    { keys: ["/"], does: "Search the agents" },
    { keys: ["↓", "↑"], does: "Next or previous agent (from the search box or the list)" },
    { keys: ["Esc"], does: "Back to the search box (from the list)" },
  ],
};

/** The directory frame: header, searchable live list, and the selected card (see the file comment). */
export function AgentDirectory({ children }: { children: ReactNode }) {
  const params = useParams<{ agent_id?: string }>();
  const raw = params?.agent_id;
  const selectedId = typeof raw === "string" ? decode(raw) : null;
  const agents = useAgents();
  const [text, setText] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const searchRef = useRef<HTMLInputElement>(null);
  const me = useMe();
  const [importing, setImporting] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const detail = useRef<HTMLDivElement>(null);

  const all = useMemo(() => agents.data ?? [], [agents.data]);
  const shown = useMemo(() => filterAgents(all, text, status), [all, text, status]);
  const counts = useMemo(() => countByStatus(all), [all]);

  // A new selection starts at the top of its card; on narrow screens (the list is hidden) the
  // focus moves to the card's heading so keyboard users land where the content is.
  useEffect(() => {
    detail.current?.scrollTo({ top: 0 });
    if (!selectedId) return;
    if (window.matchMedia("(max-width: 1023.98px)").matches) {
      scroller.current?.scrollTo({ top: 0 });
      const active = document.activeElement;
      if (!active || active === document.body || (active instanceof HTMLElement && active.offsetParent === null)) {
        requestAnimationFrame(() => detail.current?.querySelector<HTMLElement>("[data-agent-heading]")?.focus({ preventScroll: true }));
      }
    }
  }, [selectedId]);

  useShortcutSection(AGENTS_KEYS);
  // "/" focuses the search box when no field has the focus.
  useHotkeys((e) => {
    if (e.key !== "/") return;
    e.preventDefault();
    searchRef.current?.focus();
  });

  useEffect(() => {
    document.title = selectedId ? `${bareId(selectedId)} · Agents · Clutch` : "Agents · Clutch";
  }, [selectedId]);

  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <PageTitle icon={<BotIcon size={16} className="shrink-0 text-fg-muted" />} title="Agents" detail={agents.data ? `${counts.online + counts.busy} of ${all.length} online` : null} />
        {me.role === "admin" && (
          <Button onClick={() => setImporting(true)} aria-label="Import a team">
            <UploadIcon size={14} /> <span className="max-sm:hidden">Import a team…</span>
          </Button>
        )}
      </PageHeader>
      <ImportPackDialog open={importing} onClose={() => setImporting(false)} />

      <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto lg:flex lg:overflow-hidden">
        <section
          aria-label="Agent directory"
          className={`flex-col border-line lg:flex lg:w-[360px] lg:shrink-0 lg:overflow-hidden lg:border-r xl:w-[380px] 2xl:w-[440px] ${selectedId ? "max-lg:hidden" : "flex"}`}
        >
          <SearchBar
            searchRef={searchRef}
            text={text}
            onText={setText}
            status={status}
            onStatus={setStatus}
            counts={counts}
            total={all.length}
            disabled={!agents.data}
          />
          <div className="scroll-slim lg:min-h-0 lg:flex-1 lg:overflow-y-auto">
            {agents.isPending ? (
              <ListSkeleton />
            ) : agents.isError && !agents.data ? (
              <div role="alert" className="flex flex-col items-center gap-2 px-6 py-12 text-center">
                <p className="font-semibold">Couldn’t load the agents.</p>
                <p className="max-w-xs text-[13px] text-fg-muted">{agents.error.message}</p>
                <button
                  type="button"
                  onClick={() => void agents.refetch()}
                  disabled={agents.isFetching}
                  className="mt-1 inline-flex h-8 items-center rounded-md border border-line bg-surface px-3 text-[13px] font-medium hover:bg-hover disabled:opacity-60"
                >
                  {agents.isFetching ? "Retrying…" : "Try again"}
                </button>
              </div>
            ) : all.length === 0 ? (
              <div role="status" className="flex flex-col items-center gap-2 px-6 py-12 text-center">
                <span className="inline-flex h-11 w-11 items-center justify-center rounded-2xl bg-agent/12 text-agent">
                  <BotIcon size={22} />
                </span>
                <h2 className="text-[15px] font-semibold">No agents registered yet</h2>
                <p className="max-w-xs text-[13px] text-fg-muted">
                  Agents of this workspace appear here when the server starts; others register with <code className="font-mono text-[12px]">POST /api/agents</code>.
                </p>
              </div>
            ) : shown.length === 0 ? (
              <div role="status" className="flex flex-col items-center gap-2 px-6 py-10 text-center">
                <h2 className="text-[14px] font-semibold">No agent matches</h2>
                <p className="text-[13px] text-fg-muted">
                  {all.length} agent{all.length === 1 ? " is" : "s are"} hidden by the filter.
                </p>
                <button
                  type="button"
                  onClick={() => {
                    setText("");
                    setStatus("all");
                    searchRef.current?.focus();
                  }}
                  className="text-[13px] font-medium text-accent hover:underline"
                >
                  Clear filter
                </button>
              </div>
            ) : (
              <AgentRows agents={shown} selectedId={selectedId} onEscape={() => searchRef.current?.focus()} />
            )}
          </div>
        </section>

        <div ref={detail} className={`scroll-slim min-w-0 lg:flex-1 lg:overflow-y-auto ${selectedId ? "" : "max-lg:border-t max-lg:border-line"}`}>
          {children}
        </div>
      </div>
    </div>
  );
}

const FILTERS: { value: StatusFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "online", label: "Online" },
  { value: "busy", label: "Busy" },
  { value: "offline", label: "Offline" },
];

function SearchBar({
  searchRef,
  text,
  onText,
  status,
  onStatus,
  counts,
  total,
  disabled,
}: {
  searchRef: React.RefObject<HTMLInputElement | null>;
  text: string;
  onText: (t: string) => void;
  status: StatusFilter;
  onStatus: (s: StatusFilter) => void;
  counts: Record<AgentSummary["status"], number>;
  total: number;
  disabled: boolean;
}) {
  const hint = useId();
  return (
    <div role="search" aria-label="Filter agents" className="sticky top-0 z-10 shrink-0 space-y-2 border-b border-line bg-canvas px-3 py-2.5 sm:px-4">
      <label className="relative block">
        <span className="sr-only">Search agents</span>
        <SearchIcon size={14} className="pointer-events-none absolute left-2.5 top-1/2 -translate-y-1/2 text-fg-subtle" />
        <input
          ref={searchRef}
          type="search"
          value={text}
          onChange={(e) => onText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              const first = document.querySelector<HTMLElement>("[data-agent-row]");
              if (first) {
                e.preventDefault();
                first.focus();
              }
            } else if (e.key === "Escape" && text) {
              e.preventDefault();
              onText("");
            }
          }}
          aria-describedby={hint}
          placeholder="Search by name, id, capability or tag"
          className={`${inputClass} h-8 pl-8 pr-8 text-[13px]`}
        />
        <kbd aria-hidden="true" className="pointer-events-none absolute right-2 top-1/2 -translate-y-1/2 rounded border border-line px-1 font-sans text-[10px] font-semibold text-fg-subtle max-sm:hidden">
          /
        </kbd>
      </label>
      <span id={hint} className="sr-only">
        Matches agent names, ids, capability ids and tags. Press the down arrow to move to the list.
      </span>
      <div role="group" aria-label="Show agents by status" className="flex flex-wrap gap-1">
        {FILTERS.map((f) => {
          const n = f.value === "all" ? total : counts[f.value];
          const on = status === f.value;
          return (
            <button
              key={f.value}
              type="button"
              aria-pressed={on}
              disabled={disabled}
              onClick={() => onStatus(f.value)}
              className={`inline-flex h-6 items-center gap-1.5 rounded-full px-2.5 text-[12px] font-medium transition-colors disabled:opacity-50 ${
                on ? "bg-accent text-accent-fg" : "bg-fg-muted/10 text-fg-muted hover:bg-fg-muted/20 hover:text-fg"
              }`}
            >
              {f.value !== "all" && <PresenceDot status={f.value} className={on ? "opacity-90" : ""} />}
              {f.label}
              <span className={`tabular-nums ${on ? "opacity-80" : "text-fg-subtle"}`}>{n}</span>
            </button>
          );
        })}
      </div>
    </div>
  );
}

/** The agents as rows of links; ↑/↓ move between them, Escape goes back to the search box. */
function AgentRows({ agents, selectedId, onEscape }: { agents: AgentSummary[]; selectedId: string | null; onEscape: () => void }) {
  const now = useNow(true, 1000);
  const list = useRef<HTMLUListElement>(null);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (!(e.target instanceof HTMLElement) || !e.target.matches("[data-agent-row]")) return;
    const rows = [...(list.current?.querySelectorAll<HTMLElement>("[data-agent-row]") ?? [])];
    const at = rows.indexOf(e.target);
    let next: HTMLElement | undefined;
    if (e.key === "ArrowDown") next = rows[at + 1];
    else if (e.key === "ArrowUp") next = at > 0 ? rows[at - 1] : undefined;
    else if (e.key === "Home") next = rows[0];
    else if (e.key === "End") next = rows[rows.length - 1];
    else if (e.key === "Escape") {
      e.preventDefault();
      onEscape();
      return;
    } else return;
    e.preventDefault();
    if (next) next.focus();
    else if (e.key === "ArrowUp") onEscape();
  };
  return (
    <ul ref={list} aria-label="Registered agents" className="divide-y divide-line" onKeyDown={onKeyDown}>
      {agents.map((a) => (
        <AgentRow key={a.agent_id} agent={a} selected={a.agent_id === selectedId} now={now} />
      ))}
    </ul>
  );
}

function AgentRow({ agent: a, selected, now }: { agent: AgentSummary; selected: boolean; now: number }) {
  const nameId = useId();
  const factsId = useId();
  const seen = seenText(a, now);
  return (
    <li data-agent-id={a.agent_id} data-status={a.status}>
      <Link
        href={agentHref(a.agent_id)}
        data-agent-row
        aria-current={selected ? "page" : undefined}
        aria-labelledby={nameId}
        aria-describedby={factsId}
        scroll={false}
        className={`group relative flex gap-3 px-3 py-3 outline-none transition-colors focus-visible:bg-accent-soft focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-accent sm:px-4 ${
          selected ? "bg-accent-soft" : "hover:bg-hover"
        }`}
      >
        {selected && <span aria-hidden="true" className="absolute inset-y-0 left-0 w-[3px] bg-accent" />}
        <span className={`mt-0.5 h-fit shrink-0 transition-[filter,opacity] ${a.status === "offline" ? "opacity-55 grayscale" : ""}`}>
          <Avatar name={a.name} hue={hueFor(a.agent_id)} agent size={34} />
        </span>
        <div className="min-w-0 flex-1">
          <div className="flex items-start gap-2">
            <span id={nameId} className="min-w-0 flex-1">
              <span className={`block truncate text-[14px] font-semibold leading-5 ${a.status === "offline" ? "text-fg-muted" : "text-fg"}`}>{a.name}</span>
              <span className="block truncate font-mono text-[11.5px] leading-4 text-fg-muted">{a.agent_id}</span>
            </span>
            <SourceBadge source={a.source} />
          </div>
          <div id={factsId} className="mt-1 flex flex-wrap items-center gap-x-2.5 gap-y-1 text-[12px] text-fg-muted">
            <StatusWord status={a.status} className="text-[12px]" />
            <span className="sr-only">,</span>
            <time dateTime={a.last_seen_at ?? undefined} title={a.last_seen_at ? formatFull(a.last_seen_at) : "No heartbeat yet"} className="tabular-nums">
              {seen}
            </time>
            <span className="sr-only">, load</span>
            <LoadMeter active={a.active_tasks} max={a.max_concurrency} />
            <span className="sr-only">, success rate</span>
            <span className={a.success_rate === null ? "text-fg-subtle" : ""} title="Share of its recent ended tasks that succeeded">
              {successText(a)}
            </span>
            {a.waiting_tasks > 0 && (
              <span className="rounded bg-warning/15 px-1 text-[10px] font-semibold uppercase tracking-wide text-warning">
                {a.waiting_tasks} waiting
              </span>
            )}
          </div>
          <div className="mt-1.5">
            <CapabilityChips capabilities={a.card.capabilities} limit={6} plain />
          </div>
        </div>
      </Link>
    </li>
  );
}

function ListSkeleton() {
  return (
    <ul aria-label="Loading agents" aria-busy="true" className="divide-y divide-line">
      {[70, 55, 62, 48].map((w) => (
        <li key={w} className="flex gap-3 px-4 py-3">
          <span className="h-[34px] w-[34px] shrink-0 animate-pulse rounded-[9px] bg-fg-muted/12" />
          <span className="flex-1 space-y-2 pt-0.5">
            <span className="block h-3.5 animate-pulse rounded bg-fg-muted/12" style={{ width: `${w}%` }} />
            <span className="block h-3 w-3/4 animate-pulse rounded bg-fg-muted/10" />
            <span className="block h-4 w-1/2 animate-pulse rounded bg-fg-muted/8" />
          </span>
        </li>
      ))}
    </ul>
  );
}
