"use client";
/**
 * `PersonName`: a person's name in a message header as a button that opens their card, a small
 * non-modal popover (docs/channels.md "Presence", "Direct messages"): avatar with presence, name,
 * role and email (the email as GET /api/people gives it: to admins), and "Message" to open the
 * direct message with them (none on your own card).
 *
 * Keyboard: the name is a button (Enter or Space opens the card and focuses it); Escape closes
 * it and gives focus back to the name; a click outside or Tab past its end closes it too.
 */
import { useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { hueFor } from "@/components/events/participant";
import { usePresence } from "@/components/live/presence";
import { Avatar } from "@/components/ui/avatar";
import { AvatarWithPresence } from "@/components/ui/presence-dot";
import { MessageButton } from "@/components/workspace/message-button";
import { ROLE_LABEL } from "@/components/workspace/settings-dialog";
import { usePeople } from "./api";
import { useMe } from "./me";

/** The name as a button with the person's card; `agent_id` is their `user:` id. */
export function PersonName({ agent_id, name, className = "" }: { agent_id: string; name: string; className?: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const card = useRef<HTMLDivElement>(null);
  const cardId = useId();
  // Fixed to the viewport (in the body), so no scrolling list clips it: under the name, or above it
  // when the name is near the bottom (a message just above the composer). Placed before the first
  // paint, then focused. `place` answers false when the name is out of view.
  const place = (): boolean => {
    const el = card.current;
    if (!button.current || !el) return false;
    const at = button.current.getBoundingClientRect();
    if (at.bottom < 0 || at.top > window.innerHeight) return false;
    const height = el.offsetHeight;
    const below = at.bottom + 4 + height <= window.innerHeight - 8;
    el.style.left = `${Math.max(8, Math.min(at.left, window.innerWidth - el.offsetWidth - 8))}px`;
    el.style.top = `${below ? at.bottom + 4 : Math.max(8, at.top - 4 - height)}px`;
    return true;
  };
  useLayoutEffect(() => {
    if (!open || !place()) return;
    card.current?.focus({ preventScroll: true });
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      const t = e.target as Node;
      if (!card.current?.contains(t) && !button.current?.contains(t)) setOpen(false);
    };
    // The card follows its name while a list scrolls (a list that measures its rows or keeps to its
    // bottom moves it too), and closes once the name is out of view.
    const onScroll = (e: Event) => {
      if (card.current?.contains(e.target as Node)) return;
      if (!place()) setOpen(false);
    };
    document.addEventListener("pointerdown", onDown);
    document.addEventListener("scroll", onScroll, true);
    return () => {
      document.removeEventListener("pointerdown", onDown);
      document.removeEventListener("scroll", onScroll, true);
    };
  }, [open]);

  return (
    <span className="relative inline-flex min-w-0">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={open ? cardId : undefined}
        aria-haspopup="dialog"
        onClick={() => setOpen((o) => !o)}
        className={`min-w-0 truncate rounded text-left hover:underline focus-visible:outline-2 focus-visible:outline-accent ${className}`}
        title={agent_id}
      >
        {name}
      </button>
      {open &&
        createPortal(
        <div
          ref={card}
          id={cardId}
          role="dialog"
          aria-label={name}
          tabIndex={-1}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.stopPropagation();
              setOpen(false);
              button.current?.focus();
            }
          }}
          onBlur={(e) => {
            if (e.relatedTarget && !card.current?.contains(e.relatedTarget as Node) && e.relatedTarget !== button.current) setOpen(false);
          }}
          className="fixed z-50 w-64 animate-pop-in rounded-lg border border-line bg-surface p-3 text-left font-normal shadow-pop outline-none"
        >
          <PersonCard agent_id={agent_id} name={name} onOpened={() => setOpen(false)} />
        </div>,
          // In the body: a row of a virtualized list is transformed, which would hold a fixed card inside it.
          document.body,
        )}
    </span>
  );
}

/** The card's content: avatar with presence, name, role and email, and "Message". */
export function PersonCard({ agent_id, name, onOpened }: { agent_id: string; name: string; onOpened?: () => void }) {
  const me = useMe();
  const people = usePeople();
  const isOnline = usePresence();
  const person = people.data?.find((p) => p.agent_id === agent_id);
  const online = isOnline(agent_id);
  const shown = person?.name ?? name;
  return (
    <div className="text-[13px]">
      <div className="flex items-start gap-2.5">
        <AvatarWithPresence online={online} dot={11}>
          <Avatar name={shown} hue={hueFor(agent_id)} agent={false} size={40} />
        </AvatarWithPresence>
        <div className="min-w-0 flex-1">
          <p className="truncate font-semibold text-fg">
            {shown}
            {agent_id === me.agent_id && <span className="font-normal text-fg-muted"> (you)</span>}
          </p>
          <p className="text-xs text-fg-muted">
            {person ? ROLE_LABEL[person.role] : "Person"} · <span className={online ? "font-medium text-success" : ""}>{online ? "Online" : "Away"}</span>
          </p>
          {person?.email && <p className="truncate text-xs text-fg-muted">{person.email}</p>}
        </div>
      </div>
      {person && agent_id !== me.agent_id && <MessageButton with={agent_id} name={shown} className="mt-3 flex" onOpened={onOpened} />}
    </div>
  );
}
