"use client";
/**
 * Approval renderers (a `require_approval` policy decision posts an approval card in the
 * channel; docs/protocol.md, Clutch's extension types):
 *
 * - `ApprovalCard` (approval.requested): what will happen — the summary, who may approve, the
 *   deadline counting down, the preview as markdown in a bounded box, an overseer's
 *   recommendation; the agent, the tool and why the policy asks, and the arguments as JSON,
 *   behind "Details" — and, while pending, Approve,
 *   Reject (with a comment) and Edit arguments then approve. Once decided it shows the outcome
 *   (approved, rejected, expired; who, when, the comment, edited arguments), folded from the
 *   later events (lib/fold/approvals.ts).
 * - `ApprovalOutcomeLine` (approval.granted / rejected / expired): a compact line that links
 *   back to the card.
 */
import { useState } from "react";
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { foldApproval, type ApprovalView } from "@/lib/fold/approvals";
import { requestersOf } from "@/lib/approvers";
import { StatusBadge } from "@/components/ui/chip";
import { Disclosure } from "@/components/ui/disclosure";
import { CheckIcon, HourglassIcon, ShieldAlertIcon, ShieldCheckIcon, ShieldXIcon } from "@/components/ui/icons";
import { JsonView } from "@/components/ui/json-view";
import { formatFull, formatTime } from "@/components/ui/time";
import { useNow } from "@/components/ui/use-now";
import { ApprovalActions } from "./approval-actions";
import { ApprovalFacts, ApproversText, ArgumentsBlock, ExpiryCountdown, PreviewBox, RecommendationBox, SubjectText } from "./approval-details";
import { usePersonLabel } from "@/components/identity/names";
import { LineRow, SenderRow } from "./event-shell";
import { useThreadActions } from "./thread-actions";

/** A person's decision: approval.granted or approval.rejected. */
type Decision = StoredEventOf<"approval.granted" | "approval.rejected">;

/** Who decided: the display name the decision carries, else `label`'s name for the id. */
function decider(ev: Decision, label: (id: string) => string): string {
  return ev.payload.display_name?.trim() || label(ev.payload.by);
}

/** The decision's comment, trimmed; null when there is none. */
function commentOf(ev: StoredEvent | null): string | null {
  const c = ev && isEvent(ev, "approval.granted", "approval.rejected") ? ev.payload.comment?.trim() : undefined;
  return c || null;
}

const EDGE = {
  pending: "border-l-warning",
  granted: "border-l-success",
  rejected: "border-l-danger",
  expired: "border-l-fg-subtle",
} as const;

/** The state badge of an approval. */
export function ApprovalStateBadge({ view, now }: { view: Pick<ApprovalView, "state" | "expires_at" | "escalation">; now: number }) {
  if (view.state === "granted")
    return (
      <StatusBadge tone="success" label="Approval: approved">
        <CheckIcon size={11} strokeWidth={3} />
        Approved
      </StatusBadge>
    );
  if (view.state === "rejected") return <StatusBadge tone="danger" label="Approval: rejected">Rejected</StatusBadge>;
  if (view.state === "expired") return <StatusBadge tone="neutral" label="Approval: expired">Expired</StatusBadge>;
  const over = Date.parse(view.expires_at) <= now;
  return (
    <StatusBadge tone="warning" label={over ? "Approval: past its deadline" : "Approval: waiting for a decision"}>
      <span className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" aria-hidden="true" />
      {view.escalation ? "Escalated" : over ? "Past deadline" : "Waiting for approval"}
    </StatusBadge>
  );
}

/** The decided state as a sentence with who, when and the comment. */
function Outcome({ view }: { view: ApprovalView }) {
  const label = usePersonLabel();
  const ev = view.outcome;
  if (!ev) return null;
  const comment = commentOf(ev);
  const edited = ev.type === "approval.granted" ? ev.payload.arguments : undefined;
  const tone =
    view.state === "granted"
      ? "border-success/30 bg-success/[0.06]"
      : view.state === "rejected"
        ? "border-danger/30 bg-danger/[0.05]"
        : "border-line bg-sunken/70";
  return (
    <div className={`mt-2 rounded-md border px-2.5 py-1.5 text-[13px] ${tone}`} aria-label="Outcome">
      <p className="flex flex-wrap items-center gap-x-1.5">
        {view.state === "granted" ? (
          <ShieldCheckIcon size={14} className="shrink-0 text-success" />
        ) : view.state === "rejected" ? (
          <ShieldXIcon size={14} className="shrink-0 text-danger" />
        ) : (
          <HourglassIcon size={13} className="shrink-0 text-fg-muted" />
        )}
        {ev.type === "approval.expired" ? (
          <span className="text-fg">
            Nobody decided in time: <span className="font-semibold">rejected automatically</span>
          </span>
        ) : (
          <span className="text-fg">
            <span className="font-semibold">{view.state === "granted" ? "Approved" : "Rejected"}</span> by{" "}
            <span className="font-semibold">{decider(ev, label)}</span>
            {edited !== undefined && <span className="text-fg-muted"> with edited arguments</span>}
          </span>
        )}
        <time dateTime={ev.ts} title={formatFull(ev.ts)} className="text-xs text-fg-muted">
          · {formatTime(ev.ts)}
        </time>
      </p>
      {comment && (
        <blockquote className="mt-1 whitespace-pre-wrap break-words border-l-2 border-line-strong pl-2 text-fg-muted">{comment}</blockquote>
      )}
      {edited && (
        <Disclosure className="mt-1" label="Arguments as approved">
          <JsonView value={edited} label="Arguments as approved" maxHeight="max-h-48" />
        </Disclosure>
      )}
    </div>
  );
}

/** The approval card (see the file comment). `approval` is the request folded with its later events. */
export function ApprovalCard({ event, continued, approval }: { event: StoredEvent; continued: boolean; approval?: ApprovalView }) {
  const view = approval ?? foldApproval(undefined, event);
  const pending = view?.state === "pending";
  // The countdown ticks on its own; the card only needs to notice the deadline passing.
  const now = useNow(pending, 5000);
  const [editing, setEditing] = useState(false);
  const runTitle = useThreadActions().runTitle?.(event.run_id) ?? null;
  const personLabel = usePersonLabel();
  if (!view) return null;
  const p = view.payload;
  const over = pending && Date.parse(view.expires_at) <= now;
  const escalatedTo = view.escalation?.payload.escalated_to ?? [];
  return (
    <SenderRow event={event} continued={continued} label={`Approval ${view.state === "pending" ? "needed" : view.state}: ${p.summary}`}>
      <div
        role="group"
        aria-label="Approval"
        data-approval-id={view.approval_id}
        data-approval-state={view.state}
        className={`mt-1 max-w-2xl rounded-lg border border-l-[3px] border-line bg-surface px-3 py-2 shadow-[0_1px_0_rgb(0_0_0/0.02)] ${EDGE[view.state]} ${
          pending ? "ring-1 ring-warning/25" : ""
        }`}
      >
        <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <ShieldAlertIcon size={14} className={`shrink-0 ${pending ? "text-warning" : "text-fg-subtle"}`} />
          <span className={`text-[11px] font-semibold uppercase tracking-wide ${pending ? "text-warning" : "text-fg-muted"}`}>
            {pending ? "Approval needed" : "Approval"}
          </span>{" "}
          <ApprovalStateBadge view={view} now={now} />
          {pending && <ExpiryCountdown iso={view.expires_at} active className="ml-auto text-xs" />}
        </header>
        <h3 className="mt-1 text-[14px] font-semibold leading-5 text-fg">{p.summary}</h3>
        {runTitle && <p className="text-xs text-fg-muted">in the run “{runTitle}”</p>}
        {pending ? (
          <>
            <p className="mt-0.5 text-xs text-fg-muted">
              Who may decide: <ApproversText approvers={view.approvers} />
              {p.forbid_self_approval ? ", not the person who asked for the work" : ""}
            </p>
            {view.escalation && (
              <p className="mt-1 text-xs text-warning">
                Nobody decided in time, so it was escalated{escalatedTo.length ? ` to ${escalatedTo.map(personLabel).join(", ")}` : ""}.
              </p>
            )}
            {p.recommendation && <RecommendationBox rec={p.recommendation} />}
            {p.preview && <PreviewBox markdown={p.preview} label={p.subject.tool === "reply" ? "The message, as it will be posted" : "Preview"} />}
            {/* What the machinery needs (the tool, why the policy asks, the JSON arguments) is one click away; without a preview, the facts stay in view and the arguments are behind Details. */}
            {p.preview ? (
              <Disclosure className="mt-1" label="Details">
                <ApprovalFacts subject={p.subject} approvers={view.approvers} rule={p.rule} reason={p.reason} />
                {p.arguments && !editing && <ArgumentsBlock args={p.arguments} preview={p.preview} />}
              </Disclosure>
            ) : (
              <>
                <ApprovalFacts subject={p.subject} approvers={view.approvers} rule={p.rule} reason={p.reason} />
                {p.arguments && !editing && (
                  <Disclosure className="mt-1" label="Details">
                    <ArgumentsBlock args={p.arguments} preview={p.preview} />
                  </Disclosure>
                )}
              </>
            )}
            <ApprovalActions
              approvalId={view.approval_id}
              args={p.arguments ?? null}
              approvers={view.approvers}
              requesters={requestersOf(p)}
              forbidSelf={p.forbid_self_approval ?? false}
              expired={over}
              onModeChange={(m) => setEditing(m === "edit")}
            />
          </>
        ) : (
          <>
            <Outcome view={view} />
            {/* Decided: what was asked stays one click away. */}
            <Disclosure className="mt-1" label="What was asked">
              <ApprovalFacts subject={p.subject} approvers={view.approvers} rule={p.rule} reason={p.reason} />
              {p.recommendation && <RecommendationBox rec={p.recommendation} />}
              {p.arguments && <ArgumentsBlock args={p.arguments} label="Arguments requested" preview={p.preview} />}
              {p.preview && <PreviewBox markdown={p.preview} />}
            </Disclosure>
          </>
        )}
        {over && <p className="mt-1 text-xs text-fg-muted">Past its deadline; the server records the outcome shortly.</p>}
      </div>
    </SenderRow>
  );
}

/** approval.granted / rejected / expired as one line, linking back to the card. */
export function ApprovalOutcomeLine({ event, approval }: { event: StoredEvent; approval?: ApprovalView }) {
  const { jumpTo } = useThreadActions();
  const personLabel = usePersonLabel();
  const comment = commentOf(event);
  const subject = approval?.payload.subject;
  let icon = <ShieldCheckIcon size={14} className="text-success" />;
  let text: React.ReactNode;
  let label: string;
  if (isEvent(event, "approval.granted")) {
    const edited = event.payload.arguments !== undefined;
    label = `Approved by ${decider(event, personLabel)}`;
    text = (
      <>
        <span className="font-semibold text-success">Approved</span> <span className="text-fg-muted">by</span>{" "}
        <span className="font-medium text-fg">{decider(event, personLabel)}</span>
        {edited && <span className="text-fg-muted"> with edited arguments</span>}
      </>
    );
  } else if (isEvent(event, "approval.rejected")) {
    icon = <ShieldXIcon size={14} className="text-danger" />;
    label = `Rejected by ${decider(event, personLabel)}`;
    text = (
      <>
        <span className="font-semibold text-danger">Rejected</span> <span className="text-fg-muted">by</span>{" "}
        <span className="font-medium text-fg">{decider(event, personLabel)}</span>
      </>
    );
  } else {
    const expired = isEvent(event, "approval.expired") ? event.payload : null;
    const escalated = expired?.outcome === "escalated";
    const to = expired?.escalated_to ?? [];
    icon = <HourglassIcon size={13} className={escalated ? "text-warning" : "text-fg-muted"} />;
    label = escalated ? "Approval escalated" : "Approval expired";
    text =
      escalated ? (
        <>
          <span className="font-semibold text-warning">Escalated</span>{" "}
          <span className="text-fg-muted">after nobody decided in time{to.length ? <> — now for {to.map(personLabel).join(", ")}</> : null}</span>
        </>
      ) : (
        <>
          <span className="font-semibold text-fg-muted">Expired</span> <span className="text-fg-muted">— nobody decided in time, so it was rejected</span>
        </>
      );
  }
  return (
    <LineRow event={event} icon={icon} label={label}>
      <span className="min-w-0">{text}</span>
      {subject && (
        <button
          type="button"
          onClick={() => approval && jumpTo(approval.request.id)}
          className="min-w-0 truncate rounded text-[12px] text-fg-muted hover:text-fg hover:underline"
          title="Show the approval"
        >
          · <SubjectText subject={subject} />
        </button>
      )}
      {comment && <span className="min-w-0 break-words text-fg-muted">· “{comment}”</span>}
    </LineRow>
  );
}
