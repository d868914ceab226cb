"use client";
/**
 * `ItemDetails`: the selected inbox item expanded: what the approval is about (facts with why
 * the policy asks, an overseer's recommendation, the preview, and the tool arguments one click
 * away behind "Details"), the decision bar while it is pending, and a link to the approval in its
 * channel (for an approver outside a DM, a note instead).
 */
import Link from "next/link";
import { useState, type Ref } from "react";
import type { ApprovalSummary } from "@/lib/api/types";
import { ApprovalActions, type ApprovalActionsHandle } from "@/components/events/approval-actions";
import { ApprovalFacts, ArgumentsBlock, PreviewBox, RecommendationBox } from "@/components/events/approval-details";
import { Disclosure } from "@/components/ui/disclosure";
import { ChevronRightIcon } from "@/components/ui/icons";
import { channelHref, subjectOf } from "./model";
import { useApprovalNames } from "./names";

/** The details of the selected approval (see the file comment). */
export function ItemDetails({
  approval: a,
  expired,
  actionsRef,
  onFormClosed,
  onDecided,
}: {
  approval: ApprovalSummary;
  /** Pending but past its deadline: nothing can be decided any more. */
  expired: boolean;
  actionsRef?: Ref<ApprovalActionsHandle>;
  onFormClosed: () => void;
  onDecided: (d: "approve" | "reject") => void;
}) {
  const pending = a.state === "pending";
  // While the arguments are edited, the editor replaces their read-only view.
  const [editing, setEditing] = useState(false);
  const { channel } = useApprovalNames();
  return (
    <div className="mt-1">
      <ApprovalFacts subject={subjectOf(a)} approvers={a.approvers} rule={a.rule} reason={a.reason} />
      {a.recommendation && <RecommendationBox rec={a.recommendation} />}
      {a.preview && <PreviewBox markdown={a.preview} />}
      {/* The summary and the preview first; the JSON arguments one click away (the editor replaces them while they are edited). */}
      {a.arguments && !(pending && editing) && (
        <Disclosure className="mt-1" label="Details">
          <ArgumentsBlock args={a.arguments} preview={a.preview} />
        </Disclosure>
      )}
      {pending && (
        <ApprovalActions
          ref={actionsRef}
          approvalId={a.approval_id}
          args={a.arguments}
          approvers={a.approvers}
          requesters={a.requesters}
          forbidSelf={a.forbid_self_approval}
          expired={expired}
          keyHints
          onCancel={onFormClosed}
          onDecided={onDecided}
          onModeChange={(m) => setEditing(m === "edit")}
        />
      )}
      {a.outside_dm ? (
        <p className="mt-2 text-[12.5px] text-fg-muted">Asked in a direct message you are not part of: you decide this approval, the conversation stays theirs.</p>
      ) : (
        <Link
          href={channelHref(a)}
          className="mt-2 inline-flex items-center gap-1 text-[12.5px] font-medium text-accent hover:underline"
        >
          Open in {channel(a)}
          <ChevronRightIcon size={12} />
        </Link>
      )}
    </div>
  );
}

