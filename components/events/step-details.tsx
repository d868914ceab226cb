"use client";
/**
 * `StepDetails`: the machinery between the steps of a run's thread (how work was routed, what the
 * policy allowed, who accepted, the model calls) as one quiet line, "Clutch routed it to Project Manager · Project Manager accepted ·
 * the policy allowed 2 steps", with the events themselves behind "Details" (docs/channels.md
 * "Threads"; components/thread/rows.ts `steps` groups them).
 */
import { useId, useState } from "react";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { ChevronRightIcon, SettingsIcon } from "@/components/ui/icons";
import { EventView } from "./event-view";
import { useNameOf } from "./use-sender-name";

/** One sentence for the group: routing, accepts, allows; `nameOf` names the agents (`useNameOf`: "Project Manager"). */
export function detailsSummary(events: readonly StoredEvent[], nameOf: (id: string) => string): string {
  const routed = events.flatMap((e) => (isEvent(e, "routing.decision") && typeof e.payload.selected === "string" ? [nameOf(e.payload.selected)] : []));
  const accepted = events.flatMap((e) => (e.type === "task.accept" ? [nameOf(e.from.agent_id)] : []));
  const allowed = events.filter((e) => e.type === "policy.decision").length;
  const calls = events.filter((e) => e.type === "model.usage").length;
  const parts = [
    routed.length ? `Clutch routed it to ${[...new Set(routed)].join(", ")}` : "",
    accepted.length ? `${[...new Set(accepted)].join(", ")} accepted` : "",
    calls ? `${calls} model call${calls === 1 ? "" : "s"}` : "",
    allowed ? `the policy allowed ${allowed} step${allowed === 1 ? "" : "s"}` : "",
  ].filter(Boolean);
  return parts.join(" · ") || `${events.length} step${events.length === 1 ? "" : "s"}`;
}

export function StepDetails({ events }: { events: StoredEvent[] }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const nameOf = useNameOf();
  return (
    <div className="px-4 py-0.5 sm:px-5">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        className="flex w-full min-w-0 items-center gap-1.5 rounded py-0.5 pl-[46px] text-left text-[11.5px] text-fg-subtle hover:text-fg-muted"
      >
        <SettingsIcon size={12} className="shrink-0" />
        <span className="min-w-0 truncate">{detailsSummary(events, nameOf)}</span>
        <span className="ml-auto inline-flex shrink-0 items-center gap-0.5 font-medium">
          Details
          <ChevronRightIcon size={11} className={`transition-transform ${open ? "rotate-90" : ""}`} />
        </span>
      </button>
      {open && (
        <div id={id} className="mt-0.5 rounded-md border border-line bg-sunken/40 py-1">
          {events.map((e) => (
            <EventView key={e.seq} event={e} ctx={{ continued: false }} />
          ))}
        </div>
      )}
    </div>
  );
}
