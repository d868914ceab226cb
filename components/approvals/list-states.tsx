"use client";
/** What the inbox shows instead of its list: while it loads, when loading failed, and when there is nothing to list. */
import { ApiRequestError } from "@/components/live/api";
import { ShieldCheckIcon } from "@/components/ui/icons";
import type { InboxTab } from "./model";

/**
 * Nothing to list: no pending approvals, no decisions yet, or none that pass the filters
 * (`hidden` of the tab's approvals are filtered out).
 */
export function EmptyList({ tab, filtered, hidden, onClear }: { tab: InboxTab; filtered: boolean; hidden: number; onClear: () => void }) {
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-16 text-center" role="status">
      <div className="inline-flex h-12 w-12 items-center justify-center rounded-2xl bg-success/12 text-success">
        <ShieldCheckIcon size={24} />
      </div>
      {filtered ? (
        <>
          <h2 className="text-base font-semibold">No approvals match these filters</h2>
          {hidden > 0 && (
            <p className="text-sm text-fg-muted">
              {hidden} {tab === "pending" ? "pending" : "decided"} approval{hidden === 1 ? " is" : "s are"} hidden by them.
            </p>
          )}
          <button type="button" onClick={onClear} className="text-sm font-medium text-accent hover:underline">
            Clear filters
          </button>
        </>
      ) : tab === "pending" ? (
        <>
          <h2 className="text-base font-semibold">Nothing is waiting for approval</h2>
          <p className="max-w-sm text-sm text-fg-muted">
            When a policy rule asks a person to approve a step, it shows up here and as a card in its channel.
          </p>
        </>
      ) : (
        <>
          <h2 className="text-base font-semibold">No decisions yet</h2>
          <p className="max-w-sm text-sm text-fg-muted">Approvals that were approved, rejected or expired are listed here.</p>
        </>
      )}
    </div>
  );
}

/** Grey rows while the list loads. */
export function ListSkeleton() {
  return (
    <div className="mx-auto max-w-4xl space-y-2 px-3 py-3 sm:px-5" role="status" aria-busy="true" aria-label="Loading approvals">
      {[0.7, 0.5, 0.6].map((w, i) => (
        <div key={i} className="animate-pulse rounded-lg border border-line px-4 py-3">
          <div className="h-3.5 rounded bg-fg-muted/15" style={{ width: `${w * 100}%` }} />
          <div className="mt-2 h-3 w-1/2 rounded bg-fg-muted/10" />
        </div>
      ))}
    </div>
  );
}

/** The list could not be loaded: why, and a way to try again. */
export function LoadError({ error, onRetry }: { error: Error; onRetry: () => void }) {
  return (
    <div role="alert" className="flex flex-col items-center gap-2 p-8 text-center">
      <p className="font-medium">Couldn’t load approvals.</p>
      <p className="text-sm text-fg-muted">
        {error instanceof ApiRequestError && error.status === 404 ? "This server does not offer the approvals API." : error.message}
      </p>
      <button type="button" onClick={onRetry} className="text-sm font-medium text-accent hover:underline">
        Try again
      </button>
    </div>
  );
}
