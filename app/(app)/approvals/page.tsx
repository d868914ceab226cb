/** `/approvals`: every pending approval across channels, keyboard driven (components/approvals/inbox.tsx). */
import type { Metadata } from "next";
import { ApprovalsInbox } from "@/components/approvals/inbox";

export const metadata: Metadata = { title: "Approvals · Clutch" };

export default function ApprovalsPage() {
  return <ApprovalsInbox />;
}
