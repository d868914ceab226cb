"use client";
/**
 * `InboxItem`: one approval in the inbox's list, a compact row (what, where, which agent and
 * tool, how long ago, the deadline or the decision). The selected item is outlined, holds the
 * focus and shows its details and decision bar (./item-details.tsx).
 */
import { useId, type Ref } from "react";
import type { ApprovalSummary } from "@/lib/api/types";
import type { ApprovalActionsHandle } from "@/components/events/approval-actions";
import { ExpiryCountdown } from "@/components/events/approval-details";
import { subjectLabel } from "@/components/events/approval-model";
import { HourglassIcon, ShieldAlertIcon, ShieldCheckIcon, ShieldXIcon } from "@/components/ui/icons";
import { formatFull } from "@/components/ui/time";
import { useNow } from "@/components/ui/use-now";
import { DecidedBadge, DecidedLine } from "./decided";
import { ItemDetails } from "./item-details";
import { ago, kindLabel, subjectOf } from "./model";
import { useApprovalNames } from "./names";

function StateIcon({ state }: { state: ApprovalSummary["state"] }) {
  if (state === "granted") return <ShieldCheckIcon size={16} className="text-success" />;
  if (state === "rejected") return <ShieldXIcon size={16} className="text-danger" />;
  if (state === "expired") return <HourglassIcon size={15} className="text-fg-subtle" />;
  return <ShieldAlertIcon size={16} className="text-warning" />;
}

/** One approval: a compact row, expanded with details and actions while selected. */
export function InboxItem({
  approval: a,
  selected,
  onSelect,
  actionsRef,
  onFormClosed,
  onDecided,
}: {
  approval: ApprovalSummary;
  selected: boolean;
  onSelect: () => void;
  /** The decision bar's handle, for the keyboard (the selected item only). */
  actionsRef?: Ref<ApprovalActionsHandle>;
  /** A form was closed without deciding. */
  onFormClosed: () => void;
  onDecided: (d: "approve" | "reject") => void;
}) {
  const pending = a.state === "pending";
  const now = useNow(true, 15_000);
  const titleId = useId();
  const { nameOf, channel } = useApprovalNames();
  return (
    <li
      data-approval-item={a.approval_id}
      data-selected={selected || undefined}
      tabIndex={selected ? 0 : -1}
      aria-labelledby={titleId}
      aria-current={selected ? "true" : undefined}
      onFocus={(e) => {
        if (e.target === e.currentTarget && !selected) onSelect();
      }}
      onClick={(e) => {
        if (!selected && !(e.target instanceof HTMLElement && e.target.closest("a, button, input, textarea, select"))) onSelect();
      }}
      className={`group relative scroll-my-3 rounded-lg border bg-surface outline-none transition-shadow ${
        selected
          ? "border-accent/60 shadow-pop ring-2 ring-accent/40 focus-visible:ring-accent"
          : "cursor-pointer border-line hover:border-line-strong hover:bg-hover/40"
      }`}
    >
      <div className="flex gap-3 px-3 py-2.5 sm:px-4">
        <div className="pt-0.5">
          <StateIcon state={a.state} />
        </div>
        <div className="min-w-0 flex-1">
          <div className="flex items-start gap-2">
            <h2 id={titleId} className={`min-w-0 flex-1 text-[14px] font-semibold leading-5 text-fg ${selected ? "" : "line-clamp-2"}`}>
              {a.summary}
            </h2>
            {pending ? (
              <ExpiryCountdown iso={a.expires_at} active className="shrink-0 text-xs max-sm:hidden" />
            ) : (
              <DecidedBadge a={a} />
            )}
          </div>
          <p className="mt-0.5 flex flex-wrap items-center gap-x-1.5 gap-y-0.5 text-[12px] text-fg-muted">
            <span className="font-medium text-fg">{a.outside_dm ? "In a direct message" : channel(a)}</span>
            {a.run_title && (
              <>
                <span aria-hidden="true">·</span>
                <span className="min-w-0 max-w-[22rem] truncate" title={`Run: ${a.run_title}`}>
                  <span className="sr-only">Run: </span>
                  {a.run_title}
                </span>
              </>
            )}
            <span aria-hidden="true">·</span>
            <span className="min-w-0 truncate font-mono text-[11.5px]" title={subjectLabel(subjectOf(a))}>
              {subjectLabel(subjectOf(a), nameOf)}
            </span>
            <span aria-hidden="true">·</span>
            <span>{kindLabel(a.kind)}</span>
            <span aria-hidden="true">·</span>
            <time dateTime={a.requested_at} title={formatFull(a.requested_at)}>
              {ago(a.requested_at, now)}
            </time>
            {pending && (
              <span className="sm:hidden">
                <span aria-hidden="true">· </span>
                <ExpiryCountdown iso={a.expires_at} active />
              </span>
            )}
          </p>
          {!pending && <DecidedLine a={a} />}
          {selected && (
            <ItemDetails
              approval={a}
              expired={pending && Date.parse(a.expires_at) <= now}
              actionsRef={actionsRef}
              onFormClosed={onFormClosed}
              onDecided={onDecided}
            />
          )}
        </div>
      </div>
    </li>
  );
}

