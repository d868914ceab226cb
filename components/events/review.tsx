"use client";
/**
 * `ReviewFeedback`: an overseer's verdict ("qa-1 approves"), payload type review.feedback.v1
 * (Clutch Protocol §3.3): the decision as a coloured badge (approved green, changes
 * requested amber, rejected red), the comments and the blocking issues.
 */
import { useState } from "react";
import { BUILTIN_PAYLOAD_TYPES } from "@/lib/protocol";
import { StatusBadge, type Tone } from "@/components/ui/chip";
import { AlertIcon, CheckIcon, XCircleIcon } from "@/components/ui/icons";

const DECISION: Record<string, { tone: Tone; label: string; icon: React.ReactNode }> = {
  approved: { tone: "success", label: "Approved", icon: <CheckIcon size={11} strokeWidth={3} /> },
  changes_requested: { tone: "warning", label: "Changes requested", icon: <AlertIcon size={11} strokeWidth={2.5} /> },
  rejected: { tone: "danger", label: "Rejected", icon: <XCircleIcon size={11} strokeWidth={2.5} /> },
};

/** Left border colour of a review card by decision. */
export const DECISION_ACCENT: Record<string, string> = {
  approved: "border-l-success",
  changes_requested: "border-l-warning",
  rejected: "border-l-danger",
};

/** The decision of a review.feedback.v1 payload, or null when the payload is not one. */
export function reviewDecision(payload: unknown): string | null {
  const r = BUILTIN_PAYLOAD_TYPES["review.feedback.v1"].safeParse(payload);
  return r.success ? r.data.decision : null;
}

/** A blocking issue as text: a string, or an object's message/title/description. */
function issueText(issue: unknown): string {
  if (typeof issue === "string") return issue;
  if (issue && typeof issue === "object") {
    const o = issue as Record<string, unknown>;
    for (const k of ["message", "title", "description", "issue", "text"]) {
      const text = o[k];
      if (typeof text === "string") return text;
    }
    try {
      return JSON.stringify(issue);
    } catch {
      return String(issue);
    }
  }
  return String(issue);
}

/** The decision badge alone (also used in headers). */
export function DecisionBadge({ decision }: { decision: string }) {
  const d = DECISION[decision] ?? { tone: "neutral" as Tone, label: decision, icon: null };
  return (
    <StatusBadge tone={d.tone} label={`Decision: ${d.label}`}>
      {d.icon}
      {d.label}
    </StatusBadge>
  );
}

/**
 * A review.feedback.v1 result: decision (unless the card's header shows it already), comments,
 * blocking issues; null when the payload is not one.
 */
export function ReviewFeedback({ payload, showDecision = true }: { payload: unknown; showDecision?: boolean }) {
  const [all, setAll] = useState(false);
  const r = BUILTIN_PAYLOAD_TYPES["review.feedback.v1"].safeParse(payload);
  if (!r.success) return null;
  const { decision, blocking_issues } = r.data;
  const comments = (Array.isArray(r.data.comments) ? r.data.comments : [r.data.comments]).filter((c) => c.trim());
  const long = comments.length > 2 || comments.some((c) => c.length > 220);
  return (
    <div className="mt-1 text-[13px]" aria-label="Review feedback">
      <div className="flex flex-wrap items-center gap-2">
        {showDecision && <DecisionBadge decision={decision} />}
        <span className="text-xs text-fg-muted">
          {blocking_issues.length === 0
            ? "No blocking issues"
            : `${blocking_issues.length} blocking issue${blocking_issues.length === 1 ? "" : "s"}`}
        </span>
      </div>
      {blocking_issues.length > 0 && (
        <ul className="mt-1.5 space-y-0.5" aria-label="Blocking issues">
          {blocking_issues.map((b, i) => (
            <li key={i} className="flex gap-1.5 text-fg">
              <XCircleIcon size={13} className="mt-[3px] shrink-0 text-danger" />
              <span className="min-w-0 break-words">{issueText(b)}</span>
            </li>
          ))}
        </ul>
      )}
      {comments.length > 0 && (
        <>
          <ul className="mt-1.5 list-disc space-y-0.5 pl-5 text-fg-muted marker:text-fg-subtle" aria-label="Review comments">
            {(all ? comments : comments.slice(0, 2)).map((c, i) => (
              <li key={i} className="break-words">
                <span className={all ? "" : "line-clamp-2"}>{c}</span>
              </li>
            ))}
          </ul>
          {long && (
            <button type="button" onClick={() => setAll((a) => !a)} className="mt-0.5 text-xs font-medium text-accent hover:underline">
              {all ? "Show less" : `Show all ${comments.length} comment${comments.length === 1 ? "" : "s"}`}
            </button>
          )}
        </>
      )}
    </div>
  );
}
