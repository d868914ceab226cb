/**
 * The frame every event row shares (consecutive messages grouped like Slack, the exact time and
 * the seq in the time's tooltip): a 36 px gutter (avatar, icon, or the time on hover for a
 * grouped row), the sender line for the first row of a group, and a message's actions on hover
 * and focus (components/events/message-actions.tsx `MessageToolbar`). A person's name opens
 * their card (components/identity/person-card.tsx).
 */
import { ShieldCheckIcon } from "@/components/ui/icons";
import type { ReactNode } from "react";
import { importedFrom, type StoredEvent } from "@/lib/protocol";
import { Avatar } from "@/components/ui/avatar";
import { formatFull, formatShortTime, formatTime } from "@/components/ui/time";
import { displayName, hueFor, isClutch, isHuman } from "./participant";
import { useSenderName } from "./use-sender-name";
import { PersonName } from "@/components/identity/person-card";

/** Exact time on hover, seq included for debugging. */
export function EventTime({ event, className = "", short = false }: { event: StoredEvent; className?: string; short?: boolean }) {
  return (
    <time dateTime={event.ts} title={`${formatFull(event.ts)} · seq ${event.seq}`} className={className}>
      {short ? formatShortTime(event.ts) : formatTime(event.ts)}
    </time>
  );
}

/**
 * A row with the sender's avatar and name (first of a group) or, when `continued`, only the
 * content with the time in the gutter on hover.
 */
export function SenderRow({
  event,
  continued,
  label,
  children,
  headerExtra,
  toolbar,
  className = "hover:bg-hover/70",
}: {
  event: StoredEvent;
  continued: boolean;
  label: string;
  children: ReactNode;
  /** Shown after the sender's name: addressing ("→ analyst-1"), badges. */
  headerExtra?: ReactNode;
  /** The message's actions, top right on hover and focus (MessageToolbar). */
  toolbar?: ReactNode;
  /** Background and border of the row (a question waiting for an answer is highlighted). */
  className?: string;
}) {
  const human = isHuman(event.from);
  const clutch = isClutch(event.from);
  const { name, handle } = useSenderName(event.from);
  return (
    <article
      data-seq={event.seq}
      data-msg-id={event.id}
      aria-label={label}
      className={`group relative flex gap-2.5 px-4 sm:px-5 ${continued ? "py-0.5" : "mt-1.5 pb-0.5 pt-1.5"} ${className}`}
    >
      <div className="flex w-9 shrink-0 justify-center">
        {continued ? (
          <EventTime
            event={event}
            short
            className="invisible whitespace-nowrap pt-px text-[10.5px] leading-5 text-fg-subtle tabular-nums group-hover:visible"
          />
        ) : (
          <span className="pt-0.5">
            <Avatar name={name} hue={hueFor(event.from.agent_id)} agent={!human && !clutch} />
          </span>
        )}
      </div>
      <div className="min-w-0 flex-1">
        {!continued && (
          <div className="flex flex-wrap items-baseline gap-x-1.5 leading-5">
            {human && event.from.agent_id.startsWith("user:") ? (
              <PersonName agent_id={event.from.agent_id} name={name} className="font-semibold text-fg" />
            ) : (
              <span className="min-w-0 truncate font-semibold text-fg" title={event.from.agent_id}>
                {name}
              </span>
            )}{" "}
            {handle && <span className="shrink-0 text-xs text-fg-muted">{handle}</span>}
            {verified(event) && (
              <span
                className="inline-flex items-center gap-0.5 self-center rounded bg-success/10 px-1 text-[10.5px] font-semibold text-success"
                title="Signed by the agent's key and verified by Clutch when it was stored (Clutch Protocol §6)"
              >
                <ShieldCheckIcon size={11} /> verified
              </span>
            )}
            {!human && !clutch && (
              <span className="rounded bg-agent/12 px-1 text-[10px] font-semibold uppercase tracking-wide text-agent">
                Agent
              </span>
            )}
            {clutch && (
              <span className="rounded bg-fg-muted/12 px-1 text-[10px] font-semibold uppercase tracking-wide text-fg-muted">App</span>
            )}{" "}
            <ImportedTag event={event} />
            {headerExtra}
            <EventTime event={event} className="shrink-0 text-xs text-fg-subtle hover:underline" />
          </div>
        )}
        {children}
      </div>
      {toolbar}
    </article>
  );
}

/**
 * "imported from Project Manager" beside the name of an imported copy's sender, who is the
 * person who imported it (lib/protocol/imported.ts): the copy is theirs, quoting the file.
 * Renders nothing for any other event.
 */
export function ImportedTag({ event }: { event: StoredEvent }) {
  const imported = importedFrom(event);
  const original = useSenderName(imported?.from ?? event.from);
  if (!imported) return null;
  return (
    <span
      className="self-center rounded bg-warning/10 px-1 text-[10.5px] font-semibold text-warning"
      title={`A copy imported from a file by ${displayName(event.from)} on ${formatFull(imported.at)}. The file says ${imported.from.agent_id} sent it; the copy acts on nothing.`}
    >
      imported from {original.name}
    </span>
  );
}

/** A compact one-line row with an icon in the gutter (system notices, agent lifecycle). */
export function LineRow({
  event,
  icon,
  label,
  children,
}: {
  event: StoredEvent;
  icon: ReactNode;
  label: string;
  children: ReactNode;
}) {
  return (
    <article
      data-seq={event.seq}
      data-msg-id={event.id}
      aria-label={label}
      className="group relative flex gap-2.5 px-4 py-[3px] text-[13px] leading-5 hover:bg-hover/70 sm:px-5"
    >
      <div className="flex w-9 shrink-0 justify-center pt-0.5 text-fg-subtle">{icon}</div>
      <div className="flex min-w-0 flex-1 flex-wrap items-baseline gap-x-1.5">
        {children}{" "}
        <EventTime event={event} className="shrink-0 text-[11px] text-fg-subtle" />
      </div>
    </article>
  );
}

/**
 * True when the envelope carries a signature (`security.auth.sig`): Clutch stores a signed message
 * only after verifying it (docs/identity.md), so a stored signature is a verified one.
 */
function verified(event: StoredEvent): boolean {
  const auth = (event.security as { auth?: { sig?: unknown } } | undefined)?.auth;
  return typeof auth?.sig === "string" && auth.sig.length > 0;
}
