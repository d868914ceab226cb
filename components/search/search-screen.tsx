"use client";
/**
 * `SearchScreen`: the `/search` page (docs/channels.md "Search"). Full-text search over the
 * messages, run titles, agents' reports and tool results of the channels the person may read,
 * with filters (channel, kind, agent, date). Each hit shows its channel, run, sender, time and
 * the matched words, and opens the event in context (components/search/api.ts `hitHref`).
 * The query and filters live in the URL, so a search can be shared and survives a reload.
 */
import Link from "next/link";
import { useId, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { SearchHit } from "@/lib/api/types";
import { bareId, displayName, hueFor, isHuman } from "@/components/events/participant";
import { useAgents } from "@/components/live/use-agents";
import { useThreads } from "@/components/live/use-threads";
import { Avatar } from "@/components/ui/avatar";
import { SearchIcon } from "@/components/ui/icons";
import { PageHeader } from "@/components/ui/page-header";
import { formatFull } from "@/components/ui/time";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { hitHref, search, SEARCH_FIELDS as FIELDS, type SearchQuery } from "./api";
import { Snippet } from "./snippet";

/** The kinds a person can filter by, with their event type. */
export const SEARCH_KINDS = [
  { type: "chat.message", label: "Messages" },
  { type: "task.request", label: "Requests and run titles" },
  { type: "task.result", label: "Results and reports" },
  { type: "task.error", label: "Errors" },
  { type: "tool.result", label: "Tool results" },
  { type: "approval.requested", label: "Approvals" },
] as const;

const KIND_LABEL: Record<string, string> = {
  "chat.message": "Message",
  "task.request": "Request",
  "task.result": "Result",
  "task.error": "Error",
  "tool.result": "Tool result",
  "approval.requested": "Approval",
};

/** One hit: where it is, who said it, when, and the matched words. */
function HitRow({ hit }: { hit: SearchHit }) {
  const ev = hit.event;
  const name = displayName(ev.from);
  return (
    <li>
      <Link href={hitHref(hit)} className="flex gap-3 rounded-lg px-3 py-2.5 hover:bg-hover focus-visible:bg-hover">
        <Avatar name={name} hue={hueFor(ev.from.agent_id)} agent={!isHuman(ev.from)} size={32} />
        <div className="min-w-0 flex-1">
          <p className="flex min-w-0 flex-wrap items-baseline gap-x-2 text-xs text-fg-muted">
            <span className="font-semibold text-fg">{name}</span>
            <span>#{hit.thread_name ?? bareId(ev.thread_id)}</span>
            {hit.run_title && <span className="min-w-0 truncate">· {hit.run_title}</span>}
            <span className="rounded bg-fg-muted/12 px-1 text-[11px] font-medium">{KIND_LABEL[ev.type] ?? ev.type}</span>
            <time dateTime={ev.ts} className="ml-auto">
              {formatFull(ev.ts)}
            </time>
          </p>
          <p className="mt-0.5 line-clamp-3 break-words text-sm text-fg" dir="auto">
            <Snippet text={hit.snippet} />
          </p>
        </div>
      </Link>
    </li>
  );
}

/** The search page (see the file comment). */
export function SearchScreen({ initial }: { initial: SearchQuery }) {
  const [query, setQuery] = useState<SearchQuery>(initial);
  const [draft, setDraft] = useState(initial.q);
  const threads = useThreads().data ?? [];
  const agents = useAgents().data ?? [];
  const ids = useId();
  const apply = (next: SearchQuery) => {
    setQuery(next);
    const url = new URL(window.location.href);
    for (const f of FIELDS) {
      const v = next[f];
      if (v) url.searchParams.set(f, v);
      else url.searchParams.delete(f);
    }
    window.history.replaceState(window.history.state, "", url);
  };
  const active = query.q.trim().length > 0;
  const results = useQuery({
    queryKey: ["search", query],
    enabled: active,
    queryFn: ({ signal }) => search({ ...query, limit: 50 }, signal),
    staleTime: 10_000,
  });
  const set = (field: keyof SearchQuery) => (e: { target: { value: string } }) => apply({ ...query, [field]: e.target.value || undefined });
  const select = "h-8 rounded-md border border-line-strong bg-surface px-2 text-sm text-fg";

  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <h1 className="flex items-center gap-2 text-[15px] font-bold">
          <SearchIcon size={15} className="text-fg-muted" /> Search
        </h1>
      </PageHeader>
      <div className="scroll-slim min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto max-w-3xl px-4 py-5">
          <form
            role="search"
            onSubmit={(e) => {
              e.preventDefault();
              apply({ ...query, q: draft.trim() });
            }}
          >
            <label htmlFor={`${ids}-q`} className="sr-only">
              Search messages, run titles, reports and tool results
            </label>
            <div className="flex gap-2">
              <input
                id={`${ids}-q`}
                type="search"
                autoFocus
                value={draft}
                onChange={(e) => setDraft(e.target.value)}
                placeholder="Search messages, run titles, reports and tool results"
                className="h-10 min-w-0 flex-1 rounded-lg border border-line-strong bg-surface px-3 text-[15px] text-fg placeholder:text-fg-muted focus:border-accent focus:outline-none"
              />
              <button type="submit" className="h-10 shrink-0 rounded-lg bg-accent px-4 text-sm font-semibold text-accent-fg hover:brightness-110">
                Search
              </button>
            </div>
            <div className="mt-3 flex flex-wrap items-end gap-3 text-xs text-fg-muted">
              <label className="flex flex-col gap-1">
                Channel
                <select value={query.thread_id ?? ""} onChange={set("thread_id")} className={select}>
                  <option value="">All channels</option>
                  {threads.map((t) => (
                    <option key={t.id} value={t.id}>
                      #{t.name}
                    </option>
                  ))}
                </select>
              </label>
              <label className="flex flex-col gap-1">
                Kind
                <select value={query.type ?? ""} onChange={set("type")} className={select}>
                  <option value="">Everything</option>
                  {SEARCH_KINDS.map((k) => (
                    <option key={k.type} value={k.type}>
                      {k.label}
                    </option>
                  ))}
                </select>
              </label>
              <label className="flex flex-col gap-1">
                From
                <select value={query.agent ?? ""} onChange={set("agent")} className={select}>
                  <option value="">Anyone</option>
                  {agents.map((a) => (
                    <option key={a.agent_id} value={a.agent_id}>
                      {bareId(a.agent_id)}
                    </option>
                  ))}
                </select>
              </label>
              <label className="flex flex-col gap-1">
                After
                <input type="date" value={query.after ?? ""} onChange={set("after")} className={select} />
              </label>
              <label className="flex flex-col gap-1">
                Before
                <input type="date" value={query.before ?? ""} onChange={set("before")} className={select} />
              </label>
            </div>
          </form>

          <div className="mt-5" aria-live="polite">
            {!active ? (
              <p className="py-10 text-center text-sm text-fg-muted">
                Search finds words and figures in what people and agents said, the titles of runs, agents’ reports and tool results.
              </p>
            ) : results.isLoading ? (
              <p className="py-10 text-center text-sm text-fg-muted" role="status">
                Searching…
              </p>
            ) : results.error ? (
              <p className="py-10 text-center text-sm text-danger" role="alert">
                {results.error.message}
              </p>
            ) : results.data?.length ? (
              <>
                <p className="mb-2 text-xs text-fg-muted">
                  {results.data.length === 50 ? "The 50 best matches" : `${results.data.length} ${results.data.length === 1 ? "match" : "matches"}`} for “{query.q}”
                </p>
                <ul aria-label="Search results" className="-mx-3">
                  {results.data.map((hit) => (
                    <HitRow key={hit.event.seq} hit={hit} />
                  ))}
                </ul>
              </>
            ) : (
              <p className="py-10 text-center text-sm text-fg-muted">Nothing matches “{query.q}”{query.thread_id || query.type || query.agent || query.after || query.before ? " with these filters" : ""}.</p>
            )}
          </div>
        </div>
      </div>
    </div>
  );
}
