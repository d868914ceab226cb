/**
 * The approvals API in the browser: `GET /api/approvals`, `POST
 * /api/approvals/:approval_id/decision` and `GET /api/policy` (shapes in lib/api/types.ts), with
 * TanStack Query hooks for the sidebar badge, the channel's approval cards and the inbox.
 *
 * Freshness: the lists refetch every 5 s, at once when an `approval.*` event arrives on the
 * socket, and soon after any channel's activity (./live-sync.ts calls `approvalsChanged`), so
 * the sidebar badge and the inbox follow approvals in channels the person does not have open.
 */
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { ApprovalSummary, PolicyStatus } from "@/lib/api/types";
import { apiRequest, ApiRequestError } from "./api";

/** Query keys of the approvals views. */
export const approvalKeys = {
  all: ["approvals"] as const,
  list: (state: "pending" | "decided" | "all", threadId?: string) => ["approvals", state, threadId ?? "*"] as const,
  policy: ["policy-status"] as const,
};

/** The body of an error answer, kept whole (a 409 carries the approval as decided). */
export class DecisionError extends ApiRequestError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly approval: ApprovalSummary | null,
    issues?: unknown[],
  ) {
    super(status, code, message, issues);
    this.name = "DecisionError";
  }
}

/** Approvals in a state (oldest first, as the server lists them), optionally of one channel. */
export async function fetchApprovals(state: "pending" | "decided" | "all", threadId?: string): Promise<ApprovalSummary[]> {
  const q = new URLSearchParams({ state });
  if (threadId) q.set("thread_id", threadId);
  return (await apiRequest<{ approvals: ApprovalSummary[] }>(`/api/approvals?${q}`)).approvals ?? [];
}

/** What a person decides. `arguments`: edited tool arguments (approve only). */
export interface DecisionInput {
  approval_id: string;
  decision: "approve" | "reject";
  comment?: string;
  arguments?: Record<string, unknown>;
  display_name?: string;
}

/**
 * Posts a decision; answers the approval as decided. Throws `DecisionError`: 409 `not_pending`
 * (already decided; `.approval` says by whom), 403 `not_an_approver`, 400 invalid arguments.
 */
export async function postDecision({ approval_id, ...body }: DecisionInput): Promise<ApprovalSummary> {
  try {
    const json = await apiRequest<{ approval: ApprovalSummary }>(`/api/approvals/${encodeURIComponent(approval_id)}/decision`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    return json.approval;
  } catch (err) {
    if (!(err instanceof ApiRequestError)) throw err;
    const answer = err.body as { approval?: ApprovalSummary; error?: { approval?: ApprovalSummary } } | null;
    throw new DecisionError(err.status, err.code, err.message, answer?.approval ?? answer?.error?.approval ?? null, err.issues);
  }
}

/** Approvals in `state`, kept fresh (see the file comment). */
export function useApprovals(state: "pending" | "decided" | "all", threadId?: string, enabled = true) {
  return useQuery({
    queryKey: approvalKeys.list(state, threadId),
    queryFn: () => fetchApprovals(state, threadId),
    refetchInterval: 5_000,
    staleTime: 2_000,
    enabled,
  });
}

/** The pending approvals (shared by the sidebar badge and the inbox). */
export function usePendingApprovals() {
  return useApprovals("pending");
}

/**
 * Decides an approval. On success `onDecided` runs, the approval leaves every cached pending
 * list at once (the event that records it follows on the socket) and all lists refetch.
 */
export function useDecide(onDecided?: (input: DecisionInput, approval: ApprovalSummary) => void) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: postDecision,
    onSuccess: (approval, input) => {
      // Told before the item leaves the lists (it may unmount with them).
      onDecided?.(input, approval);
      dropFromPending(qc, approval?.approval_id ?? input.approval_id);
      void qc.invalidateQueries({ queryKey: approvalKeys.all });
    },
    onError: (err, input) => {
      if (err instanceof DecisionError && err.code === "not_pending") {
        dropFromPending(qc, input.approval_id);
        void qc.invalidateQueries({ queryKey: approvalKeys.all });
      }
    },
  });
}

function dropFromPending(qc: QueryClient, approvalId: string): void {
  qc.setQueriesData<ApprovalSummary[]>({ queryKey: ["approvals", "pending"] }, (old) =>
    old ? old.filter((a) => a.approval_id !== approvalId) : old,
  );
}

let soon: ReturnType<typeof setTimeout> | null = null;

/**
 * Approvals may have changed: refetch every approvals list, now (`approval.*` event) or at most
 * once a second (any channel's activity).
 */
export function approvalsChanged(qc: QueryClient, now = false): void {
  if (now) {
    if (soon) clearTimeout(soon);
    soon = null;
    void qc.invalidateQueries({ queryKey: approvalKeys.all });
    return;
  }
  if (soon) return;
  soon = setTimeout(() => {
    soon = null;
    void qc.invalidateQueries({ queryKey: approvalKeys.all });
  }, 1_000);
}

/** The policy's status; null while the server does not offer it. Refetched every 30 s. */
export function usePolicyStatus() {
  return useQuery({
    queryKey: approvalKeys.policy,
    queryFn: async (): Promise<PolicyStatus | null> => {
      try {
        return await apiRequest<PolicyStatus>("/api/policy");
      } catch (err) {
        if (err instanceof ApiRequestError && err.status === 404) return null;
        throw err;
      }
    },
    refetchInterval: 30_000,
    staleTime: 10_000,
    retry: false,
  });
}
