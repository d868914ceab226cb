"use client";
/**
 * `FilterBar`: the inbox's filters. The text matches summary, agent, tool and channel; the
 * selects offer the channels ("#sales", a DM by its other party), agents (by name) and kinds of
 * the listed approvals. The filtering itself is ./model.ts `filterApprovals`.
 */
import { useMemo, type RefObject } from "react";
import type { ApprovalSummary } from "@/lib/api/types";
import { distinctNames } from "@/components/events/participant";
import { inputClass } from "@/components/ui/button";
import { SearchIcon } from "@/components/ui/icons";
import { filterOptions, isFiltered, kindLabel, NO_FILTERS, type ApprovalFilters, type FilterOption } from "./model";
import { useApprovalNames } from "./names";

const selectCls =
  "h-8 min-w-0 rounded-md border border-line-strong bg-canvas px-2 text-[13px] text-fg focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25";

/** The filters over `list` (the tab's approvals), with a Clear button while any is set. */
export function FilterBar({
  list,
  filters,
  onChange,
  searchRef,
  onEscape,
}: {
  list: readonly ApprovalSummary[];
  filters: ApprovalFilters;
  onChange: (f: ApprovalFilters) => void;
  searchRef: RefObject<HTMLInputElement | null>;
  /** Escape or Enter in the text field: back to the list. */
  onEscape: () => void;
}) {
  const { nameOf, channel } = useApprovalNames();
  const channels = useMemo(() => filterOptions(list, (a) => a.thread_id, channel), [list, channel]);
  const agents = useMemo(() => {
    const names = distinctNames(list.map((a) => a.agent_id), nameOf);
    return filterOptions(list, (a) => a.agent_id, (a) => names.get(a.agent_id)!);
  }, [list, nameOf]);
  const kinds = useMemo(() => filterOptions(list, (a) => a.kind, (a) => kindLabel(a.kind)), [list]);
  const set = (patch: Partial<ApprovalFilters>) => onChange({ ...filters, ...patch });
  return (
    <div className="shrink-0 border-b border-line bg-canvas px-3 py-2 sm:px-5" role="search" aria-label="Filter approvals">
      <div className="mx-auto grid max-w-4xl grid-cols-3 items-center gap-2 sm:flex sm:flex-wrap">
        <label className="relative col-span-3 min-w-[10rem] flex-1">
          <span className="sr-only">Filter by text</span>
          <SearchIcon size={14} className="pointer-events-none absolute left-2.5 top-1/2 -translate-y-1/2 text-fg-subtle" />
          <input
            ref={searchRef}
            type="search"
            value={filters.text}
            onChange={(e) => set({ text: e.target.value })}
            onKeyDown={(e) => {
              if (e.key === "Escape" || e.key === "Enter") {
                e.preventDefault();
                onEscape();
              }
            }}
            placeholder="Filter by summary, agent, tool…"
            className={`${inputClass} h-8 pl-8 text-[13px]`}
          />
        </label>
        <FilterSelect label="Channel" any="All channels" value={filters.channel} options={channels} onChange={(channel) => set({ channel })} />
        <FilterSelect label="Agent" any="All agents" value={filters.agent} options={agents} onChange={(agent) => set({ agent })} />
        <FilterSelect label="Kind" any="All kinds" value={filters.kind} options={kinds} onChange={(kind) => set({ kind })} />
        {isFiltered(filters) && (
          <button type="button" onClick={() => onChange(NO_FILTERS)} className="h-8 rounded-md px-2 text-[13px] font-medium text-accent hover:bg-hover max-sm:col-span-3 max-sm:justify-self-start">
            Clear
          </button>
        )}
      </div>
    </div>
  );
}

/** One select: `any` (the empty value) first, then the options. */
function FilterSelect({ label, any, value, options, onChange }: { label: string; any: string; value: string; options: FilterOption[]; onChange: (value: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} className={`${selectCls} max-sm:w-full`}>
      <option value="">{any}</option>
      {options.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      ))}
    </select>
  );
}
