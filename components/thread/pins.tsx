"use client";
/**
 * `PinsButton`: the channel header's "Pinned" button (with how many, when any) and its list of
 * the channel's pinned messages, newest pin first (`GET /api/threads/:id/pins`, docs/channels.md
 * "Message actions"): each with its sender, an excerpt of its text as it reads now, who pinned
 * it and when, "Show" (scrolls to it in the channel, loading older history when it is further
 * back) and "Unpin". It refreshes when a pin, an edit or a delete arrives in the channel.
 */
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import type { PinnedMessage } from "@/lib/api/message-actions";
import { excerpt } from "@/lib/fold/questions";
import { usePersonLabel } from "@/components/identity/names";
import { useMeOrNull } from "@/components/identity/me";
import { setPinned, usePins } from "@/components/live/message-actions";
import { messagePath } from "@/components/events/message-actions-model";
import { useThreadActions } from "@/components/events/thread-actions";
import { useNameOf } from "@/components/events/use-sender-name";
import { hueFor, isHuman } from "@/components/events/participant";
import { Avatar } from "@/components/ui/avatar";
import { announce } from "@/components/ui/announce";
import { PinIcon } from "@/components/ui/icons";
import { Popover } from "@/components/ui/popover";
import { formatFull, formatWhen } from "@/components/ui/time";

/** The header's Pinned button and its list (see the file comment). */
export function PinsButton({ threadId }: { threadId: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const pins = usePins(threadId);
  const count = pins.data?.pins.length ?? 0;
  const label = count ? `Pinned messages (${count})` : "Pinned messages";
  return (
    <>
      <button
        ref={button}
        type="button"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={label}
        title={label}
        onClick={() => setOpen((o) => !o)}
        className={`inline-flex h-8 items-center gap-1 rounded-md px-2 text-xs font-medium ${open ? "bg-accent/12 text-accent" : "text-fg-muted hover:bg-hover hover:text-fg"}`}
      >
        <PinIcon size={14} />
        <span className="max-sm:sr-only">Pinned</span>
        {count > 0 && <span className="rounded-full bg-fg-muted/15 px-1.5 text-[11px] font-semibold tabular-nums text-fg">{count}</span>}
      </button>
      <Popover anchor={button} open={open} onClose={() => setOpen(false)} label="Pinned messages" className="w-[26rem] max-w-[calc(100vw-1rem)]">
        <h2 className="border-b border-line px-3 py-2 text-[13px] font-semibold">Pinned messages</h2>
        {pins.isError ? (
          <p role="alert" className="px-3 py-4 text-[13px] text-danger">
            Couldn’t load the pins: {pins.error.message}
          </p>
        ) : !pins.data ? (
          <p role="status" className="px-3 py-4 text-[13px] text-fg-muted">
            Loading…
          </p>
        ) : count === 0 ? (
          <p className="px-3 py-4 text-[13px] text-fg-muted">Nothing is pinned yet. Pin a message from its More actions menu to keep it at hand here.</p>
        ) : (
          <ul className="scroll-slim max-h-[60vh] divide-y divide-line overflow-y-auto">
            {pins.data.pins.map((pin) => (
              <PinRow key={pin.message.id} pin={pin} onShow={() => setOpen(false)} />
            ))}
          </ul>
        )}
      </Popover>
    </>
  );
}

/** One pinned message: sender, excerpt, who pinned it, Show and Unpin. */
function PinRow({ pin, onShow }: { pin: PinnedMessage; onShow: () => void }) {
  const nameOf = useNameOf();
  const personLabel = usePersonLabel();
  const me = useMeOrNull()?.agent_id ?? null;
  const { jumpTo } = useThreadActions();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const { message, state, pinned } = pin;
  const sender = nameOf(message.from);
  const by = pinned.by === me ? "you" : personLabel(pinned.by);
  const show = () => {
    onShow();
    // Not loaded (further back, or in a thread): the channel's link loads it and scrolls to it.
    if (!jumpTo(message.id)) router.push(messagePath(message));
  };
  const unpin = async () => {
    setBusy(true);
    try {
      await setPinned(message.thread_id, message.id, false);
      announce("Unpinned from the channel");
    } catch (err) {
      announce(`Couldn’t unpin the message: ${err instanceof Error ? err.message : "something went wrong"}`);
      setBusy(false);
    }
  };
  return (
    <li className="flex gap-2.5 px-3 py-2.5">
      <span className="pt-0.5">
        <Avatar name={sender} hue={hueFor(message.from.agent_id)} agent={!isHuman(message.from)} size={24} />
      </span>
      <div className="min-w-0 flex-1">
        <p className="flex items-baseline gap-1.5 text-[13px]">
          <span className="truncate font-semibold">{sender}</span>
          <time dateTime={message.ts} title={formatFull(message.ts)} className="shrink-0 text-[11px] text-fg-subtle">
            {formatWhen(message.ts)}
          </time>
        </p>
        <p className="line-clamp-3 whitespace-pre-wrap break-words text-[13px] text-fg" dir="auto">
          {excerpt(state.text, 280)}
        </p>
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-[11.5px]">
          <span className="text-fg-muted" title={formatFull(pinned.at)}>
            Pinned by {by} · {formatWhen(pinned.at)}
          </span>
          <button type="button" onClick={show} className="font-medium text-accent hover:underline" aria-label={`Show ${sender}’s message`}>
            Show
          </button>
          <button type="button" onClick={() => void unpin()} disabled={busy} className="font-medium text-fg-muted hover:text-fg hover:underline disabled:opacity-50" aria-label={`Unpin ${sender}’s message`}>
            Unpin
          </button>
        </div>
      </div>
    </li>
  );
}
