"use client";
/**
 * Policy decision renderers: each decision of the policy is an event (policy.decision, with the
 * rule that matched and why; docs/protocol.md), shown compactly in the channel:
 *
 * - `PolicyDecisionLine`: one line — shield, the decision as a chip coloured by kind, the
 *   subject ("Analyst → DataServer.process_data"), the rule id; the reason on hover and, with
 *   the limits, delay and subject details, when the line is expanded. Allow is quiet (small,
 *   grey); deny, approval and throttle stand out and show their reason inline.
 * - `PolicyAllowGroup`: consecutive allow decisions folded into one quiet line ("Policy allowed
 *   3 actions"), expandable to the single lines (components/thread/rows.ts groups them).
 *
 * Agents read by their card's display name (docs/channels.md "One name per agent"); the details
 * give the id beside it.
 */
import { useId, useState } from "react";
import type { PayloadOf, StoredEventOf } from "@/lib/protocol";
import type { ApprovalView, Subject } from "@/lib/fold/approvals";
import { ChevronRightIcon, ShieldAlertIcon, ShieldCheckIcon, ShieldIcon, ShieldXIcon } from "@/components/ui/icons";
import { formatDuration } from "@/components/ui/time";
import { subjectLabel } from "./approval-model";
import { EventTime } from "./event-shell";
import { JsonView } from "@/components/ui/json-view";
import { useThreadActions } from "./thread-actions";
import { useNameOf } from "./use-sender-name";
import { usePersonLabel } from "@/components/identity/names";

type Decision = PayloadOf<"policy.decision">["decision"];

const KIND: Record<Decision, { label: string; chip: string; icon: React.ReactNode }> = {
  allow: { label: "Allowed", chip: "bg-fg-muted/10 text-fg-subtle ring-fg-muted/15", icon: <ShieldCheckIcon size={13} className="text-fg-subtle" /> },
  deny: { label: "Denied", chip: "bg-danger/12 text-danger ring-danger/25", icon: <ShieldXIcon size={14} className="text-danger" /> },
  require_approval: {
    label: "Needs approval",
    chip: "bg-warning/12 text-warning ring-warning/25",
    icon: <ShieldAlertIcon size={14} className="text-warning" />,
  },
  throttle: { label: "Throttled", chip: "bg-info/12 text-info ring-info/25", icon: <ShieldIcon size={14} className="text-info" /> },
  constrain: { label: "Constrained", chip: "bg-agent/12 text-agent ring-agent/25", icon: <ShieldIcon size={14} className="text-agent" /> },
};

function DecisionChip({ decision }: { decision: Decision }) {
  const k = KIND[decision] ?? KIND.allow;
  return (
    <span className={`inline-flex shrink-0 items-center rounded-full px-1.5 text-[10.5px] font-semibold leading-4 ring-1 ring-inset ${k.chip}`}>
      {k.label}
    </span>
  );
}

function limitsText(limits: Record<string, unknown> | undefined): string {
  if (!limits) return "";
  const parts: string[] = [];
  if (typeof limits.max_tool_calls === "number") parts.push(`≤ ${limits.max_tool_calls} tool calls`);
  if (typeof limits.max_tokens === "number") parts.push(`≤ ${limits.max_tokens} tokens`);
  if (Array.isArray(limits.sandbox_only_tools) && limits.sandbox_only_tools.length) parts.push(`sandbox only: ${limits.sandbox_only_tools.join(", ")}`);
  return parts.join(" · ");
}

/** The subject's details beyond its one-line label; an agent as "Project Manager (agent:pm-1)". */
function SubjectDetails({ subject }: { subject: Subject }) {
  const label = usePersonLabel();
  const who = (id: string) => (id === "user" ? "people in the channel" : `${label(id)} (${id})`);
  const rows: [string, string][] = [];
  rows.push(["Kind", subject.kind === "dispatch" ? "task dispatch" : subject.kind === "model_call" ? "model call (budget)" : "tool call"]);
  rows.push(["Agent", who(subject.agent)]);
  if (subject.tool) rows.push(["Tool", subject.server_id ? `${subject.server_id} · ${subject.tool}` : subject.tool]);
  if (subject.recipient) rows.push(["Recipient", who(subject.recipient)]);
  if (subject.payload_type) rows.push(["Payload type", subject.payload_type]);
  if (subject.domain) rows.push(["Domain", subject.domain]);
  if (subject.capabilities?.length) rows.push(["Capabilities", subject.capabilities.join(", ")]);
  if (subject.risk_tags?.length) rows.push(["Risk tags", subject.risk_tags.join(", ")]);
  if (subject.run_labels?.length) rows.push(["Run labels", subject.run_labels.join(", ")]);
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 text-[12px] leading-[1.15rem]">
      {rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-fg-subtle">{k}</dt>
          <dd className="min-w-0 break-words font-mono text-fg-muted">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One policy decision (see the file comment). `approval`: the approval it opened, if any. */
export function PolicyDecisionLine({
  event,
  approval,
  nested = false,
}: {
  event: StoredEventOf<"policy.decision">;
  approval?: ApprovalView;
  nested?: boolean;
}) {
  const p = event.payload;
  const [open, setOpen] = useState(false);
  const id = useId();
  const { jumpTo } = useThreadActions();
  const quiet = p.decision === "allow";
  const k = KIND[p.decision] ?? KIND.allow;
  const nameOf = useNameOf();
  const subject = subjectLabel(p.subject, nameOf);
  const extra =
    p.decision === "throttle" && typeof p.delay_ms === "number"
      ? `retry in ${formatDuration(p.delay_ms)}`
      : p.decision === "constrain"
        ? limitsText(p.limits)
        : "";
  const label = `Policy ${k.label.toLowerCase()}: ${subject}${p.rule ? ` (rule ${p.rule})` : ""}`;
  return (
    <article
      data-seq={event.seq}
      data-msg-id={event.id}
      aria-label={label}
      className={`group relative flex gap-2.5 px-4 sm:px-5 ${nested ? "py-0" : quiet ? "py-px" : "py-[3px]"} ${quiet ? "text-[12px] leading-[1.15rem]" : "text-[13px] leading-5"} hover:bg-hover/70`}
    >
      <div className="flex w-9 shrink-0 justify-center pt-px">{nested ? null : k.icon}</div>
      <div className="min-w-0 flex-1">
        <div className="flex min-w-0 items-baseline gap-x-1.5">
          <button
            type="button"
            aria-expanded={open}
            aria-controls={id}
            onClick={() => setOpen((o) => !o)}
            title={p.reason}
            className={`flex min-w-0 flex-1 items-baseline gap-x-1.5 rounded text-left ${quiet ? "text-fg-subtle" : "text-fg-muted"} hover:text-fg`}
          >
            <ChevronRightIcon size={11} className={`shrink-0 self-center transition-transform ${open ? "rotate-90" : ""} ${quiet ? "opacity-60" : ""}`} />
            {nested && <span className="shrink-0 self-center">{k.icon}</span>}
            <DecisionChip decision={p.decision} />
            <span className={`min-w-0 shrink truncate font-mono ${quiet ? "text-[11.5px]" : "text-[12px] text-fg"}`}>{subject}</span>
            {p.rule && <span className="shrink-0 font-mono text-[11px] text-fg-subtle max-sm:hidden">· {p.rule}</span>}
            {!quiet && extra && <span className="shrink-0 text-[12px] text-fg-muted">· {extra}</span>}
            {!quiet && <span className="min-w-0 flex-1 truncate text-[12px] text-fg-muted max-sm:hidden">— {p.reason}</span>}
          </button>
          <EventTime event={event} className="shrink-0 text-[11px] text-fg-subtle" />
        </div>
        {open && (
          <div id={id} className="mb-1 mt-1 max-w-2xl rounded-md border border-line bg-sunken/60 px-2.5 py-1.5">
            <p className="text-[12.5px] text-fg">
              <span className="font-semibold">{p.rule ? <>Rule <span className="font-mono">{p.rule}</span></> : "No rule matched (default)"}</span>
              {": "}
              {p.reason}
            </p>
            {typeof p.delay_ms === "number" && <p className="mt-0.5 text-xs text-fg-muted">Delayed {formatDuration(p.delay_ms)}, then tried again.</p>}
            <div className="mt-1">
              <SubjectDetails subject={p.subject} />
            </div>
            {p.limits && Object.keys(p.limits).length > 0 && <JsonView className="mt-1" value={p.limits} label="Limits" maxHeight="max-h-40" />}
            {approval && (
              <button type="button" onClick={() => jumpTo(approval.request.id)} className="mt-1 text-xs font-medium text-accent hover:underline">
                Show the approval card
              </button>
            )}
          </div>
        )}
      </div>
    </article>
  );
}

/** Consecutive allow decisions as one quiet line that expands to each (see the file comment). */
export function PolicyAllowGroup({ events }: { events: readonly StoredEventOf<"policy.decision">[] }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const nameOf = useNameOf();
  const subjects = [...new Set(events.map((e) => subjectLabel(e.payload.subject, nameOf)))];
  const first = events[0];
  const last = events[events.length - 1];
  if (!first || !last) return null;
  return (
    <div data-seq={first.seq} aria-label={`Policy allowed ${events.length} actions`} role="group">
      <div className="group relative flex gap-2.5 px-4 py-px text-[12px] leading-[1.15rem] hover:bg-hover/70 sm:px-5">
        <div className="flex w-9 shrink-0 justify-center pt-px">
          <ShieldCheckIcon size={13} className="text-fg-subtle" />
        </div>
        <div className="flex min-w-0 flex-1 items-baseline gap-x-1.5">
          <button
            type="button"
            aria-expanded={open}
            aria-controls={id}
            onClick={() => setOpen((o) => !o)}
            className="flex min-w-0 flex-1 items-baseline gap-x-1.5 rounded text-left text-fg-subtle hover:text-fg"
          >
            <ChevronRightIcon size={11} className={`shrink-0 self-center opacity-60 transition-transform ${open ? "rotate-90" : ""}`} />
            <DecisionChip decision="allow" />
            <span className="shrink-0">
              {events.length} policy checks
            </span>
            <span className="min-w-0 flex-1 truncate font-mono text-[11.5px]">· {subjects.join(", ")}</span>
          </button>
          <EventTime event={last} className="shrink-0 text-[11px] text-fg-subtle" />
        </div>
      </div>
      {open && (
        <div id={id} className="pb-0.5">
          {events.map((e) => (
            <PolicyDecisionLine key={e.seq} event={e} nested />
          ))}
        </div>
      )}
    </div>
  );
}
