"use client";
/**
 * `ThreadHeader`: the channel's name and topic (a lock for a private one), the drawer button on
 * phones, the switcher, the view toggle (the conversation, or every event inline), the
 * channel's settings (visibility and members; none on a direct message, which stays between its
 * two people), and who answers a new message there ("Project Manager answers every message",
 * "Agents answer when @mentioned"; docs/channels.md "Who answers"), which opens the settings,
 * and its pinned messages ("Pinned", with how many; components/thread/pins.tsx).
 * The theme is switched in the sidebar.
 */
import { useState } from "react";
import { ChannelSettingsDialog } from "@/components/identity/channel-settings";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import type { ThreadSummary } from "@/lib/api/types";
import { HashIcon, ListIcon, LockIcon, MessageIcon, SearchIcon, SettingsIcon } from "@/components/ui/icons";
import { useThreadTitle } from "@/components/workspace/thread-title";
import { useShortcutText } from "@/components/ui/keys";
import { useWorkspace } from "@/components/workspace/workspace-context";
import { useChannelAnswers } from "@/components/live/workspace-channels";
import { useNameOf } from "@/components/events/use-sender-name";
import { PinsButton } from "./pins";

/** The bar above a channel: name, topic, drawer and switcher buttons, view toggle, settings. */
export function ThreadHeader({
  thread,
  fallbackName,
  view,
  onViewChange,
}: {
  thread?: ThreadSummary;
  fallbackName?: string;
  /** The channel's view; the toggle is shown when `onViewChange` is given. */
  view?: "conversation" | "all";
  onViewChange?: (view: "conversation" | "all") => void;
}) {
  const { openSwitcher } = useWorkspace();
  const searchKey = useShortcutText("Mod+K");
  const [settings, setSettings] = useState(false);
  const { title } = useThreadTitle(thread);
  const dm = thread?.kind === "dm";
  const answers = useChannelAnswers(thread);
  const nameOf = useNameOf();
  const answersLabel =
    dm || !answers?.entry_agent ? null : answers.answers === "every_message" ? `${nameOf({ agent_id: answers.entry_agent })} answers every message` : "Agents answer when @mentioned";
  return (
    <header className="flex h-12 shrink-0 items-center gap-2 border-b border-line bg-canvas px-2 sm:px-4">
      <DrawerToggle />
      <div className="flex min-w-0 flex-1 items-baseline gap-2">
        <h1 className="flex min-w-0 max-w-full shrink-0 items-center gap-0.5 text-[15px] font-bold">
          {dm ? (
            <MessageIcon size={14} className="shrink-0 text-fg-muted" />
          ) : thread?.visibility === "private" ? (
            <LockIcon size={14} className="shrink-0 text-fg-muted" />
          ) : (
            <HashIcon size={15} className="shrink-0 text-fg-muted" />
          )}
          <span className="truncate">{thread ? title : (fallbackName ?? "")}</span>
          {dm ? <span className="sr-only">(direct message)</span> : thread?.visibility === "private" && <span className="sr-only">(private channel)</span>}
        </h1>
        {answersLabel && (
          <button
            type="button"
            onClick={() => setSettings(true)}
            title="Who answers a new message in this channel: see or change it in the channel's settings"
            className="min-w-0 max-w-[45%] shrink self-center truncate rounded-full border border-line px-2 py-px text-[11.5px] font-medium text-fg-muted hover:bg-hover hover:text-fg max-md:hidden"
          >
            {answersLabel}
          </button>
        )}
        {thread?.topic && (
          <p className="min-w-0 truncate text-[13px] text-fg-muted max-sm:hidden" title={thread.topic}>
            {thread.topic}
          </p>
        )}
      </div>
      <button
        type="button"
        onClick={openSwitcher}
        aria-label="Jump to a channel or search"
        title={`Jump to a channel or search (${searchKey})`}
        className="inline-flex h-8 items-center gap-2 rounded-md text-fg-muted hover:bg-hover hover:text-fg max-sm:w-8 max-sm:justify-center sm:border sm:border-line sm:px-2.5 sm:text-xs md:hidden"
      >
        <SearchIcon size={14} />
        <span className="max-sm:hidden">Jump or search…</span>
        <kbd className="rounded border border-line bg-sunken px-1 font-sans text-[10px] font-semibold max-sm:hidden">{searchKey}</kbd>
      </button>
      {thread && <PinsButton threadId={thread.id} />}
      {thread && onViewChange && (
        <button
          type="button"
          aria-pressed={view === "all"}
          onClick={() => onViewChange(view === "all" ? "conversation" : "all")}
          title={view === "all" ? "Showing every event inline: show the conversation only" : "Show every event inline (task steps, tool calls, routing and policy)"}
          className={`inline-flex h-8 items-center gap-1.5 rounded-md px-2 text-xs font-medium ${
            view === "all" ? "bg-accent/12 text-accent" : "text-fg-muted hover:bg-hover hover:text-fg"
          }`}
        >
          <ListIcon size={14} />
          <span className="max-sm:sr-only">All events</span>
        </button>
      )}
      {/* A DM stays between its two people (docs/channels.md "Direct messages"): no visibility or members to change. */}
      {thread && !dm && (
        <>
          <button
            type="button"
            onClick={() => setSettings(true)}
            aria-label="Channel settings"
            title="Channel settings: visibility and members"
            className="inline-flex h-8 w-8 items-center justify-center rounded-md text-fg-muted hover:bg-hover hover:text-fg"
          >
            <SettingsIcon size={15} />
          </button>
          <ChannelSettingsDialog thread={thread} open={settings} onClose={() => setSettings(false)} />
        </>
      )}
    </header>
  );
}
