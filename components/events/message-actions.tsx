"use client";
/**
 * Message actions in a channel, as in Slack (docs/channels.md "Message actions"), drawn from the
 * message's folded state (lib/fold/message-actions.ts `MessageState`, `EventContext.actions`):
 *
 * - `MessageToolbar`: on hover or focus, top right of a message: Add reaction (an emoji
 *   picker), Reply in thread, and More actions (a menu: Edit message, Pin to channel / Unpin,
 *   Copy link, Mark unread, Delete message). One Tab stop; ←/→ move between its buttons.
 * - `Reactions`: the reactions as chips (emoji and count), pressed when you reacted; a click
 *   toggles yours; each names who reacted.
 * - `EditedMark`: "(edited)" after the text, with the history of its texts on click.
 * - `PinnedLine`: "Pinned by Lee" above a pinned message.
 * - `MessageEditor`: the message's text in place, to edit: Enter saves, Escape cancels,
 *   Shift+Enter adds a line; an error keeps the text.
 *
 * What each person is offered is message-actions-model.ts `offeredActions`. The channel's list
 * (components/thread/message-list.tsx) provides `MessageListContext`: which message is being edited
 * (↑ in the empty composer edits your last one) and where "Mark unread" put the unread divider;
 * a thread pane has none, and a message there is edited on its own.
 */
import { createContext, useContext, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { MessageState, Pin } from "@/lib/fold/message-actions";
import { isReactionEmoji, type StoredEvent } from "@/lib/protocol";
import { usePeople } from "@/components/identity/api";
import { useMeOrNull } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { deleteMessage, editMessage, markUnread, setPinned, setReaction } from "@/components/live/message-actions";
import { mentionLabels, type MentionLabel } from "@/components/markdown/mention-parts";
import { useMentionCompletion } from "@/components/thread/mention-list";
import { announce } from "@/components/ui/announce";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { LinkIcon, MailIcon, MessageIcon, MoreVerticalIcon, PencilIcon, PinIcon, SmilePlusIcon, TrashIcon } from "@/components/ui/icons";
import { MenuButton, type MenuItem } from "@/components/ui/menu";
import { Popover } from "@/components/ui/popover";
import { formatFull, formatWhen } from "@/components/ui/time";
import { COMPOSER_ID } from "@/components/workspace/skip-links";
import { describeReaction, messagePath, reactedBy, type OfferedActions } from "./message-actions-model";
import { useThreadActions } from "./thread-actions";
import { useNameOf } from "./use-sender-name";

/** Which message of a list is being edited, and whether ↑ in the composer started it. */
export interface Editing {
  id: string;
  fromComposer: boolean;
}

/** What the channel's list shares with its messages (see the file comment). */
export interface MessageListControl {
  editing: Editing | null;
  setEditing(next: Editing | null): void;
  /** After "Mark unread": the person's read mark is now `seq`, so the unread divider goes after it. */
  markedUnread(seq: number): void;
}

/** Provided by the channel's list; null in a thread pane. */
export const MessageListContext = createContext<MessageListControl | null>(null);

/**
 * Whether message `id` is being edited, and how to start and stop: through the channel's list
 * (so ↑ in the composer can start it), or on its own in a thread pane.
 */
export function useEditing(id: string): { editing: boolean; fromComposer: boolean; inChannel: boolean; start(): void; stop(): void } {
  const list = useContext(MessageListContext);
  const [own, setOwn] = useState(false);
  return {
    editing: list ? list.editing?.id === id : own,
    fromComposer: Boolean(list?.editing?.id === id && list.editing.fromComposer),
    inChannel: list !== null,
    start: () => (list ? list.setEditing({ id, fromComposer: false }) : setOwn(true)),
    stop: () => (list ? list.setEditing(null) : setOwn(false)),
  };
}

/** An error's message for a sentence ("Couldn’t save: …"). */
function reason(err: unknown): string {
  return err instanceof Error ? err.message : "something went wrong";
}

/**
 * How a message's @mentions read (mention-parts.ts `mentionLabels`): people by their names from
 * the workspace's people, agents by their cards' names, you marked.
 */
export function useMentionLabels(mentions: readonly string[] | undefined): MentionLabel[] | undefined {
  const me = useMeOrNull()?.agent_id ?? null;
  const people = usePeople().data;
  const nameOf = useNameOf();
  const key = mentions?.join("\n") ?? "";
  return useMemo(() => {
    if (!key) return undefined;
    const personName = (id: string) => people?.find((p) => p.agent_id === id)?.name;
    return mentionLabels(key.split("\n"), { me, personName, agentName: (id) => nameOf(id) });
  }, [key, me, people, nameOf]);
}

/** Common reactions, each with the name a screen reader says. */
const EMOJI: readonly (readonly [string, string])[] = [
  ["👍", "thumbs up"],
  ["❤️", "red heart"],
  ["😂", "tears of joy"],
  ["🎉", "party popper"],
  ["🙏", "folded hands"],
  ["👀", "eyes"],
  ["✅", "check mark"],
  ["🔥", "fire"],
  ["👎", "thumbs down"],
  ["😄", "grinning face"],
  ["😮", "surprised face"],
  ["😢", "crying face"],
  ["🤔", "thinking face"],
  ["👏", "clapping hands"],
  ["🙌", "raising hands"],
  ["💯", "hundred points"],
  ["🚀", "rocket"],
  ["💡", "light bulb"],
  ["⚠️", "warning"],
  ["❌", "cross mark"],
  ["➕", "plus"],
  ["👋", "waving hand"],
  ["⭐", "star"],
  ["📌", "pushpin"],
];
const COLUMNS = 8;

/**
 * The emoji picker: a grid of common emoji (one Tab stop: arrow keys move, Home/End go to a
 * row's ends) and a field for any other emoji or `:shortcode:` (checked as the server does,
 * `isReactionEmoji`).
 */
function EmojiPicker({ anchor, open, onClose, onPick }: { anchor: RefObject<HTMLElement | null>; open: boolean; onClose: () => void; onPick: (emoji: string) => void }) {
  const [other, setOther] = useState("");
  const [invalid, setInvalid] = useState(false);
  // One Tab stop for the grid: the arrow keys move in it.
  const [active, setActive] = useState(0);
  const grid = useRef<HTMLDivElement>(null);
  const errorId = useId();
  const pick = (emoji: string) => {
    onClose();
    onPick(emoji);
  };
  const onGridKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const buttons = [...(grid.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    const col = i % COLUMNS;
    const step: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLUMNS, ArrowUp: -COLUMNS, Home: -col, End: COLUMNS - 1 - col };
    if (!(e.key in step)) return;
    e.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, i + step[e.key]!))]?.focus();
  };
  return (
    <Popover anchor={anchor} open={open} onClose={onClose} label="Add a reaction" className="w-[18.5rem] p-2">
      <div ref={grid} role="group" aria-label="Common reactions" onKeyDown={onGridKey} className="grid grid-cols-8 gap-0.5">
        {EMOJI.map(([emoji, name], i) => (
          <button
            key={emoji}
            type="button"
            tabIndex={i === active ? 0 : -1}
            onFocus={() => setActive(i)}
            aria-label={name}
            title={`${emoji} ${name}`}
            onClick={() => pick(emoji)}
            className="flex h-8 w-8 items-center justify-center rounded-md text-lg hover:bg-hover focus-visible:bg-accent/12"
          >
            {emoji}
          </button>
        ))}
      </div>
      <form
        className="mt-2 flex gap-1.5 border-t border-line pt-2"
        onSubmit={(e) => {
          e.preventDefault();
          const emoji = other.trim();
          if (!isReactionEmoji(emoji)) return setInvalid(true);
          setOther("");
          pick(emoji);
        }}
      >
        <input
          value={other}
          onChange={(e) => {
            setOther(e.target.value);
            setInvalid(false);
          }}
          aria-label="Any other emoji, or a :shortcode:"
          aria-invalid={invalid}
          aria-describedby={invalid ? errorId : undefined}
          placeholder="Any emoji or :shortcode:"
          className="h-8 min-w-0 flex-1 rounded-md border border-line-strong bg-canvas px-2 text-[13px] placeholder:text-fg-subtle focus:border-accent focus:outline-none"
        />
        <Button type="submit" variant="secondary" className="h-8 px-2.5">
          Add
        </Button>
      </form>
      {invalid && (
        <p id={errorId} role="alert" className="mt-1 text-[11.5px] text-danger">
          A reaction is one emoji, or a :shortcode: like :thumbsup:.
        </p>
      )}
    </Popover>
  );
}

/** Toggles the signed-in person's reaction `emoji` on a message, saying so when it fails. */
function useToggleReaction(event: StoredEvent, state: MessageState) {
  const me = useMeOrNull()?.agent_id ?? null;
  const [busy, setBusy] = useState(false);
  return {
    busy,
    toggle: async (emoji: string) => {
      if (busy) return;
      const mine = state.reactions.find((r) => r.emoji === emoji);
      setBusy(true);
      try {
        await setReaction(event.thread_id, event.id, emoji, !(mine && reactedBy(mine, me)));
      } catch (err) {
        announce(`Couldn’t react: ${reason(err)}`);
      } finally {
        setBusy(false);
      }
    },
  };
}

const TOOL =
  "inline-flex h-7 w-7 items-center justify-center rounded-md text-fg-muted hover:bg-hover hover:text-fg focus-visible:bg-hover focus-visible:text-fg";

/**
 * The bar of actions on a message (see the file comment). `offered` says what this person may
 * do; `moreRef` is its More actions button (the focus goes back there after an edit).
 */
export function MessageToolbar({
  event,
  state,
  offered,
  inChannel,
  onEdit,
  moreRef,
}: {
  event: StoredEvent;
  state: MessageState;
  offered: OfferedActions;
  /** In the channel's list: Reply in thread opens the message's thread (not in a thread pane, which shows it). */
  inChannel: boolean;
  onEdit: () => void;
  moreRef: RefObject<HTMLButtonElement | null>;
}) {
  const { openThread } = useThreadActions();
  const list = useContext(MessageListContext);
  const qc = useQueryClient();
  const reaction = useToggleReaction(event, state);
  const [picking, setPicking] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [active, setActive] = useState(0);
  const bar = useRef<HTMLDivElement>(null);
  const reactButton = useRef<HTMLButtonElement>(null);

  const pin = async (pinned: boolean) => {
    try {
      await setPinned(event.thread_id, event.id, pinned);
      announce(pinned ? "Pinned to the channel" : "Unpinned from the channel");
    } catch (err) {
      announce(`Couldn’t ${pinned ? "pin" : "unpin"} the message: ${reason(err)}`);
    }
  };
  const copyLink = async () => {
    try {
      await navigator.clipboard.writeText(new URL(messagePath(event), window.location.origin).toString());
      announce("Link copied");
    } catch {
      announce("Couldn’t copy the link: the browser did not allow it");
    }
  };
  const unread = async () => {
    try {
      const read = await markUnread(qc, event.thread_id, event.id);
      list?.markedUnread(read.seq);
      announce("Marked unread from this message");
    } catch (err) {
      announce(`Couldn’t mark unread: ${reason(err)}`);
    }
  };
  const items: MenuItem[] = [
    ...(offered.edit ? [{ label: "Edit message", icon: <PencilIcon size={14} />, onSelect: onEdit }] : []),
    ...(offered.pin ? [{ label: offered.pin === "pin" ? "Pin to channel" : "Unpin from channel", icon: <PinIcon size={14} />, onSelect: () => void pin(offered.pin === "pin") }] : []),
    ...(offered.copyLink ? [{ label: "Copy link", icon: <LinkIcon size={14} />, onSelect: () => void copyLink() }] : []),
    ...(offered.markUnread ? [{ label: "Mark unread", icon: <MailIcon size={14} />, onSelect: () => void unread() }] : []),
    ...(offered.delete ? [{ label: "Delete message", icon: <TrashIcon size={14} />, danger: true, onSelect: () => setConfirming(true) }] : []),
  ];
  const buttons = 1 + (inChannel ? 1 : 0) + (items.length ? 1 : 0);
  // One Tab stop: the toolbar pattern's roving tabindex.
  const roving = (i: number) => ({ tabIndex: i === Math.min(active, buttons - 1) ? 0 : -1, onFocus: () => setActive(i) });
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const all = [...(bar.current?.querySelectorAll<HTMLButtonElement>(":scope > button") ?? [])];
    const i = all.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    e.preventDefault();
    all[(i + (e.key === "ArrowRight" ? 1 : -1) + all.length) % all.length]?.focus();
  };
  const held = picking || menuOpen || confirming;
  return (
    <>
      <div
        ref={bar}
        role="toolbar"
        aria-label="Message actions"
        onKeyDown={onKeyDown}
        className={`absolute -top-3.5 right-3 z-10 flex items-center gap-px rounded-lg border border-line bg-surface p-0.5 shadow-sm transition-opacity sm:right-5 ${
          held ? "opacity-100" : "pointer-events-none opacity-0 group-hover:pointer-events-auto group-hover:opacity-100 group-focus-within:pointer-events-auto group-focus-within:opacity-100"
        }`}
      >
        <button
          ref={reactButton}
          type="button"
          aria-label="Add reaction"
          title="Add reaction"
          aria-haspopup="dialog"
          aria-expanded={picking}
          onClick={() => setPicking((p) => !p)}
          className={TOOL}
          {...roving(0)}
        >
          <SmilePlusIcon size={16} />
        </button>
        {inChannel && (
          <button type="button" aria-label="Reply in thread" title="Reply in thread" onClick={() => openThread({ message_id: event.id })} className={TOOL} {...roving(1)}>
            <MessageIcon size={16} />
          </button>
        )}
        {items.length > 0 && (
          <MenuButton label="More actions" items={items} onOpenChange={setMenuOpen} buttonRef={moreRef} buttonProps={{ className: TOOL, ...roving(buttons - 1) }}>
            <MoreVerticalIcon size={16} />
          </MenuButton>
        )}
      </div>
      <EmojiPicker anchor={reactButton} open={picking} onClose={() => setPicking(false)} onPick={(emoji) => void reaction.toggle(emoji)} />
      {confirming && (
        <DeleteDialog
          event={event}
          state={state}
          onClose={(deleted) => {
            setConfirming(false);
            // Once the dialog is gone: to the composer when the message went, else back to the menu's button.
            setTimeout(() => (deleted ? document.getElementById(COMPOSER_ID) : moreRef.current)?.focus(), 0);
          }}
        />
      )}
    </>
  );
}

/** "Delete this message?": removed for everyone, the log keeps it. */
function DeleteDialog({ event, state, onClose }: { event: StoredEvent; state: MessageState; onClose: (deleted: boolean) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await deleteMessage(event.thread_id, event.id);
      announce("Message deleted");
      onClose(true);
    } catch (err) {
      setError(reason(err));
      setBusy(false);
    }
  };
  return (
    <Dialog open onClose={() => onClose(false)} title="Delete this message?" description="It is removed for everyone; the log keeps a record." className="max-w-md">
      <div className="px-5 pb-4 pt-3">
        <blockquote className="line-clamp-4 whitespace-pre-wrap break-words rounded-md border-l-[3px] border-line-strong bg-sunken px-3 py-2 text-[13px] text-fg-muted">{state.text}</blockquote>
        {error && (
          <p role="alert" className="mt-2 text-[13px] text-danger">
            Couldn’t delete: {error}
          </p>
        )}
        <div className="mt-4 flex justify-end gap-2">
          <Button onClick={() => onClose(false)} autoFocus>
            Cancel
          </Button>
          <Button variant="primary" onClick={() => void confirm()} disabled={busy} className="bg-danger! text-white!">
            {busy ? "Deleting…" : "Delete"}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

/** The reactions under a message: one chip per emoji, then Add reaction. */
export function Reactions({ event, state }: { event: StoredEvent; state: MessageState }) {
  const me = useMeOrNull()?.agent_id ?? null;
  const nameOf = usePersonLabel();
  const reaction = useToggleReaction(event, state);
  const [picking, setPicking] = useState(false);
  const add = useRef<HTMLButtonElement>(null);
  if (!state.reactions.length) return null;
  return (
    <div role="group" aria-label="Reactions" className="mt-1 flex flex-wrap items-center gap-1">
      {state.reactions.map((r) => {
        const pressed = reactedBy(r, me);
        const said = describeReaction(r, me, nameOf);
        return (
          <button
            key={r.emoji}
            type="button"
            aria-pressed={pressed}
            aria-label={said}
            title={said}
            aria-disabled={reaction.busy || undefined}
            onClick={() => void reaction.toggle(r.emoji)}
            className={`inline-flex h-6 items-center gap-1 rounded-full border px-2 text-[12px] tabular-nums transition-colors ${
              pressed ? "border-accent/60 bg-accent/12 font-semibold text-accent" : "border-line bg-sunken text-fg-muted hover:border-line-strong hover:bg-hover"
            }`}
          >
            <span className="text-[14px] leading-none">{r.emoji}</span>
            {r.count}
          </button>
        );
      })}
      <button
        ref={add}
        type="button"
        aria-label="Add reaction"
        title="Add reaction"
        aria-haspopup="dialog"
        aria-expanded={picking}
        onClick={() => setPicking((p) => !p)}
        className="inline-flex h-6 w-7 items-center justify-center rounded-full border border-line bg-sunken text-fg-muted hover:border-line-strong hover:text-fg"
      >
        <SmilePlusIcon size={14} />
      </button>
      <EmojiPicker anchor={add} open={picking} onClose={() => setPicking(false)} onPick={(emoji) => void reaction.toggle(emoji)} />
    </div>
  );
}

/** "(edited)" after a message's text: when, on hover; its earlier texts, on click. */
export function EditedMark({ state }: { state: MessageState }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  if (!state.edited) return null;
  const versions = [...state.edits].reverse();
  return (
    <>
      {" "}
      <button
        ref={button}
        type="button"
        aria-haspopup="dialog"
        aria-expanded={open}
        title={`Edited ${formatFull(state.edited.at)}: show earlier versions`}
        onClick={() => setOpen((o) => !o)}
        className="rounded text-[11px] text-fg-subtle hover:text-fg-muted hover:underline"
      >
        (edited)
      </button>
      <Popover anchor={button} open={open} onClose={() => setOpen(false)} label="Edit history" className="w-[22rem] max-w-[calc(100vw-1rem)] p-3">
        <h3 className="text-[12px] font-semibold uppercase tracking-wide text-fg-subtle">Edit history</h3>
        <ol className="scroll-slim mt-1.5 max-h-72 space-y-2 overflow-y-auto">
          {versions.map((v, i) => (
            <li key={v.seq} className="text-[13px]">
              <p className="text-[11.5px] text-fg-subtle">
                <time dateTime={v.at} title={formatFull(v.at)}>
                  {formatWhen(v.at)}
                </time>{" "}
                · {i === 0 ? "Now" : i === versions.length - 1 ? "Original" : "Edited"}
              </p>
              <p className={`whitespace-pre-wrap break-words ${i === 0 ? "text-fg" : "text-fg-muted"}`} dir="auto">
                {v.text}
              </p>
            </li>
          ))}
        </ol>
      </Popover>
    </>
  );
}

/** "Pinned by Lee" above a pinned message, when and by whom on hover. */
export function PinnedLine({ pin }: { pin: Pin }) {
  const me = useMeOrNull()?.agent_id ?? null;
  const nameOf = usePersonLabel();
  const who = pin.by === me ? "you" : nameOf(pin.by);
  return (
    <p className="mb-0.5 flex items-center gap-1 text-[11.5px] font-medium text-warning" title={`Pinned ${formatFull(pin.at)}`}>
      <PinIcon size={11} aria-hidden="true" />
      Pinned by {who}
    </p>
  );
}

/**
 * The message's text in place, to edit (see the file comment); @mentions complete as in the
 * composer. `onDone` after a save or a cancel.
 */
export function MessageEditor({ event, state, onDone }: { event: StoredEvent; state: MessageState; onDone: () => void }) {
  const [text, setText] = useState(state.text);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const errorId = useId();
  const mention = useMentionCompletion({ text, setText, area, threadId: event.thread_id });
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    el.focus({ preventScroll: true });
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [text]);
  const save = async () => {
    const body = text.trim();
    if (!body) return setError("a message needs text (to remove it, delete it)");
    if (body === state.text) return onDone();
    setSaving(true);
    setError(null);
    try {
      await editMessage(event.thread_id, event.id, body);
      onDone();
    } catch (err) {
      setError(reason(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="mt-0.5">
      <div className="relative rounded-lg border border-line-strong bg-surface px-2.5 py-1.5 focus-within:border-accent">
        {mention.list}
        <textarea
          {...mention.inputProps}
          ref={area}
          value={text}
          readOnly={saving}
          rows={1}
          aria-label="Edit message"
          aria-invalid={Boolean(error)}
          aria-describedby={error ? errorId : undefined}
          dir="auto"
          onChange={(e) => {
            setText(e.target.value);
            mention.track(e.target);
            setError(null);
          }}
          onKeyDown={(e) => {
            if (mention.onKeyDown(e)) return;
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void save();
            } else if (e.key === "Escape") {
              // Not the channel's Escape (mark read, close the thread) as well.
              e.preventDefault();
              e.stopPropagation();
              onDone();
            }
          }}
          className="scroll-slim block max-h-80 min-h-[24px] w-full resize-none bg-transparent text-msg text-fg focus:outline-none read-only:opacity-70"
        />
      </div>
      {error && (
        <p id={errorId} role="alert" className="mt-1 text-[12px] font-medium text-danger">
          Couldn’t save: {error}. Your text is kept.
        </p>
      )}
      <div className="mt-1.5 flex flex-wrap items-center gap-2">
        <Button onClick={onDone} className="h-7 px-2.5 text-xs">
          Cancel
        </Button>
        <Button variant="primary" onClick={() => void save()} disabled={saving} className="h-7 px-2.5 text-xs">
          {saving ? "Saving…" : "Save"}
        </Button>
        <span className="text-[11px] text-fg-subtle max-sm:hidden">
          <kbd className="font-sans font-semibold">Enter</kbd> to save · <kbd className="font-sans font-semibold">Esc</kbd> to cancel ·{" "}
          <kbd className="font-sans font-semibold">Shift + Enter</kbd> new line
        </span>
      </div>
    </div>
  );
}

/** The tombstone of a deleted message: it stays in the log, the channel says it was deleted. */
export function Tombstone({ children }: { children?: ReactNode }) {
  return (
    <>
      <p className="text-msg italic text-fg-muted">This message was deleted.</p>
      {children}
    </>
  );
}
