"use client";
/**
 * `ApprovalsInbox`, the `/approvals` page: every pending approval across channels, oldest first,
 * filterable and keyboard driven.
 *
 * - Two tabs (./inbox-tabs.tsx): Pending (oldest first, as `GET /api/approvals?state=pending`
 *   lists them) and Recently decided (newest decision first).
 * - Filters (./filter-bar.tsx): text (summary, agent, tool, channel), channel, agent and kind.
 * - Keys (./use-inbox-keys.ts, when no field has focus): j/k or ↓/↑ move the selection, a
 *   approves, r opens the reject comment (Enter rejects), e edits the arguments (Ctrl/⌘+Enter
 *   approves with them; these three listed and bound only for a person who may decide the selected
 *   approval, ./key-hints.ts), Enter opens the approval in its channel, / focuses the text filter, ?
 *   opens the shortcut sheet with this page's keys (./shortcuts.tsx, components/ui/shortcuts.tsx). The selected item is expanded, outlined and holds the focus; after a
 *   decision the next item takes it (./use-selection.ts).
 * - Live: the lists refetch every 5 s and on approval events (components/live/approvals.ts).
 */
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { ApprovalSummary } from "@/lib/api/types";
import type { ApprovalActionsHandle } from "@/components/events/approval-actions";
import { useApprovals } from "@/components/live/approvals";
import { InboxCheckIcon, KeyboardIcon } from "@/components/ui/icons";
import { PageHeader } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { FilterBar } from "./filter-bar";
import { InboxItem } from "./inbox-item";
import { InboxTabs } from "./inbox-tabs";
import { EmptyList, ListSkeleton, LoadError } from "./list-states";
import { channelHref, filterApprovals, isFiltered, listFor, NO_FILTERS, type ApprovalFilters, type InboxTab } from "./model";
import { Notice, useNotice } from "./notice";
import { useShortcutSection, useShortcutSheet } from "@/components/ui/shortcuts";
import { useMe } from "@/components/identity/me";
import { decidingKeys, sheetListsDecidingKeys } from "./key-hints";
import { APPROVALS_KEYS, APPROVALS_VIEW_KEYS, KeyHints } from "./shortcuts";
import { useApprovalNames } from "./names";
import { useInboxKeys } from "./use-inbox-keys";
import { useSelection } from "./use-selection";

/** The `/approvals` page (see the file comment). */
export function ApprovalsInbox() {
  const router = useRouter();
  const [tab, setTab] = useState<InboxTab>("pending");
  const [filters, setFilters] = useState<ApprovalFilters>(NO_FILTERS);
  const sheet = useShortcutSheet();
  const [notice, showNotice] = useNotice();
  const pending = useApprovals("pending");
  const decided = useApprovals("decided", undefined, tab === "decided");
  const query = tab === "pending" ? pending : decided;
  const all = useMemo(() => listFor(tab, query.data ?? []), [query.data, tab]);
  const names = useApprovalNames();
  const items = useMemo(() => filterApprovals(all, filters, names), [all, filters, names]);
  const pendingCount = pending.data?.length ?? 0;
  const listRef = useRef<HTMLUListElement>(null);
  const selection = useSelection(items, listRef);
  const { index, selected } = selection;
  const searchRef = useRef<HTMLInputElement>(null);
  const actions = useRef<ApprovalActionsHandle>(null);
  const tabsId = useId();
  // The deciding keys only for a person who may decide the selected approval (./key-hints.ts).
  const me = useMe();
  const deciding = decidingKeys(tab, selected, me);
  useShortcutSection(sheetListsDecidingKeys(selected, me) ? APPROVALS_KEYS : APPROVALS_VIEW_KEYS);

  useEffect(() => {
    document.title = pendingCount ? `Approvals (${pendingCount}) · Clutch` : "Approvals · Clutch";
  }, [pendingCount]);

  useInboxKeys({
    tab,
    index,
    hasSelection: selected !== undefined,
    canDecide: deciding.length > 0,
    select: selection.select,
    actions,
    // An approval asked in a DM the person is not part of has no channel of theirs to open.
    openSelected: () => selected && !selected.outside_dm && router.push(channelHref(selected)),
    search: searchRef,
  });

  const onDecided = (a: ApprovalSummary, d: "approve" | "reject") => {
    selection.refocusNext();
    showNotice({ text: `${d === "approve" ? "Approved" : "Rejected"}: ${a.summary}`, tone: d === "approve" ? "success" : "danger" });
  };

  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <h1 className="flex min-w-0 flex-1 items-center gap-1.5 text-[15px] font-bold">
          <InboxCheckIcon size={16} className="shrink-0 text-fg-muted" />
          Approvals
        </h1>
        <button
          type="button"
          onClick={sheet.open}
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
          className="inline-flex h-8 items-center gap-1.5 rounded-md px-2 text-xs font-medium text-fg-muted hover:bg-hover hover:text-fg max-sm:hidden"
        >
          <KeyboardIcon size={16} />
          <span className="max-sm:hidden">Shortcuts</span>
        </button>
      </PageHeader>

      <InboxTabs
        tab={tab}
        onChange={(t) => {
          setTab(t);
          selection.reset();
        }}
        pendingCount={pendingCount}
        idBase={tabsId}
      />

      <FilterBar list={all} filters={filters} onChange={setFilters} searchRef={searchRef} onEscape={() => selection.focusItem(selected?.approval_id)} />

      <div id={`${tabsId}-panel`} role="tabpanel" aria-labelledby={`${tabsId}-${tab}`} className="scroll-slim min-h-0 flex-1 overflow-y-auto">
        {query.isPending ? (
          <ListSkeleton />
        ) : query.isError ? (
          <LoadError error={query.error} onRetry={() => query.refetch()} />
        ) : items.length === 0 ? (
          <EmptyList tab={tab} filtered={isFiltered(filters)} hidden={all.length} onClear={() => setFilters(NO_FILTERS)} />
        ) : (
          <ul ref={listRef} aria-label={tab === "pending" ? "Pending approvals" : "Decided approvals"} className="mx-auto max-w-4xl space-y-2 px-3 py-3 sm:px-5">
            {items.map((a, i) => (
              <InboxItem
                key={a.approval_id}
                approval={a}
                selected={i === index}
                onSelect={() => selection.mark(i)}
                actionsRef={i === index ? actions : undefined}
                onFormClosed={() => selection.focusItem(a.approval_id)}
                onDecided={(d) => onDecided(a, d)}
              />
            ))}
          </ul>
        )}
      </div>

      <KeyHints deciding={deciding} />
      <Notice notice={notice} />
    </div>
  );
}
