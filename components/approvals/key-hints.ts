/**
 * Which of the inbox's deciding keys a person is shown (./shortcuts.tsx): `a` approve, `r`
 * reject, `e` edit the arguments, only on the Pending tab and only when the signed-in person may
 * decide the selected approval (lib/approvers.ts `mayDecide`: an approver, and not one who asked
 * for the work when the rule forbids it). Everyone else reads the moving and opening keys alone;
 * the deciding keys do nothing for them (components/events/approval-actions.tsx).
 */
import type { ApprovalSummary } from "@/lib/api/types";
import { mayDecide, type Decider } from "@/lib/approvers";
import type { InboxTab } from "./model";

/** A deciding key and what it does, as the footer says it. */
export interface DecidingKey {
  key: "a" | "r" | "e";
  does: string;
}

/** True when `me` may decide `approval` from the inbox now: it is pending and they are one who decides it. */
export function mayDecideInInbox(approval: Pick<ApprovalSummary, "state" | "approvers" | "requesters" | "forbid_self_approval"> | undefined, me: Decider): boolean {
  if (!approval || approval.state !== "pending") return false;
  return mayDecide(approval.approvers, me, { requesters: approval.requesters, forbidSelf: approval.forbid_self_approval });
}

/**
 * The deciding keys to show for the selected approval on `tab`: approve and reject, and edit
 * when the approval has arguments; none on Recently decided, with nothing selected, or when
 * `me` may not decide it.
 */
export function decidingKeys(tab: InboxTab, approval: Pick<ApprovalSummary, "state" | "approvers" | "requesters" | "forbid_self_approval" | "arguments"> | undefined, me: Decider): DecidingKey[] {
  if (tab !== "pending" || !mayDecideInInbox(approval, me)) return [];
  const keys: DecidingKey[] = [
    { key: "a", does: "approve" },
    { key: "r", does: "reject" },
  ];
  if (approval?.arguments) keys.push({ key: "e", does: "edit arguments" });
  return keys;
}

/**
 * Whether the shortcut sheet lists the deciding keys: it documents the page, so it does, except
 * while a pending approval the person may not decide is selected (then they would do nothing).
 */
export function sheetListsDecidingKeys(approval: Pick<ApprovalSummary, "state" | "approvers" | "requesters" | "forbid_self_approval"> | undefined, me: Decider): boolean {
  return !approval || approval.state !== "pending" || mayDecideInInbox(approval, me);
}
