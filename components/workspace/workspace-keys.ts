"use client";
/**
 * The workspace's own keys, on every page (docs/channels.md "Keyboard shortcuts"), Slack's:
 *
 *   Mod+K                  the channel switcher and search (bound in ./workspace-shell.tsx)
 *   ? (no text field), Mod+/   the shortcut sheet (components/ui/shortcuts.tsx)
 *   Alt+↑ / Alt+↓          previous / next channel in the sidebar's order, direct messages included
 *   Alt+Shift+↑ / ↓        previous / next channel with unread messages (wrapping around)
 *   Alt+J                  the next question or approval waiting for you (the For you inbox's
 *                          open questions and approvals, oldest first, round and round)
 *
 * Alt+J rather than Ctrl+J: Ctrl+J opens the browser's downloads. The Alt keys work in text fields
 * too (as in Slack), but not while a dialog is open. What finds nothing says so (components/ui/announce.tsx).
 * Alt+J announces the item as a person reads it: "Question from Project Manager in #sales (1 of 2)"
 * (docs/channels.md "One name per agent").
 */
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { useNameOf } from "@/components/events/use-sender-name";
import { useInbox } from "@/components/live/inbox";
import { useThreads } from "@/components/live/use-threads";
import { unreadCount, useReadMarks } from "@/components/prefs/read-marks";
import { announce } from "@/components/ui/announce";
import type { ShortcutSection } from "@/components/ui/shortcuts";
import type { InboxItem, ThreadSummary } from "@/lib/api/types";
import { useChannelNames } from "./thread-title";

/** The sheet's section of the keys that work on every page. */
export const EVERYWHERE: ShortcutSection = {
  id: "everywhere",
  title: "Everywhere",
  rows: [
    { keys: ["Mod+K"], does: "Jump to a channel or search" },
    { keys: ["?", "Mod+/"], does: "Show these shortcuts" },
    { keys: ["Alt+↓"], does: "Next channel or direct message" },
    { keys: ["Alt+↑"], does: "Previous channel or direct message" },
    { keys: ["Alt+Shift+↓"], does: "Next unread channel" },
    { keys: ["Alt+Shift+↑"], does: "Previous unread channel" },
    { keys: ["Alt+J"], does: "Next question or approval waiting for you" },
  ],
};

/** The sidebar's order: channels, then direct messages (components/workspace/sidebar.tsx). */
export function sidebarOrder(threads: readonly ThreadSummary[]): ThreadSummary[] {
  return [...threads.filter((t) => t.kind !== "dm"), ...threads.filter((t) => t.kind === "dm")];
}

/**
 * The channel `step` (+1 next, −1 previous) away from `activeId` in `order`; with `only`, the
 * next one that passes it, wrapping around. Without an open channel, the first (or last). Null
 * when there is none.
 */
export function stepChannel<T extends { id: string }>(order: readonly T[], activeId: string | undefined, step: 1 | -1, only?: (t: T) => boolean): T | null {
  const at = activeId ? order.findIndex((t) => t.id === activeId) : -1;
  if (!only) {
    if (at < 0) return (step === 1 ? order[0] : order.at(-1)) ?? null;
    return order[at + step] ?? null;
  }
  const n = order.length;
  const start = at < 0 ? (step === 1 ? -1 : n) : at;
  for (let k = 1; k <= n; k++) {
    const t = order[(((start + step * k) % n) + n) % n]!;
    if (t.id !== activeId && only(t)) return t;
  }
  return null;
}

/** Questions and approvals waiting for the person, oldest first. */
export function waitingItems(items: readonly InboxItem[]): InboxItem[] {
  return items.filter((i) => (i.kind === "question" || i.kind === "approval") && !i.done).sort((a, b) => a.seq - b.seq);
}

/** Binds the Alt keys (see the file comment; `?` and Mod+/ are bound by the sheet's provider). */
export function useWorkspaceKeys(activeId: string | undefined): void {
  const router = useRouter();
  const threads = useThreads().data;
  const { marks } = useReadMarks();
  const inbox = useInbox().data;
  const nameOf = useNameOf();
  const { place } = useChannelNames();
  const lastWaiting = useRef<string | null>(null);
  const state = useRef({ threads, marks, inbox, activeId, nameOf, place });
  useEffect(() => {
    state.current = { threads, marks, inbox, activeId, nameOf, place };
  });

  useEffect(() => {
    const go = (t: ThreadSummary) => router.push(`/c/${encodeURIComponent(t.id)}`);
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || document.querySelector("dialog[open]")) return;
      const s = state.current;
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const order = sidebarOrder(s.threads ?? []);
        const step = e.key === "ArrowDown" ? 1 : -1;
        if (e.shiftKey) {
          const next = stepChannel(order, s.activeId, step, (t) => unreadCount(t, s.marks) > 0);
          if (next) go(next);
          else announce("No unread channels");
        } else {
          const next = stepChannel(order, s.activeId, step);
          if (next) go(next);
          else announce(step === 1 ? "This is the last channel" : "This is the first channel");
        }
      } else if (e.code === "KeyJ" && !e.shiftKey) {
        e.preventDefault();
        const items = waitingItems(s.inbox?.items ?? []);
        if (!items.length) {
          announce("Nothing is waiting for you");
          return;
        }
        const at = items.findIndex((i) => i.key === lastWaiting.current);
        const item = items[(at + 1) % items.length]!;
        lastWaiting.current = item.key;
        const where = item.thread_name ? ` ${s.place(item)}` : "";
        const who = s.nameOf(item.from);
        announce(`${item.kind === "question" ? "Question" : "Approval"} from ${who}${where} (${items.indexOf(item) + 1} of ${items.length})`);
        router.push(item.href);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router]);
}
