"use client";
/**
 * `useInboxKeys`: the inbox's keyboard, while no field has the focus and no dialog is open
 * (components/ui/use-hotkeys.ts). The keys are listed for people in ./shortcuts.tsx.
 *
 *   j / ↓, k / ↑   next / previous approval
 *   a, r, e       approve, reject (comment first), edit the arguments (pending tab only, and only
 *                 for a person who may decide the selected approval: for others they do nothing)
 *   Enter         open the selected approval in its channel (unless a control has the focus)
 *   /             focus the text filter
 *
 * `?` (the shortcut sheet, with this page's section: ./shortcuts.tsx) is the workspace's.
 */
import type { RefObject } from "react";
import { useHotkeys } from "@/components/ui/use-hotkeys";
import type { ApprovalActionsHandle } from "@/components/events/approval-actions";
import type { InboxTab } from "./model";

/** What the keys act on. */
export interface InboxKeyTargets {
  tab: InboxTab;
  /** The selected item's index; -1 when none. */
  index: number;
  hasSelection: boolean;
  /** The signed-in person may decide the selected approval (./key-hints.ts `mayDecideInInbox`). */
  canDecide: boolean;
  select(index: number): void;
  /** The selected item's decision bar. */
  actions: RefObject<ApprovalActionsHandle | null>;
  openSelected(): void;
  search: RefObject<HTMLInputElement | null>;
}

/** Binds the inbox's keys (see the file comment). */
export function useInboxKeys(t: InboxKeyTargets): void {
  useHotkeys((e) => {
    const onControl = e.target instanceof HTMLElement && e.target.closest("button, a, [role=tab], summary") !== null;
    const decide = (act: (a: ApprovalActionsHandle) => void) => {
      if (t.tab !== "pending" || !t.hasSelection || !t.canDecide) return;
      e.preventDefault();
      if (t.actions.current) act(t.actions.current);
    };
    switch (e.key) {
      case "j":
      case "ArrowDown":
        e.preventDefault();
        t.select(t.index < 0 ? 0 : t.index + 1);
        break;
      case "k":
      case "ArrowUp":
        e.preventDefault();
        t.select(t.index < 0 ? 0 : t.index - 1);
        break;
      case "a":
        decide((a) => a.approve());
        break;
      case "r":
        decide((a) => a.reject());
        break;
      case "e":
        decide((a) => a.edit());
        break;
      case "Enter":
        if (onControl || !t.hasSelection) return;
        e.preventDefault();
        t.openSelected();
        break;
      case "/":
        e.preventDefault();
        t.search.current?.focus();
        break;
    }
  });
}
