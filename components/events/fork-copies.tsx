"use client";
/**
 * `ForkCopies`: the top of a fork's thread. The events the fork copied from the run it was forked
 * from (`meta.forked_from`, Clutch Protocol §8.3) as one line, "Re-run from event #46 of
 * run abc123 · 46 earlier events copied", with a link to that run at the fork point and the
 * copies themselves behind "Show" (docs/channels.md "Forks"; components/thread/rows.ts groups them).
 */
import Link from "next/link";
import { useId, useState } from "react";
import type { StoredEvent } from "@/lib/protocol";
import { ChevronRightIcon } from "@/components/ui/icons";
import { ForkIcon } from "@/components/run/icons";
import { EventView } from "./event-view";

/** Where the copies came from: the source run and the seq the fork was made at, if the copies say. */
export function forkSource(events: readonly StoredEvent[]): { run_id: string; at_seq: number } | null {
  const from = events[0]?.meta?.forked_from as { run_id?: unknown; at_seq?: unknown } | undefined;
  return typeof from?.run_id === "string" && typeof from.at_seq === "number" ? { run_id: from.run_id, at_seq: from.at_seq } : null;
}

export function ForkCopies({ events }: { events: StoredEvent[] }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const source = forkSource(events);
  const n = events.length;
  return (
    <div className="px-4 py-1 sm:px-5" data-testid="fork-copies">
      <div className="flex min-w-0 flex-wrap items-center gap-x-1.5 gap-y-0.5 rounded-md border border-line bg-sunken/50 px-2.5 py-1.5 text-[12.5px] text-fg-muted">
        <ForkIcon size={13} className="shrink-0 text-fg-subtle" />
        <span className="min-w-0">
          Re-run{" "}
          {source ? (
            <>
              from event #{source.at_seq} of{" "}
              <Link href={`/runs/${encodeURIComponent(source.run_id)}?at=${source.at_seq}`} className="font-medium text-accent hover:underline">
                the original run
              </Link>
            </>
          ) : (
            "of an earlier run"
          )}
          : {n} earlier event{n === 1 ? "" : "s"} copied, the rest done again.
        </span>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen(!open)}
          className="ml-auto inline-flex shrink-0 items-center gap-0.5 rounded font-medium hover:text-fg"
        >
          {open ? "Hide" : "Show"} the copies
          <ChevronRightIcon size={11} className={`transition-transform ${open ? "rotate-90" : ""}`} />
        </button>
      </div>
      {open && (
        <div id={id} className="mt-1 rounded-md border border-line bg-sunken/30 py-1">
          {events.map((e) => (
            <EventView key={e.seq} event={e} ctx={{ continued: false }} />
          ))}
        </div>
      )}
    </div>
  );
}
