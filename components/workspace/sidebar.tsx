"use client";
/**
 * `Sidebar`: the channel list with unread badges, "new channel", the switcher, and the person's
 * name and theme. On narrow screens the shell shows it as a drawer. Under the channels, the
 * workspace's agents with their status (agent-list.tsx). Above the channels, For you (the
 * person's inbox, docs/channels.md "For you") with the count of its open items, the offer to
 * notify while something is open, and the Approvals inbox with a live count of pending approvals.
 * Direct messages with a person show their avatar and presence (docs/channels.md "Presence").
 */
import type { ReactNode } from "react";
import { usePathname } from "next/navigation";
import { usePendingApprovals } from "@/components/live/approvals";
import { useInbox } from "@/components/live/inbox";
import { NotifyOffer } from "@/components/inbox/attention";
import { useThreads } from "@/components/live/use-threads";
import { useMe } from "@/components/identity/me";
import { unreadCount, useReadMarks } from "@/components/prefs/read-marks";
import { hueFor } from "@/components/events/participant";
import { Avatar } from "@/components/ui/avatar";
import { Kbd } from "@/components/ui/keys";
import { AvatarWithPresence } from "@/components/ui/presence-dot";
import { usePresence } from "@/components/live/presence";
import { ActivityIcon, AtSignIcon, BracesIcon, CloseIcon, ListIcon, HashIcon, InboxCheckIcon, LockIcon, MessageIcon, PlusIcon, SearchIcon, SettingsIcon, ShieldCheckIcon } from "@/components/ui/icons";
import type { ThreadSummary } from "@/lib/api/types";
import { useThreadTitle } from "./thread-title";
import { AgentList } from "./agent-list";
import { ROLE_LABEL } from "./settings-dialog";
import { ThemeToggle } from "./theme-toggle";
import { useWorkspace } from "./workspace-context";
import { SidebarLink } from "./sidebar-link";

/** A channel's unread badge in the sidebar. */
function UnreadBadge({ unread }: { unread: number }) {
  return (
    <span aria-label={`${unread} unread`} className="ml-1 inline-flex h-[18px] min-w-[18px] items-center justify-center rounded-full bg-accent px-1.5 text-[11px] font-bold leading-none text-accent-fg">
      {unread > 99 ? "99+" : unread}
    </span>
  );
}

/** A direct message in the sidebar, named by the other party; with a person, their avatar and presence. */
function DmLink({ thread, active, unread, onNavigate }: { thread: ThreadSummary; active: boolean; unread: number; onNavigate: () => void }) {
  const { title, other } = useThreadTitle(thread);
  const isOnline = usePresence();
  const person = other?.startsWith("user:") ? other : null;
  // A person's link is named with their presence: "Ada Lovelace, online, 2 unread".
  const label = person ? `${title}, ${isOnline(person) ? "online" : "offline"}${unread > 0 ? `, ${unread} unread` : ""}` : undefined;
  return (
    <SidebarLink href={`/c/${encodeURIComponent(thread.id)}`} channelId={thread.id} active={active} strong={unread ? "bold" : undefined} onNavigate={onNavigate} aria-label={label}>
      {person ? (
        <AvatarWithPresence online={isOnline(person)} dot={8} decorative>
          <Avatar name={title} hue={hueFor(person)} agent={false} size={18} />
        </AvatarWithPresence>
      ) : (
        <MessageIcon size={13} className="shrink-0 opacity-70" />
      )}
      <span className="min-w-0 flex-1 truncate">{title}</span>
      {unread > 0 && <UnreadBadge unread={unread} />}
    </SidebarLink>
  );
}

/** The workspace sidebar; `activeId` is the open channel. */
export function Sidebar({ activeId, onNavigate, onClose }: { activeId?: string; onNavigate: () => void; onClose: () => void }) {
  const { data: all, isPending, isError, refetch } = useThreads();
  const threads = all?.filter((t) => t.kind !== "dm") ?? [];
  const dms = all?.filter((t) => t.kind === "dm") ?? [];
  const { marks } = useReadMarks();
  const me = useMe();
  const { openSwitcher, openNewChannel, openSettings } = useWorkspace();

  return (
    <div className="flex h-full flex-col bg-sidebar text-sidebar-fg">
      <div className="flex h-12 shrink-0 items-center gap-2 border-b border-line px-3">
        <span className="inline-flex h-7 w-7 items-center justify-center rounded-lg bg-sidebar-active text-[13px] font-black text-white" aria-hidden="true">
          C
        </span>
        <span className="flex-1 truncate text-[15px] font-bold tracking-tight">Clutch</span>
        <button
          type="button"
          onClick={onClose}
          aria-label="Close channel list"
          className="inline-flex h-8 w-8 items-center justify-center rounded-md text-sidebar-muted hover:bg-sidebar-hover md:hidden"
        >
          <CloseIcon />
        </button>
      </div>

      <div className="px-2 pt-2">
        <button
          type="button"
          onClick={openSwitcher}
          className="flex h-8 w-full items-center gap-2 rounded-md border border-line bg-canvas/60 px-2 text-[13px] text-sidebar-muted hover:border-line-strong hover:text-sidebar-fg"
        >
          <SearchIcon size={14} />
          <span className="flex-1 text-left">Jump or search…</span>
          <Kbd combo="Mod+K" className="rounded border border-line px-1 font-sans text-[10px] font-semibold" />
        </button>
      </div>

      <div className="scroll-slim mt-3 min-h-0 flex-1 overflow-y-auto px-2 pb-3">
      <ApprovalsLink onNavigate={onNavigate} />
      <nav aria-label="Channels">
        <div className="mb-0.5 flex items-center justify-between pl-2 pr-0.5">
          <h2 className="text-[11px] font-semibold uppercase tracking-wider text-sidebar-muted">Channels</h2>
          <button
            type="button"
            onClick={openNewChannel}
            aria-label="New channel"
            title="New channel"
            className="inline-flex h-6 w-6 items-center justify-center rounded text-sidebar-muted hover:bg-sidebar-hover hover:text-sidebar-fg"
          >
            <PlusIcon size={15} />
          </button>
        </div>
        {isPending ? (
          <ul className="space-y-1.5 px-2 pt-1" aria-hidden="true">
            {[60, 80, 50].map((w) => (
              <li key={w} className="h-4 animate-pulse rounded bg-sidebar-hover" style={{ width: `${w}%` }} />
            ))}
          </ul>
        ) : isError ? (
          <p className="px-2 text-xs text-danger" role="alert">
            Couldn’t load channels.{" "}
            <button type="button" className="font-medium underline" onClick={() => refetch()}>
              Retry
            </button>
          </p>
        ) : threads.length === 0 ? (
          <p className="px-2 py-1 text-xs text-sidebar-muted">No channels yet.</p>
        ) : (
          <ul className="space-y-px">
            {threads.map((t) => {
              const active = t.id === activeId;
              const unread = active ? 0 : unreadCount(t, marks);
              return (
                <li key={t.id}>
                  <SidebarLink href={`/c/${encodeURIComponent(t.id)}`} channelId={t.id} active={active} strong={unread ? "bold" : undefined} onNavigate={onNavigate}>
                    {t.visibility === "private" ? <LockIcon size={13} className="shrink-0 opacity-70" /> : <HashIcon size={14} className="shrink-0 opacity-70" />}
                    <span className="min-w-0 flex-1 truncate">{t.name}</span>
                    {t.visibility === "private" && <span className="sr-only">(private)</span>}
                    {unread > 0 && <UnreadBadge unread={unread} />}
                  </SidebarLink>
                </li>
              );
            })}
          </ul>
        )}
        <button
          type="button"
          onClick={openNewChannel}
          className="mt-1 flex h-7 w-full items-center gap-1.5 rounded-md px-2 text-[13px] text-sidebar-muted hover:bg-sidebar-hover hover:text-sidebar-fg"
        >
          <span className="inline-flex h-4 w-4 items-center justify-center rounded bg-sidebar-hover">
            <PlusIcon size={12} />
          </span>
          Add a channel
        </button>
      </nav>
      {dms.length > 0 && (
        <nav aria-label="Direct messages" className="mt-3">
          <h2 className="mb-0.5 pl-2 text-[11px] font-semibold uppercase tracking-wider text-sidebar-muted">Direct messages</h2>
          <ul className="space-y-px">
            {dms.map((t) => (
              <li key={t.id}>
                <DmLink thread={t} active={t.id === activeId} unread={t.id === activeId ? 0 : unreadCount(t, marks)} onNavigate={onNavigate} />
              </li>
            ))}
          </ul>
        </nav>
      )}
      <AgentList onNavigate={onNavigate} />
      </div>

      <div className="flex shrink-0 items-center gap-1 border-t border-line px-2 py-2">
        <button
          type="button"
          onClick={openSettings}
          aria-label={`Your account (signed in as ${me.name})`}
          className="flex min-w-0 flex-1 items-center gap-2 rounded-md px-1.5 py-1 text-left hover:bg-sidebar-hover"
        >
          <Avatar name={me.name} hue={hueFor(me.agent_id)} agent={false} size={26} />
          <span className="min-w-0 flex-1">
            <span className="block truncate text-[13px] font-semibold">{me.name}</span>
            <span className="block truncate text-[11px] text-sidebar-muted">{ROLE_LABEL[me.role]}</span>
          </span>
          <SettingsIcon size={15} className="shrink-0 text-sidebar-muted" />
        </button>
        <ThemeToggle className="text-sidebar-muted hover:bg-sidebar-hover" />
      </div>
    </div>
  );
}

/** One link of the Views list: an icon and a label, marked as the current page when `active`. */
function ViewLink({ href, label, icon, active, onNavigate }: { href: string; label: string; icon: ReactNode; active: boolean; onNavigate: () => void }) {
  return (
    <SidebarLink href={href} active={active} onNavigate={onNavigate} className="mt-0.5">
      {icon}
      <span className="min-w-0 flex-1 truncate">{label}</span>
    </SidebarLink>
  );
}

/** "For you" with the number of open items of the person's inbox, live; the offer to notify below it while any is open. */
function ForYouLink({ active, onNavigate }: { active: boolean; onNavigate: () => void }) {
  const count = useInbox().data?.open ?? 0;
  return (
    <>
      <CountLink href="/inbox" label="For you" countLabel={(n) => `For you, ${n} open`} count={count} active={active} onNavigate={onNavigate} icon={<AtSignIcon size={14} className="shrink-0 opacity-80" />} badge="bg-accent text-accent-fg" testId="for-you-badge" className="mb-0.5" />
      {count > 0 && !active && <NotifyOffer className="mb-1.5 mt-1" />}
    </>
  );
}

/** A view link with a count badge (For you, Approvals): bold while the count is not zero. */
function CountLink(p: {
  href: string;
  label: string;
  countLabel: (n: number) => string;
  count: number;
  active: boolean;
  onNavigate: () => void;
  icon: ReactNode;
  /** The badge's colours when the link is not the current page. */
  badge: string;
  testId: string;
  className?: string;
}) {
  return (
    <SidebarLink href={p.href} active={p.active} strong={p.count ? "semibold" : undefined} onNavigate={p.onNavigate} aria-label={p.count ? p.countLabel(p.count) : p.label} className={p.className}>
      {p.icon}
      <span className="min-w-0 flex-1 truncate">{p.label}</span>
      {p.count > 0 && (
        <span
          aria-hidden="true"
          data-testid={p.testId}
          className={`ml-1 inline-flex h-[18px] min-w-[18px] items-center justify-center rounded-full px-1.5 text-[11px] font-bold leading-none tabular-nums ${
            p.active ? "bg-white text-sidebar-active" : p.badge
          }`}
        >
          {p.count > 99 ? "99+" : p.count}
        </span>
      )}
    </SidebarLink>
  );
}

/** "Approvals" with the number of pending approvals, live; "Runs", "Workflows", "Schemas"; "Admin" for admins. */
function ApprovalsLink({ onNavigate }: { onNavigate: () => void }) {
  const pathname = usePathname();
  const active = pathname === "/approvals";
  const me = useMe();
  const { data } = usePendingApprovals();
  const count = data?.length ?? 0;
  return (
    <nav aria-label="Views" className="mb-3">
      <ForYouLink active={pathname === "/inbox"} onNavigate={onNavigate} />
      <CountLink href="/approvals" label="Approvals" countLabel={(n) => `Approvals, ${n} pending`} count={count} active={active} onNavigate={onNavigate} icon={<InboxCheckIcon size={14} className="shrink-0 opacity-80" />} badge="bg-warning text-white dark:text-[#0f0f14]" testId="approvals-badge" />
      <ViewLink href="/runs" label="Runs" icon={<ActivityIcon size={14} className="shrink-0 opacity-80" />} active={pathname === "/runs"} onNavigate={onNavigate} />
      <ViewLink href="/workflows" label="Workflows" icon={<ListIcon size={14} className="shrink-0 opacity-80" />} active={pathname.startsWith("/workflows")} onNavigate={onNavigate} />
      <ViewLink href="/schemas" label="Schemas" icon={<BracesIcon size={14} className="shrink-0 opacity-80" />} active={pathname.startsWith("/schemas")} onNavigate={onNavigate} />
      {me.role === "admin" && <ViewLink href="/admin" label="Admin" icon={<ShieldCheckIcon size={14} className="shrink-0 opacity-80" />} active={pathname === "/admin"} onNavigate={onNavigate} />}
    </nav>
  );
}
