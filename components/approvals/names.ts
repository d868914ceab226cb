"use client";
/**
 * `useApprovalNames()`: the names a person reads in the inbox (docs/channels.md "One name per
 * agent"): an agent by its card's display name (components/events/use-sender-name.ts), the
 * channel as "#sales" or, for a direct message, by its other party (./model.ts `approvalChannel`).
 */
import { useMemo } from "react";
import { useNameOf } from "@/components/events/use-sender-name";
import { useChannelNames } from "@/components/workspace/thread-title";
import { approvalChannel, type ApprovalNames } from "./model";

export function useApprovalNames(): ApprovalNames {
  const nameOf = useNameOf();
  const { label } = useChannelNames();
  return useMemo(() => ({ nameOf, channel: (a) => approvalChannel(a, label) }), [nameOf, label]);
}
