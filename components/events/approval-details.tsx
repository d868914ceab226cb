"use client";
/**
 * What an approval is about, shared by the channel card (./approval-card.tsx) and the inbox
 * (components/approvals): the facts (agent, action, why the policy asks, who may approve), the
 * deadline counting down, the tool arguments as JSON, the preview as markdown in a bounded
 * scroll box, and an overseer's recommendation.
 */
import { useId, useMemo, useState } from "react";
import type { Approvers, Recommendation, Subject } from "@/lib/fold/approvals";
import { Markdown } from "@/components/markdown/markdown";
import { useMe } from "@/components/identity/me";
import { ClockIcon } from "@/components/ui/icons";
import { JsonView } from "@/components/ui/json-view";
import { formatFull } from "@/components/ui/time";
import { useNow } from "@/components/ui/use-now";
import { approvalWhy, approversLabel, argumentsForDisplay, subjectLabel, timeLeft, toolLabel } from "./approval-model";
import { usePersonLabel } from "@/components/identity/names";
import { useNameOf } from "./use-sender-name";
import { DecisionBadge } from "./review";

/** "Expires in 59 min 12 s", ticking each second while `active`; amber under 5 minutes. */
export function ExpiryCountdown({ iso, active, className = "" }: { iso: string; active: boolean; className?: string }) {
  const now = useNow(active, 1000);
  const left = timeLeft(iso, now);
  if (!left.text) return null;
  return (
    <span
      className={`inline-flex items-center gap-1 tabular-nums ${left.urgent ? "font-semibold text-warning" : "text-fg-muted"} ${className}`}
      title={`Expires ${formatFull(iso)}`}
    >
      <ClockIcon size={12} className="shrink-0" aria-hidden="true" />
      {left.over ? "Expired" : <>Expires in {left.text}</>}
    </span>
  );
}

/** Who may approve, naming the person when they are one of them. */
export function ApproversText({ approvers }: { approvers: Approvers }) {
  const me = useMe().agent_id;
  const label = usePersonLabel();
  if (approvers === "any") return <span>anyone in the workspace</span>;
  return (
    <span>
      {approvers.map((a, i) => (
        <span key={a}>
          {i > 0 && ", "}
          <span className={a === me ? "font-semibold text-fg" : ""} title={a}>
            {label(a)}
            {a === me && " (you)"}
          </span>
        </span>
      ))}
    </span>
  );
}

/**
 * The facts of an approval as a compact definition list; why a person is asked reads in people's
 * words (the policy's `reason`, else the rule made readable; ./approval-model.ts `approvalWhy`),
 * the rule's id as its tooltip.
 */
export function ApprovalFacts({
  subject,
  approvers,
  rule,
  reason,
}: {
  subject: Subject;
  approvers: Approvers;
  rule?: string | null;
  reason?: string | null;
}) {
  const nameOf = useNameOf();
  const personLabel = usePersonLabel();
  const tool = toolLabel(subject);
  const why = approvalWhy(rule, reason);
  const to = subject.recipient ? (subject.recipient === "user" || subject.recipient.startsWith("user:") ? "people in the channel" : nameOf(subject.recipient)) : null;
  return (
    <dl className="mt-1.5 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-[12.5px] leading-5">
      <dt className="text-fg-subtle">Agent</dt>
      <dd className="min-w-0 truncate text-fg" title={subject.agent}>
        {nameOf(subject.agent)}
      </dd>
      <dt className="text-fg-subtle">{subject.kind === "tool_call" ? "Tool" : "Action"}</dt>
      <dd className={`min-w-0 break-words text-fg ${subject.kind === "tool_call" ? "font-mono" : ""}`}>
        {subject.kind === "dispatch" ? "receive a task" : subject.kind === "model_call" ? "go on calling its model over its budget" : tool || "a tool"}
        {to && <span className="font-sans text-fg-muted"> → {to}</span>}
      </dd>
      {why && (
        <>
          <dt className="text-fg-subtle">Why</dt>
          <dd className="min-w-0 break-words text-fg" title={rule ? `Policy rule ${rule}` : undefined}>
            {why}
          </dd>
        </>
      )}
      <dt className="text-fg-subtle">Approvers</dt>
      <dd className="min-w-0 break-words text-fg-muted" aria-label={`Who may approve: ${approversLabel(approvers, personLabel)}`}>
        <ApproversText approvers={approvers} />
      </dd>
    </dl>
  );
}

/** Tool arguments as JSON in a bounded box (long strings wrap). */
export function ArgumentsBlock({ args, label = "Arguments", preview }: { args: Record<string, unknown>; label?: string; preview?: string | null }) {
  const shown = useMemo(() => argumentsForDisplay(args, preview), [args, preview]);
  const empty = Object.keys(args).length === 0;
  return (
    <div className="mt-2">
      <div className="mb-0.5 text-[11px] font-semibold uppercase tracking-wide text-fg-subtle">{label}</div>
      {empty ? <p className="text-xs text-fg-subtle">No arguments</p> : <JsonView value={shown} label={label} maxHeight="max-h-48" wrap />}
    </div>
  );
}

/** The markdown preview (the report the agent wants to send) in a bounded, scrollable box. */
export function PreviewBox({ markdown, label = "Preview" }: { markdown: string; label?: string }) {
  const [all, setAll] = useState(false);
  const id = useId();
  const long = markdown.length > 700 || markdown.split("\n").length > 14;
  return (
    <div className="mt-2">
      <div className="mb-0.5 flex items-center justify-between gap-2">
        <span id={id} className="text-[11px] font-semibold uppercase tracking-wide text-fg-subtle">
          {label}
        </span>
        {long && (
          <button type="button" onClick={() => setAll((a) => !a)} className="text-[11px] font-medium text-accent hover:underline">
            {all ? "Collapse" : "Show all"}
          </button>
        )}
      </div>
      <div
        role="region"
        aria-labelledby={id}
        tabIndex={0}
        className={`scroll-slim overflow-auto rounded-md border border-line bg-canvas px-3 py-2 text-[13.5px] leading-[1.45] text-fg ${
          all ? "" : "max-h-48 sm:max-h-64"
        }`}
      >
        <Markdown text={markdown} />
      </div>
    </div>
  );
}

function commentsOf(c: unknown): string[] {
  if (typeof c === "string") return c.trim() ? [c] : [];
  if (Array.isArray(c)) return c.filter((x): x is string => typeof x === "string" && x.trim() !== "");
  return [];
}

/** An overseer agent's verdict, for a person to confirm. */
export function RecommendationBox({ rec, by }: { rec: Recommendation; by?: string }) {
  const comments = commentsOf(rec.comments);
  const nameOf = useNameOf();
  return (
    <div className="mt-2 rounded-md border border-agent/25 bg-agent/[0.05] px-2.5 py-1.5 text-[13px]" aria-label="Recommendation">
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-[11px] font-semibold uppercase tracking-wide text-agent">{by ? `${nameOf(by)} recommends` : "Overseer recommends"}</span>
        <DecisionBadge decision={rec.decision} />
      </div>
      {comments.length > 0 && (
        <ul className="mt-1 list-disc space-y-0.5 pl-5 text-fg-muted marker:text-fg-subtle">
          {comments.map((c, i) => (
            <li key={i} className="break-words">
              {c}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** One line: "Analyst → DataServer.process_data", the ids as the tooltip ("analyst-1 → DataServer.process_data"). */
export function SubjectText({ subject, className = "" }: { subject: Subject; className?: string }) {
  const nameOf = useNameOf();
  return (
    <span className={`font-mono ${className}`} title={subjectLabel(subject)}>
      {subjectLabel(subject, nameOf)}
    </span>
  );
}
