"use client";
/**
 * `RunsScreen`, the `/runs` page (docs/channels.md "Runs"): the runs of every channel the person
 * may read, newest first, each with its status in the words of the run card and the run view
 * ("Waiting on you" when it is you it needs, "Cancelled by Lee"; lib/fold/run-status.ts), its
 * number in its channel ("#12", so runs with one title are told apart), title, channel ("#sales",
 * a DM by the other party's name), who asked, its agents by their cards' names, when it started
 * and how long it ran; links to the run view and to the run in its channel.
 *
 * - Filters at the top, kept in the URL (`?show=waiting_on_me|running|ended&channel=&agent=&requester=`)
 *   so a view can be linked: Waiting on me / Running (every run in progress) / Ended / All, and
 *   selects for channel, agent and requester.
 * - Keys (components/ui/use-hotkeys.ts, when no field has focus): j/k or ↓/↑ move the selection,
 *   Enter opens the selected run, / goes to the filters.
 * - Live enough: refetched every 10 s while a listed run is running or waiting; older runs page
 *   in with "Show older runs".
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useMemo, useRef, useState, type RefObject } from "react";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { RunSummary } from "@/lib/api/types";
import { runStatusLabel } from "@/lib/fold/run-status";
import { bareId, distinctNames } from "@/components/events/participant";
import { useNameOf } from "@/components/events/use-sender-name";
import { usePeople } from "@/components/identity/api";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { useAgents } from "@/components/live/use-agents";
import { useThreads } from "@/components/live/use-threads";
import { RunStateBadge } from "@/components/run/run-state-badge";
import { ActivityIcon } from "@/components/ui/icons";
import { PageHeader, PageTitle } from "@/components/ui/page-header";
import { formatDay, formatDuration, formatFull, formatTime } from "@/components/ui/time";
import { useHotkeys } from "@/components/ui/use-hotkeys";
import { useShortcutSection, type ShortcutSection } from "@/components/ui/shortcuts";
import { useNow } from "@/components/ui/use-now";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { useChannelNames } from "@/components/workspace/thread-title";
import { fetchRuns, filtersToSearch, hasSelects, NO_RUN_FILTERS, RUN_VIEWS, runChannelHref, type RunFilters } from "./api";

const selectCls =
  "h-8 min-w-0 rounded-md border border-line-strong bg-canvas px-2 text-[13px] text-fg focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25 max-sm:w-full sm:max-w-[14rem]";

/** Statuses that are still going: the list refetches while one is listed. */
const LIVE = new Set(["running", "waiting"]);

/** "10:42 AM" today, else "Tuesday, November 24" and the time. */
function startedLabel(ts: string, now: number): string {
  const day = formatDay(ts, new Date(now));
  return day === "Today" ? formatTime(ts) : `${day}, ${formatTime(ts)}`;
}

/** The runs page's section of the shortcut sheet (components/ui/shortcuts.tsx). */
export const RUNS_KEYS: ShortcutSection = {
  id: "runs",
  title: "Runs",
  rows: [
    { keys: ["j", "↓"], does: "Next run" },
    { keys: ["k", "↑"], does: "Previous run" },
    { keys: ["Enter"], does: "Open the selected run" },
    { keys: ["/"], does: "Go to the views (Waiting on me, Running, All)" },
  ],
};

/** The runs page (see the file comment). */
export function RunsScreen({ initial }: { initial: RunFilters }) {
  const router = useRouter();
  const [filters, setFilters] = useState<RunFilters>(initial);
  const [index, setIndex] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const viewsRef = useRef<HTMLDivElement>(null);

  const apply = (next: RunFilters) => {
    setFilters(next);
    setIndex(0);
    window.history.replaceState(window.history.state, "", `/runs${filtersToSearch(next)}`);
  };

  const query = useInfiniteQuery({
    queryKey: ["runs", filters],
    queryFn: ({ pageParam, signal }) => fetchRuns(filters, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    staleTime: 5_000,
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.runs.some((r) => LIVE.has(r.status))) ? 10_000 : false),
  });
  const runs = useMemo(() => query.data?.pages.flatMap((p) => p.runs) ?? [], [query.data]);
  const selected = runs.length ? Math.min(index, runs.length - 1) : -1;

  /** Focus the title link of the run at `i` (clamped) and select it. */
  const select = useCallback(
    (i: number) => {
      const at = Math.max(0, Math.min(runs.length - 1, i));
      const run = runs[at];
      if (!run) return;
      setIndex(at);
      const el = listRef.current?.querySelector<HTMLElement>(`[data-run-link="${CSS.escape(run.run_id)}"]`);
      el?.focus({ preventScroll: true });
      el?.closest("li")?.scrollIntoView({ block: "nearest" });
    },
    [runs],
  );

  useShortcutSection(RUNS_KEYS);
  useHotkeys((e) => {
    if (e.key === "j" || e.key === "ArrowDown") {
      e.preventDefault();
      select(selected + 1);
    } else if (e.key === "k" || e.key === "ArrowUp") {
      e.preventDefault();
      select(selected - 1);
    } else if (e.key === "Enter") {
      // A focused link or button opens itself.
      if (e.target instanceof HTMLElement && e.target.closest("a, button")) return;
      const run = runs[selected];
      if (!run) return;
      e.preventDefault();
      router.push(`/runs/${encodeURIComponent(run.run_id)}`);
    } else if (e.key === "/") {
      e.preventDefault();
      viewsRef.current?.querySelector<HTMLElement>("[aria-pressed=true]")?.focus();
    }
  });

  const anyLive = runs.some((r) => LIVE.has(r.status));
  const now = useNow(anyLive, 15_000);

  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <PageTitle icon={<ActivityIcon size={16} className="shrink-0 text-fg-muted" />} title="Runs" detail={<span className="max-sm:hidden">across the channels you can read</span>} />
      </PageHeader>

      <FilterBar filters={filters} onChange={apply} viewsRef={viewsRef} runs={runs} />

      <div className="scroll-slim min-h-0 flex-1 overflow-y-auto">
        {query.isPending ? (
          <ListSkeleton />
        ) : query.isError ? (
          <div className="flex flex-col items-center gap-2 px-6 py-16 text-center" role="alert">
            <p className="text-sm text-danger">Could not load the runs: {query.error.message}</p>
            <button type="button" onClick={() => query.refetch()} className="text-sm font-medium text-accent hover:underline">
              Try again
            </button>
          </div>
        ) : runs.length === 0 ? (
          <EmptyList filters={filters} onChange={apply} />
        ) : (
          <div className="mx-auto max-w-4xl px-3 py-3 sm:px-5">
            <ul ref={listRef} aria-label="Runs" className="space-y-1.5">
              {runs.map((run, i) => (
                <RunRow key={run.run_id} run={run} selected={i === selected} onFocus={() => setIndex(i)} now={now} />
              ))}
            </ul>
            {query.hasNextPage && (
              <div className="mt-3 flex justify-center">
                <button
                  type="button"
                  onClick={() => query.fetchNextPage()}
                  disabled={query.isFetchingNextPage}
                  className="h-8 rounded-md border border-line-strong px-3 text-[13px] font-medium text-fg hover:bg-hover disabled:opacity-60"
                >
                  {query.isFetchingNextPage ? "Loading…" : "Show older runs"}
                </button>
              </div>
            )}
          </div>
        )}
      </div>

      <p className="shrink-0 border-t border-line px-5 py-1.5 text-[11.5px] text-fg-muted max-sm:hidden">
        <Key k="j" />/<Key k="k" /> move · <Key k="Enter" /> open the run · <Key k="/" /> filters
      </p>
    </div>
  );
}

function Key({ k }: { k: string }) {
  return <kbd className="mx-0.5 inline-flex h-[18px] min-w-[18px] items-center justify-center rounded border border-line-strong bg-surface px-1 font-sans text-[10.5px] font-semibold text-fg">{k}</kbd>;
}

/** One run: status, number, title (to the run view), channel (to the run in its channel), who asked, agents, when. */
function RunRow({ run, selected, onFocus, now }: { run: RunSummary; selected: boolean; onFocus: () => void; now: number }) {
  const me = useMe();
  const nameOf = usePersonLabel();
  const channelNames = useChannelNames();
  const channel = channelNames.label({ thread_id: run.thread_id });
  const place = channelNames.place({ thread_id: run.thread_id });
  const title = run.title ?? "Untitled run";
  const ended = run.ended_at ? Date.parse(run.ended_at) : null;
  const elapsed = (ended ?? Math.max(now, Date.parse(run.started_at))) - Date.parse(run.started_at);
  const label = runStatusLabel(run, me, nameOf);
  return (
    <li
      data-run-item={run.run_id}
      data-selected={selected || undefined}
      onFocus={onFocus}
      className={`relative rounded-lg border bg-surface px-3 py-2.5 sm:px-4 ${selected ? "border-accent/60 ring-2 ring-accent/30" : "border-line hover:border-line-strong"}`}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <RunStateBadge state={run.status} label={label} />
        <span className="shrink-0 font-mono text-[12px] font-semibold tabular-nums text-fg-muted" title={`Run ${run.run_number} ${place}`}>
          #{run.run_number}
        </span>
        <Link
          href={`/runs/${encodeURIComponent(run.run_id)}`}
          data-run-link={run.run_id}
          className="min-w-0 flex-1 basis-48 truncate text-[14px] font-semibold text-fg outline-none after:absolute after:inset-0 after:rounded-lg hover:underline focus-visible:underline"
          dir="auto"
        >
          {title}
        </Link>
        <span className="shrink-0 text-[12px] tabular-nums text-fg-muted max-sm:hidden">
          <time dateTime={run.started_at} title={formatFull(run.started_at)}>
            {startedLabel(run.started_at, now)}
          </time>
          {" · "}
          {formatDuration(elapsed)}
        </span>
      </div>
      <p className="mt-1 flex min-w-0 flex-wrap items-center gap-x-1.5 gap-y-0.5 text-[12.5px] text-fg-muted">
        <Link
          href={runChannelHref(run)}
          className="relative z-10 inline-flex items-center gap-0.5 font-medium text-fg-muted hover:text-accent hover:underline"
          title={`Open this run ${place}`}
        >
          {channel}
        </Link>
        {run.requester && (
          <>
            <span aria-hidden="true">·</span>
            <span>asked by {run.requester === me.agent_id ? "you" : nameOf(run.requester)}</span>
          </>
        )}
        {run.agents.length > 0 && (
          <>
            <span aria-hidden="true">·</span>
            <span className="min-w-0 truncate" title={run.agents.map(bareId).join(", ")}>
              {[...distinctNames(run.agents, nameOf).values()].join(", ")}
            </span>
          </>
        )}
        <span className="basis-full tabular-nums sm:hidden">
          <time dateTime={run.started_at}>{startedLabel(run.started_at, now)}</time> · {formatDuration(elapsed)}
        </span>
      </p>
    </li>
  );
}

/** The segmented view control and the channel, agent and requester selects. */
function FilterBar({ filters, onChange, viewsRef, runs }: { filters: RunFilters; onChange: (f: RunFilters) => void; viewsRef: RefObject<HTMLDivElement | null>; runs: RunSummary[] }) {
  const threads = useThreads().data ?? [];
  const channelNames = useChannelNames();
  const agents = useAgents().data ?? [];
  const agentNameOf = useNameOf();
  const agentNames = distinctNames(agents.map((a) => a.agent_id), agentNameOf);
  const people = usePeople().data;
  const nameOf = usePersonLabel();
  const me = useMe();
  const requesters = useMemo(() => {
    const ids = new Map<string, string>((people ?? []).map((p) => [p.agent_id, p.agent_id === me.agent_id ? `${p.name} (you)` : p.name]));
    for (const r of runs) if (r.requester && !ids.has(r.requester)) ids.set(r.requester, nameOf(r.requester));
    if (filters.requester && !ids.has(filters.requester)) ids.set(filters.requester, nameOf(filters.requester));
    return [...ids].sort((a, b) => a[1].localeCompare(b[1]));
  }, [people, runs, filters.requester, nameOf, me.agent_id]);
  const set = (patch: Partial<RunFilters>) => onChange({ ...filters, ...patch });
  return (
    <div className="shrink-0 border-b border-line bg-canvas px-3 py-2 sm:px-5" role="search" aria-label="Filter runs">
      <div className="mx-auto flex max-w-4xl flex-wrap items-center gap-2">
        <div ref={viewsRef} role="group" aria-label="Show" className="inline-flex rounded-lg border border-line-strong bg-sunken p-0.5 max-sm:w-full">
          {RUN_VIEWS.map((v) => (
            <button
              key={v.id}
              type="button"
              aria-pressed={filters.view === v.id}
              onClick={() => set({ view: v.id })}
              className={`h-7 whitespace-nowrap rounded-md px-2.5 text-[13px] font-medium max-sm:flex-auto max-sm:px-1.5 ${
                filters.view === v.id ? "bg-surface text-fg shadow-sm ring-1 ring-line-strong" : "text-fg-muted hover:text-fg"
              }`}
            >
              {v.label}
            </button>
          ))}
        </div>
        <div className="grid min-w-0 flex-1 grid-cols-2 gap-2 sm:flex sm:flex-wrap sm:justify-end">
          <select aria-label="Channel" value={filters.channel} onChange={(e) => set({ channel: e.target.value })} className={`${selectCls} max-sm:col-span-2`}>
            <option value="">All channels</option>
            {threads.map((t) => (
              <option key={t.id} value={t.id}>
                {channelNames.label({ thread_id: t.id })}
              </option>
            ))}
          </select>
          <select aria-label="Agent" value={filters.agent} onChange={(e) => set({ agent: e.target.value })} className={selectCls}>
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a.agent_id} value={a.agent_id}>
                {agentNames.get(a.agent_id)}
              </option>
            ))}
          </select>
          <select aria-label="Asked by" value={filters.requester} onChange={(e) => set({ requester: e.target.value })} className={selectCls}>
            <option value="">Anyone asked</option>
            {requesters.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </div>
    </div>
  );
}

/** What the list says when it has no run: what to do next, per view. */
function EmptyList({ filters, onChange }: { filters: RunFilters; onChange: (f: RunFilters) => void }) {
  const filtered = hasSelects(filters);
  const text = {
    waiting_on_me: ["Nothing is waiting on you", "When an agent asks you a question or a step needs your approval, its run shows up here."],
    running: ["No run is in progress", "Ask an agent something in a channel (@mention it) and the run shows up here while it works."],
    ended: ["No run has ended yet", "Runs that succeeded, failed or were cancelled are listed here."],
    all: ["No runs yet", "A run starts when you ask an agent something in a channel: open a channel and @mention an agent."],
  }[filters.view];
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-16 text-center" role="status">
      <div className="inline-flex h-12 w-12 items-center justify-center rounded-2xl bg-accent/12 text-accent">
        <ActivityIcon size={24} />
      </div>
      <h2 className="text-base font-semibold">{filtered ? "No runs match these filters" : text[0]}</h2>
      <p className="max-w-sm text-sm text-fg-muted">{filtered ? "Clear the channel, agent or requester to see more." : text[1]}</p>
      {filtered ? (
        <button type="button" onClick={() => onChange({ ...NO_RUN_FILTERS, view: filters.view })} className="text-sm font-medium text-accent hover:underline">
          Clear filters
        </button>
      ) : filters.view !== "all" ? (
        <button type="button" onClick={() => onChange(NO_RUN_FILTERS)} className="text-sm font-medium text-accent hover:underline">
          Show all runs
        </button>
      ) : null}
    </div>
  );
}

/** Grey rows while the list loads. */
function ListSkeleton() {
  return (
    <div className="mx-auto max-w-4xl space-y-1.5 px-3 py-3 sm:px-5" role="status" aria-busy="true" aria-label="Loading runs">
      {[0.6, 0.45, 0.7, 0.5].map((w, i) => (
        <div key={i} className="animate-pulse rounded-lg border border-line px-4 py-3">
          <div className="h-3.5 rounded bg-fg-muted/15" style={{ width: `${w * 100}%` }} />
          <div className="mt-2 h-3 w-1/3 rounded bg-fg-muted/10" />
        </div>
      ))}
    </div>
  );
}
