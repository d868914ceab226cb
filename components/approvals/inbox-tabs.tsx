"use client";
/** The inbox's tabs: Pending (with how many wait) and Recently decided. */
import type { InboxTab } from "./model";

/** The tab list; tab `t` is `${idBase}-${t}` and controls `${idBase}-panel`. */
export function InboxTabs({ tab, onChange, pendingCount, idBase }: { tab: InboxTab; onChange: (t: InboxTab) => void; pendingCount: number; idBase: string }) {
  return (
    <div className="shrink-0 border-b border-line px-3 pt-2 sm:px-5">
      <div role="tablist" aria-label="Approvals" className="mx-auto -mb-px flex max-w-4xl gap-4">
        {(["pending", "decided"] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`${idBase}-${t}`}
            aria-selected={tab === t}
            aria-controls={`${idBase}-panel`}
            onClick={() => onChange(t)}
            className={`inline-flex h-9 items-center gap-1.5 border-b-2 px-0.5 text-[13.5px] font-semibold ${
              tab === t ? "border-accent text-fg" : "border-transparent text-fg-muted hover:text-fg"
            }`}
          >
            {t === "pending" ? "Pending" : "Recently decided"}
            {t === "pending" && pendingCount > 0 && (
              <span className="inline-flex h-[18px] min-w-[18px] items-center justify-center rounded-full bg-warning/15 px-1.5 text-[11px] font-bold tabular-nums text-warning">
                {pendingCount}
              </span>
            )}
          </button>
        ))}
      </div>
    </div>
  );
}
