"use client";
/**
 * `ApprovalsInbox`, the `/approvals` page (issue 5 "every pending approval across channels,
 * oldest first, filterable, keyboard driven"):
 *
 * - Two tabs: Pending (oldest first, as `GET /api/approvals?state=pending` lists them) and
 *   Recently decided (newest decision first).
 * - Filters: text (summary, agent, tool, channel), channel, agent and kind.
 * - Keys (when no field has focus): j/k or ↓/↑ move the selection, a approves, r opens the
 *   reject comment (Enter rejects), e edits the arguments (Ctrl/⌘+Enter approves with them),
 *   Enter opens the approval in its channel, / focuses the text filter, ? lists the keys.
 *   The selected item is expanded, outlined and holds the focus; after a decision the next
 *   item takes it.
 * - Live: the lists refetch every 5 s and on approval events (components/approvals/api.ts).
 */
import { PageHeader } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { personId } from "@/lib/people";
import { useDisplayName } from "@/components/prefs/display-name";
import { ApiRequestError } from "@/components/live/api";
import { ThemeToggle } from "@/components/workspace/theme-toggle";
import { StatusBadge } from "@/components/ui/chip";
import { Dialog } from "@/components/ui/dialog";
import { inputClass } from "@/components/ui/button";
import {
  ChevronRightIcon,
  HashIcon,
  InboxCheckIcon,
  KeyboardIcon,
  SearchIcon,
  ShieldAlertIcon,
  ShieldCheckIcon,
  ShieldXIcon,
  HourglassIcon,
} from "@/components/ui/icons";
import { useNow } from "@/components/ui/use-now";
import { formatFull, formatTime } from "@/components/ui/time";
import { ApprovalActions, type ApprovalActionsHandle } from "./actions";
import { STATE_WORD, useApprovals } from "./api";
import { ApprovalFacts, ArgumentsBlock, ExpiryCountdown, PreviewBox, RecommendationBox } from "./details";
import { ago, bare, filterApprovals, kindLabel, NO_FILTERS, personLabel, subjectLabel, subjectOf, type ApprovalFilters as Filters, type ApprovalSummary } from "./model";

type Tab = "pending" | "decided";

function isField(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName);
}

function channelHref(a: ApprovalSummary): string {
  return `/c/${encodeURIComponent(a.thread_id)}?approval=${encodeURIComponent(a.approval_id)}`;
}

/** The `/approvals` page (see the file comment). */
export function ApprovalsInbox() {
  const router = useRouter();

  const [tab, setTab] = useState<Tab>("pending");
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  // The selected approval, and where it was (the fallback once it leaves the list).
  const [sel, setSel] = useState<{ id: string | null; index: number }>({ id: null, index: 0 });
  const [helpOpen, setHelpOpen] = useState(false);
  const [notice, setNotice] = useState<{ text: string; tone: "success" | "danger" } | null>(null);
  const pending = useApprovals("pending");
  const decided = useApprovals("decided", undefined, tab === "decided");
  const query = tab === "pending" ? pending : decided;
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const actions = useRef<ApprovalActionsHandle>(null);
  const tabsId = useId();

  const all = useMemo(() => {
    const list = query.data ?? [];
    if (tab === "pending") return list;
    return list.slice().sort((a, b) => Date.parse(b.decided_at ?? b.requested_at) - Date.parse(a.decided_at ?? a.requested_at)).slice(0, 100);
  }, [query.data, tab]);
  const items = useMemo(() => filterApprovals(all, filters), [all, filters]);
  const pendingCount = pending.data?.length ?? 0;

  // The selection follows its id; when that item leaves (decided), the one now in its place.
  let index = sel.id ? items.findIndex((a) => a.approval_id === sel.id) : -1;
  if (index < 0 && items.length) index = Math.min(sel.index, items.length - 1);
  const selected = index >= 0 ? items[index] : undefined;

  const focusItem = useCallback((id: string | undefined) => {
    if (!id) return;
    const el = listRef.current?.querySelector<HTMLElement>(`[data-approval-item="${CSS.escape(id)}"]`);
    if (!el) return;
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }, []);

  const select = useCallback(
    (i: number) => {
      const at = Math.max(0, Math.min(items.length - 1, i));
      const next = items[at];
      if (!next) return;
      setSel({ id: next.approval_id, index: at });
      requestAnimationFrame(() => focusItem(next.approval_id));
    },
    [items, focusItem],
  );

  // Focus goes to the selected item when the page opens and after a decision (the decided item
  // leaves the list with the focus): only then, so a refetch never pulls the view away.
  const refocus = useRef(true);
  useEffect(() => {
    if (!selected || !refocus.current) return;
    const active = document.activeElement;
    const lost = active === null || active === document.body || !document.contains(active);
    refocus.current = false;
    if (lost && !document.querySelector("dialog[open]")) focusItem(selected.approval_id);
  }, [items, selected, focusItem]);

  useEffect(() => {
    document.title = pendingCount ? `Approvals (${pendingCount}) · Clutch` : "Approvals · Clutch";
  }, [pendingCount]);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 4000);
    return () => clearTimeout(t);
  }, [notice]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey) return;
      if (isField(e.target) || document.querySelector("dialog[open]")) return;
      const onControl = e.target instanceof HTMLElement && e.target.closest("button, a, [role=tab], summary") !== null;
      switch (e.key) {
        case "j":
        case "ArrowDown":
          e.preventDefault();
          select(index < 0 ? 0 : index + 1);
          break;
        case "k":
        case "ArrowUp":
          e.preventDefault();
          select(index < 0 ? 0 : index - 1);
          break;
        case "a":
          if (tab !== "pending" || !selected) return;
          e.preventDefault();
          actions.current?.approve();
          break;
        case "r":
          if (tab !== "pending" || !selected) return;
          e.preventDefault();
          actions.current?.reject();
          break;
        case "e":
          if (tab !== "pending" || !selected) return;
          e.preventDefault();
          actions.current?.edit();
          break;
        case "Enter":
          if (onControl || !selected) return;
          e.preventDefault();
          router.push(channelHref(selected));
          break;
        case "/":
          e.preventDefault();
          searchRef.current?.focus();
          break;
        case "?":
          e.preventDefault();
          setHelpOpen(true);
          break;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [index, selected, tab, select, router]);

  const channels = useMemo(() => uniqueBy(all, (a) => a.thread_id, (a) => `#${a.thread_name ?? a.thread_id}`), [all]);
  const agents = useMemo(() => uniqueBy(all, (a) => a.agent_id, (a) => bare(a.agent_id)), [all]);
  const kinds = useMemo(() => uniqueBy(all, (a) => a.kind, (a) => kindLabel(a.kind)), [all]);
  const filtered = filters.text || filters.channel || filters.agent || filters.kind;

  const switchTab = (t: Tab) => {
    setTab(t);
    setSel({ id: null, index: 0 });
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
          onClick={() => setHelpOpen(true)}
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
          className="inline-flex h-8 items-center gap-1.5 rounded-md px-2 text-xs font-medium text-fg-muted hover:bg-hover hover:text-fg max-sm:hidden"
        >
          <KeyboardIcon size={16} />
          <span className="max-sm:hidden">Shortcuts</span>
        </button>
        <ThemeToggle />
      </PageHeader>

      <div className="shrink-0 border-b border-line px-3 pt-2 sm:px-5">
        <div role="tablist" aria-label="Approvals" className="mx-auto -mb-px flex max-w-4xl gap-4">
          {(["pending", "decided"] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`${tabsId}-${t}`}
              aria-selected={tab === t}
              aria-controls={`${tabsId}-panel`}
              onClick={() => switchTab(t)}
              className={`inline-flex h-9 items-center gap-1.5 border-b-2 px-0.5 text-[13.5px] font-semibold ${
                tab === t ? "border-accent text-fg" : "border-transparent text-fg-muted hover:text-fg"
              }`}
            >
              {t === "pending" ? "Pending" : "Recently decided"}
              {t === "pending" && pendingCount > 0 && (
                <span className="inline-flex h-[18px] min-w-[18px] items-center justify-center rounded-full bg-warning/15 px-1.5 text-[11px] font-bold tabular-nums text-warning">
                  {pendingCount}
                </span>
              )}
            </button>
          ))}
        </div>
      </div>

      <FilterBar
        searchRef={searchRef}
        filters={filters}
        onChange={setFilters}
        channels={channels}
        agents={agents}
        kinds={kinds}
        onEscape={() => focusItem(selected?.approval_id)}
      />

      <div id={`${tabsId}-panel`} role="tabpanel" aria-labelledby={`${tabsId}-${tab}`} className="scroll-slim min-h-0 flex-1 overflow-y-auto">
        {query.isPending ? (
          <ListSkeleton />
        ) : query.isError ? (
          <div role="alert" className="flex flex-col items-center gap-2 p-8 text-center">
            <p className="font-medium">Couldn’t load approvals.</p>
            <p className="text-sm text-fg-muted">
              {query.error instanceof ApiRequestError && query.error.status === 404
                ? "This server does not offer the approvals API."
                : query.error.message}
            </p>
            <button type="button" onClick={() => query.refetch()} className="text-sm font-medium text-accent hover:underline">
              Try again
            </button>
          </div>
        ) : items.length === 0 ? (
          <Empty tab={tab} filtered={Boolean(filtered)} hidden={all.length} onClear={() => setFilters(NO_FILTERS)} />
        ) : (
          <ul ref={listRef} aria-label={tab === "pending" ? "Pending approvals" : "Decided approvals"} className="mx-auto max-w-4xl space-y-2 px-3 py-3 sm:px-5">
            {items.map((a, i) => (
              <InboxItem
                key={a.approval_id}
                approval={a}
                selected={i === index}
                onSelect={() => setSel({ id: a.approval_id, index: i })}
                actionsRef={i === index ? actions : undefined}
                onFormClosed={() => focusItem(a.approval_id)}
                onDecided={(d) => {
                  refocus.current = true;
                  setNotice({
                    text: `${d === "approve" ? "Approved" : "Rejected"}: ${a.summary}`,
                    tone: d === "approve" ? "success" : "danger",
                  });
                }}
              />
            ))}
          </ul>
        )}
      </div>

      <footer className="hidden shrink-0 items-center gap-x-3 gap-y-1 border-t border-line bg-sunken/60 px-5 py-1.5 text-[11.5px] text-fg-muted md:flex md:flex-wrap">
        <span>
          <Key k="j" /> <Key k="k" /> move
        </span>
        {tab === "pending" && (
          <>
            <span>
              <Key k="a" /> approve
            </span>
            <span>
              <Key k="r" /> reject
            </span>
            <span>
              <Key k="e" /> edit arguments
            </span>
          </>
        )}
        <span>
          <Key k="↵" /> open in channel
        </span>
        <span>
          <Key k="/" /> filter
        </span>
        <span>
          <Key k="?" /> all keys
        </span>
      </footer>

      <div aria-live="polite" className="pointer-events-none fixed inset-x-0 bottom-10 z-20 flex justify-center px-3">
        {notice && (
          <p
            className={`pointer-events-auto max-w-lg animate-pop-in truncate rounded-full px-3.5 py-1.5 text-[13px] font-medium text-white shadow-pop dark:text-[#0f0f14] ${
              notice.tone === "success" ? "bg-success" : "bg-danger"
            }`}
          >
            {notice.text}
          </p>
        )}
      </div>

      <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}

function uniqueBy<T>(list: readonly T[], key: (t: T) => string, label: (t: T) => string): { value: string; label: string }[] {
  const seen = new Map<string, string>();
  for (const t of list) if (!seen.has(key(t))) seen.set(key(t), label(t));
  return [...seen].map(([value, l]) => ({ value, label: l })).sort((a, b) => a.label.localeCompare(b.label));
}

function Key({ k }: { k: string }) {
  return <kbd className="inline-flex h-[18px] min-w-[18px] items-center justify-center rounded border border-line-strong bg-surface px-1 font-sans text-[10.5px] font-semibold text-fg">{k}</kbd>;
}

const selectCls =
  "h-8 min-w-0 rounded-md border border-line-strong bg-canvas px-2 text-[13px] text-fg focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25";

function FilterBar({
  searchRef,
  filters,
  onChange,
  channels,
  agents,
  kinds,
  onEscape,
}: {
  searchRef: React.RefObject<HTMLInputElement | null>;
  filters: Filters;
  onChange: (f: Filters) => void;
  channels: { value: string; label: string }[];
  agents: { value: string; label: string }[];
  kinds: { value: string; label: string }[];
  onEscape: () => void;
}) {
  const set = (patch: Partial<Filters>) => onChange({ ...filters, ...patch });
  const any = filters.text || filters.channel || filters.agent || filters.kind;
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
        <select aria-label="Channel" value={filters.channel} onChange={(e) => set({ channel: e.target.value })} className={`${selectCls} max-sm:w-full`}>
          <option value="">All channels</option>
          {channels.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        <select aria-label="Agent" value={filters.agent} onChange={(e) => set({ agent: e.target.value })} className={`${selectCls} max-sm:w-full`}>
          <option value="">All agents</option>
          {agents.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        <select aria-label="Kind" value={filters.kind} onChange={(e) => set({ kind: e.target.value })} className={`${selectCls} max-sm:w-full`}>
          <option value="">All kinds</option>
          {kinds.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        {any && (
          <button type="button" onClick={() => onChange(NO_FILTERS)} className="h-8 rounded-md px-2 text-[13px] font-medium text-accent hover:bg-hover max-sm:col-span-3 max-sm:justify-self-start">
            Clear
          </button>
        )}
      </div>
    </div>
  );
}

function StateIcon({ state }: { state: ApprovalSummary["state"] }) {
  if (state === "granted") return <ShieldCheckIcon size={16} className="text-success" />;
  if (state === "rejected") return <ShieldXIcon size={16} className="text-danger" />;
  if (state === "expired") return <HourglassIcon size={15} className="text-fg-subtle" />;
  return <ShieldAlertIcon size={16} className="text-warning" />;
}

/** One approval: a compact row, expanded with details and actions while selected. */
function InboxItem({
  approval: a,
  selected,
  onSelect,
  actionsRef,
  onFormClosed,
  onDecided,
}: {
  approval: ApprovalSummary;
  selected: boolean;
  onSelect: () => void;
  actionsRef?: React.Ref<ApprovalActionsHandle>;
  onFormClosed: () => void;
  onDecided: (d: "approve" | "reject") => void;
}) {
  const pending = a.state === "pending";
  const now = useNow(true, 15_000);
  const [editing, setEditing] = useState(false);
  const over = pending && Date.parse(a.expires_at) <= now;
  const titleId = useId();
  return (
    <li
      data-approval-item={a.approval_id}
      data-selected={selected || undefined}
      tabIndex={selected ? 0 : -1}
      aria-labelledby={titleId}
      aria-current={selected ? "true" : undefined}
      onFocus={(e) => {
        if (e.target === e.currentTarget && !selected) onSelect();
      }}
      onClick={(e) => {
        if (!selected && !(e.target instanceof HTMLElement && e.target.closest("a, button, input, textarea, select"))) onSelect();
      }}
      className={`group relative scroll-my-3 rounded-lg border bg-surface outline-none transition-shadow ${
        selected
          ? "border-accent/60 shadow-pop ring-2 ring-accent/40 focus-visible:ring-accent"
          : "cursor-pointer border-line hover:border-line-strong hover:bg-hover/40"
      }`}
    >
      <div className="flex gap-3 px-3 py-2.5 sm:px-4">
        <div className="pt-0.5">
          <StateIcon state={a.state} />
        </div>
        <div className="min-w-0 flex-1">
          <div className="flex items-start gap-2">
            <h2 id={titleId} className={`min-w-0 flex-1 text-[14px] font-semibold leading-5 text-fg ${selected ? "" : "line-clamp-2"}`}>
              {a.summary}
            </h2>
            {pending ? (
              <ExpiryCountdown iso={a.expires_at} active className="shrink-0 text-xs max-sm:hidden" />
            ) : (
              <DecidedBadge a={a} />
            )}
          </div>
          <p className="mt-0.5 flex flex-wrap items-center gap-x-1.5 gap-y-0.5 text-[12px] text-fg-muted">
            <span className="inline-flex items-center gap-0.5 font-medium text-fg">
              <HashIcon size={11} className="text-fg-subtle" />
              {a.thread_name ?? a.thread_id}
            </span>
            <span aria-hidden="true">·</span>
            <span className="min-w-0 truncate font-mono text-[11.5px]">{subjectLabel(subjectOf(a))}</span>
            <span aria-hidden="true">·</span>
            <span>{kindLabel(a.kind)}</span>
            <span aria-hidden="true">·</span>
            <time dateTime={a.requested_at} title={formatFull(a.requested_at)}>
              {ago(a.requested_at, now)}
            </time>
            {pending && (
              <span className="sm:hidden">
                <span aria-hidden="true">· </span>
                <ExpiryCountdown iso={a.expires_at} active />
              </span>
            )}
          </p>
          {!pending && <DecidedLine a={a} />}

          {selected && (
            <div className="mt-1">
              <ApprovalFacts subject={subjectOf(a)} approvers={a.approvers} rule={a.rule} />
              {a.recommendation && <RecommendationBox rec={a.recommendation} />}
              {a.arguments && !(pending && editing) && <ArgumentsBlock args={a.arguments} preview={a.preview} />}
              {a.preview && <PreviewBox markdown={a.preview} />}
              {pending && (
                <ApprovalActions
                  ref={actionsRef}
                  approvalId={a.approval_id}
                  args={a.arguments}
                  approvers={a.approvers}
                  expired={over}
                  keyHints
                  onCancel={onFormClosed}
                  onDecided={onDecided}
                  onModeChange={(m) => setEditing(m === "edit")}
                />
              )}
              <Link
                href={channelHref(a)}
                className="mt-2 inline-flex items-center gap-1 text-[12.5px] font-medium text-accent hover:underline"
              >
                Open in #{a.thread_name ?? "its channel"}
                <ChevronRightIcon size={12} />
              </Link>
            </div>
          )}
        </div>
      </div>
    </li>
  );
}

function DecidedBadge({ a }: { a: ApprovalSummary }) {
  const tone = a.state === "granted" ? "success" : a.state === "rejected" ? "danger" : "neutral";
  return (
    <StatusBadge tone={tone} label={`State: ${STATE_WORD[a.state]}`}>
      {STATE_WORD[a.state]}
    </StatusBadge>
  );
}

function DecidedLine({ a }: { a: ApprovalSummary }) {
  const [name] = useDisplayName();
  const by = a.decided_by ? personLabel(a.decided_by) : null;
  return (
    <p className="mt-1 text-[12.5px] text-fg-muted">
      {a.state === "expired" ? (
        "Nobody decided in time"
      ) : by ? (
        <>
          by <span className="font-medium text-fg">{by}</span>
          {name && a.decided_by === personId(name) ? " (you)" : ""}
        </>
      ) : null}
      {a.decided_at && (
        <>
          {" "}
          <time dateTime={a.decided_at} title={formatFull(a.decided_at)}>
            · {formatTime(a.decided_at)}
          </time>
        </>
      )}
      {a.comment && <span className="break-words"> · “{a.comment}”</span>}
    </p>
  );
}

function Empty({ tab, filtered, hidden, onClear }: { tab: Tab; filtered: boolean; hidden: number; onClear: () => void }) {
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-16 text-center" role="status">
      <div className="inline-flex h-12 w-12 items-center justify-center rounded-2xl bg-success/12 text-success">
        <ShieldCheckIcon size={24} />
      </div>
      {filtered ? (
        <>
          <h2 className="text-base font-semibold">No approvals match these filters</h2>
          {hidden > 0 && (
            <p className="text-sm text-fg-muted">
              {hidden} {tab === "pending" ? "pending" : "decided"} approval{hidden === 1 ? " is" : "s are"} hidden by them.
            </p>
          )}
          <button type="button" onClick={onClear} className="text-sm font-medium text-accent hover:underline">
            Clear filters
          </button>
        </>
      ) : tab === "pending" ? (
        <>
          <h2 className="text-base font-semibold">Nothing is waiting for approval</h2>
          <p className="max-w-sm text-sm text-fg-muted">
            When a policy rule asks a person to approve a step, it shows up here and as a card in its channel.
          </p>
        </>
      ) : (
        <>
          <h2 className="text-base font-semibold">No decisions yet</h2>
          <p className="max-w-sm text-sm text-fg-muted">Approvals that were approved, rejected or expired are listed here.</p>
        </>
      )}
    </div>
  );
}

function ListSkeleton() {
  return (
    <div className="mx-auto max-w-4xl space-y-2 px-3 py-3 sm:px-5" aria-busy="true" aria-label="Loading approvals">
      {[0.7, 0.5, 0.6].map((w, i) => (
        <div key={i} className="animate-pulse rounded-lg border border-line px-4 py-3">
          <div className="h-3.5 rounded bg-fg-muted/15" style={{ width: `${w * 100}%` }} />
          <div className="mt-2 h-3 w-1/2 rounded bg-fg-muted/10" />
        </div>
      ))}
    </div>
  );
}

const KEYS: [string, string][] = [
  ["j / ↓", "Next approval"],
  ["k / ↑", "Previous approval"],
  ["a", "Approve"],
  ["r", "Reject (type a comment, Enter to confirm)"],
  ["e", "Edit the arguments, then Ctrl/⌘+Enter to approve"],
  ["Enter", "Open the approval in its channel"],
  ["/", "Filter by text"],
  ["Esc", "Close a form or leave the filter"],
  ["?", "This list"],
];

function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" description="On the approvals page, when no field has focus." className="max-w-md">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 px-5 pb-5 pt-3 text-[13px]">
        {KEYS.map(([k, v]) => (
          <div key={k} className="contents">
            <dt>
              <kbd className="rounded border border-line-strong bg-sunken px-1.5 py-0.5 font-sans text-[11.5px] font-semibold">{k}</kbd>
            </dt>
            <dd className="text-fg-muted">{v}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
