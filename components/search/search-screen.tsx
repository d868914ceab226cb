"use client";
/**
 * `SearchScreen`: the `/search` page (docs/channels.md "Search"). Full-text search over the
 * messages, run titles, agents' reports and tool results of the channels the person may read,
 * with filters (channel, kind, agent, date). Each hit shows its channel, run, sender, time and
 * the matched words, and opens the event in context (components/search/api.ts `hitHref`).
 * The query and filters live in the URL, so a search can be shared and survives a reload.
 */
import Link from "next/link";
import { useId, useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { SearchHit } from "@/lib/api/types";
import { OPERATOR_HELP, parseSearch, SEARCH_OPERATORS } from "@/lib/search/query";
import { distinctNames } from "@/components/events/participant";
import { useNameOf } from "@/components/events/use-sender-name";
import { useAgents } from "@/components/live/use-agents";
import { useThreads } from "@/components/live/use-threads";
import { SearchIcon } from "@/components/ui/icons";
import { PageHeader } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { useChannelNames } from "@/components/workspace/thread-title";
import { hitHref, search, SEARCH_FIELDS as FIELDS, type SearchQuery } from "./api";
import { SearchHitView } from "./hit";
import { useSearchCompletion } from "./use-completion";

/** The kinds a person can filter by, with their event type. */
export const SEARCH_KINDS = [
  { type: "chat.message", label: "Messages" },
  { type: "task.request", label: "Requests and run titles" },
  { type: "task.result", label: "Results and reports" },
  { type: "task.error", label: "Errors" },
  { type: "tool.result", label: "Tool results" },
  { type: "approval.requested", label: "Approvals" },
] as const;

/** One hit: the message it is, opening the event in context. */
function HitRow({ hit }: { hit: SearchHit }) {
  return (
    <li>
      <Link href={hitHref(hit)} className="block rounded-lg px-3 py-2.5 hover:bg-hover focus-visible:bg-hover">
        <SearchHitView hit={hit} />
      </Link>
    </li>
  );
}

/**
 * The search box: a combobox that completes the operators as they are typed (channels after
 * `in:#`, agents and people after `from:`, kinds after `is:`, days after `on:`), with ↑/↓ and
 * Enter or Tab; Enter without a suggestion open searches.
 */
function SearchBox({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [caret, setCaret] = useState(value.length);
  const [focused, setFocused] = useState(false);
  const listId = `${id}-list`;
  const complete = useSearchCompletion(value, caret, (text, at) => {
    onChange(text);
    setCaret(at);
    requestAnimationFrame(() => input.current?.setSelectionRange(at, at));
  });
  const open = focused && complete.options.length > 0;
  const track = (el: HTMLInputElement) => setCaret(el.selectionStart ?? el.value.length);
  return (
    <div className="relative min-w-0 flex-1">
      <input
        ref={input}
        id={id}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open ? `${listId}-${complete.active}` : undefined}
        aria-describedby={`${id}-help`}
        autoFocus
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
          track(e.target);
          // autoFocus may land before hydration, without a focus event.
          setFocused(true);
        }}
        onSelect={(e) => track(e.currentTarget)}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
        onKeyDown={(e) => void complete.onKeyDown(e)}
        placeholder="Search, or narrow: in:#channel from:agent is:result on:today"
        className="h-10 w-full rounded-lg border border-line-strong bg-surface px-3 text-[15px] text-fg placeholder:text-fg-muted focus:border-accent focus:outline-none"
      />
      <ul
        id={listId}
        role="listbox"
        aria-label="Suggestions"
        hidden={!open}
        className="absolute left-0 right-0 top-11 z-20 max-h-72 overflow-y-auto rounded-lg border border-line bg-surface p-1 shadow-lg"
      >
        {open &&
          complete.options.map((o, i) => (
            <li
              key={o.key}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === complete.active}
              onMouseDown={(e) => {
                e.preventDefault();
                complete.accept(o);
              }}
              onMouseMove={() => i !== complete.active && complete.setActive(i)}
              className={`flex cursor-pointer items-baseline gap-2 rounded-md px-2.5 py-1.5 text-sm ${i === complete.active ? "bg-accent text-accent-fg" : "text-fg"}`}
            >
              <span className="font-medium">{o.label}</span>
              {o.detail && <span className={`min-w-0 truncate text-xs ${i === complete.active ? "text-accent-fg/85" : "text-fg-muted"}`}>{o.detail}</span>}
            </li>
          ))}
      </ul>
    </div>
  );
}

/** The search page (see the file comment). */
export function SearchScreen({ initial }: { initial: SearchQuery }) {
  const [query, setQuery] = useState<SearchQuery>(initial);
  const [draft, setDraft] = useState(initial.q);
  const threads = useThreads().data ?? [];
  const agents = useAgents().data ?? [];
  const channel = useChannelNames();
  const nameOf = useNameOf();
  const agentNames = distinctNames(agents.map((a) => a.agent_id), nameOf);
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
  // The box's operators are checked as typed: a wrong value says what it takes.
  const syntax = query.q.trim() ? parseSearch(query.q) : null;
  const syntaxError = syntax && !syntax.ok ? syntax.error.message : null;
  const active = query.q.trim().length > 0 && !syntaxError;
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
              <SearchBox id={`${ids}-q`} value={draft} onChange={setDraft} />
              <button type="submit" className="h-10 shrink-0 rounded-lg bg-accent px-4 text-sm font-semibold text-accent-fg hover:brightness-110">
                Search
              </button>
            </div>
            <p id={`${ids}-q-help`} className="mt-1.5 text-xs text-fg-muted">
              {SEARCH_OPERATORS.map((op, i) => (
                <span key={op}>
                  {i > 0 && " · "}
                  <code className="font-mono text-fg">{op}:</code> {OPERATOR_HELP[op]}
                </span>
              ))}
              {" · "}
              <code className="font-mono text-fg">&quot;a phrase&quot;</code>
            </p>
            <div className="mt-3 flex flex-wrap items-end gap-3 text-xs text-fg-muted">
              <label className="flex flex-col gap-1">
                Channel
                <select value={query.thread_id ?? ""} onChange={set("thread_id")} className={select}>
                  <option value="">All channels</option>
                  {threads.map((t) => (
                    <option key={t.id} value={t.id}>
                      {channel.label({ thread_id: t.id })}
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
                      {agentNames.get(a.agent_id)}
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
            {syntaxError ? (
              <p className="py-10 text-center text-sm text-danger" role="alert">
                {syntaxError}
              </p>
            ) : !active ? (
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
