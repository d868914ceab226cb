/**
 * Fallback renderer: an event of an unknown type or an unexpected payload shape, shown as its
 * type, its sender and its payload in formatted JSON. Also what the error boundary shows when a
 * renderer throws.
 */
import type { StoredEvent } from "@/lib/protocol";
import { BracesIcon } from "@/components/ui/icons";
import { Disclosure } from "@/components/ui/disclosure";
import { EventTime } from "./event-shell";
import { JsonView } from "@/components/ui/json-view";

/** An event shown as its type, sender and payload JSON; `note` says why. */
export function UnknownEvent({ event, note }: { event: StoredEvent; note?: string }) {
  const type = typeof event?.type === "string" ? event.type : "unknown";
  const from = typeof event?.from?.agent_id === "string" ? event.from.agent_id : "unknown sender";
  const ts = typeof event?.ts === "string" ? event.ts : null;
  return (
    <article
      data-seq={event?.seq}
      aria-label={`Event ${type}`}
      className="group relative flex gap-2.5 px-4 py-1 text-[13px] hover:bg-hover/70 sm:px-5"
    >
      <div className="flex w-9 shrink-0 justify-center pt-0.5 text-fg-subtle">
        <BracesIcon size={14} />
      </div>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-baseline gap-x-1.5">
          <span className="font-mono text-[12px] font-semibold text-fg">{type}</span>
          <span className="font-mono text-[11px] text-fg-muted">{from}</span>
          {ts && <EventTime event={event} className="text-[11px] text-fg-subtle" />}
          <span className="font-mono text-[10px] text-fg-subtle">#{String(event?.seq)}</span>
        </div>
        {note && <p className="text-[11px] text-warning">{note}</p>}
        <Disclosure label="Payload" defaultOpen className="mt-0.5">
          <JsonView value={event?.payload} label={`${type} payload`} />
        </Disclosure>
      </div>
    </article>
  );
}
