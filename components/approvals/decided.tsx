"use client";
/** How a decided approval reads in the inbox: its state badge, and a line saying who decided, when and why. */
import type { ApprovalSummary } from "@/lib/api/types";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { StatusBadge } from "@/components/ui/chip";
import { formatFull, formatTime } from "@/components/ui/time";
import { STATE_WORD } from "./model";

/** The decided state as a badge: Approved, Rejected or Expired. */
export function DecidedBadge({ a }: { a: ApprovalSummary }) {
  const tone = a.state === "granted" ? "success" : a.state === "rejected" ? "danger" : "neutral";
  return (
    <StatusBadge tone={tone} label={`State: ${STATE_WORD[a.state]}`}>
      {STATE_WORD[a.state]}
    </StatusBadge>
  );
}

/** Who decided and when, with their comment; or that nobody decided in time. */
export function DecidedLine({ a }: { a: ApprovalSummary }) {
  const me = useMe();
  const label = usePersonLabel();
  const by = a.decided_by ? label(a.decided_by) : null;
  return (
    <p className="mt-1 text-[12.5px] text-fg-muted">
      {a.state === "expired" ? (
        "Nobody decided in time"
      ) : by ? (
        <>
          by <span className="font-medium text-fg">{by}</span>
          {a.decided_by === me.agent_id ? " (you)" : ""}
        </>
      ) : null}
      {a.decided_at && (
        <>
          {" "}
          <time dateTime={a.decided_at} title={formatFull(a.decided_at)}>
            · {formatTime(a.decided_at)}
          </time>
        </>
      )}
      {a.comment && <span className="break-words"> · “{a.comment}”</span>}
    </p>
  );
}
