"use client";
/** `SidebarLink`: the one link row of the workspace sidebar (sidebar.tsx, agent-list.tsx). */
import Link from "next/link";
import type { ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { prefetchChannel } from "@/components/live/use-thread-events";

/**
 * Every link of the sidebar: one row (icon, label, badge) marked as the current page when
 * `active`, bold (`strong`) while something waits there. Next's prefetch is off: every page here
 * is rendered per request, so a prefetch would render each linked page on the server while the
 * person's own page loads. A channel's link (`channelId`) instead starts loading the channel's
 * data as it is pressed (`prefetchChannel`), beside the page's move.
 */
export function SidebarLink(p: {
  href: string;
  active: boolean;
  onNavigate?: () => void;
  children: ReactNode;
  /** While something waits there (unread messages, open items): "bold" for a channel, "semibold" for a view. */
  strong?: "bold" | "semibold";
  channelId?: string;
  "aria-label"?: string;
  /** 13 px text (the rows under a list: "Agent directory"), else 14 px. */
  small?: boolean;
  className?: string;
}) {
  const qc = useQueryClient();
  const channelId = p.channelId;
  const warm = channelId ? () => prefetchChannel(qc, channelId) : undefined;
  return (
    <Link
      href={p.href}
      prefetch={false}
      onClick={p.onNavigate}
      onPointerDown={warm}
      onKeyDown={warm && ((e) => e.key === "Enter" && warm())}
      aria-current={p.active ? "page" : undefined}
      aria-label={p["aria-label"]}
      className={`${p.className ?? ""} group flex h-7 items-center gap-1.5 rounded-md px-2 ${p.small ? "text-[13px]" : "text-[14px]"} ${
        p.active
          ? "bg-sidebar-active font-semibold text-sidebar-active-fg"
          : p.strong
            ? `${p.strong === "bold" ? "font-bold" : "font-semibold"} text-sidebar-fg hover:bg-sidebar-hover`
            : "text-sidebar-muted hover:bg-sidebar-hover hover:text-sidebar-fg"
      }`}
    >
      {p.children}
    </Link>
  );
}
