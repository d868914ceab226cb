"use client";
/**
 * `ApprovalActions`: Approve, Reject (with a comment) and Edit arguments then approve, for one
 * pending approval. Used by the channel card (./approval-card.tsx) and the inbox
 * (components/approvals), which drives it from the keyboard through its handle (`approve`,
 * `reject`, `edit`).
 *
 * - Reject opens a comment box: Enter rejects, Shift+Enter is a new line, Escape cancels.
 * - Edit opens the arguments as JSON: they must parse and be an object; Ctrl/⌘+Enter approves
 *   with them, Escape cancels.
 * - Only a person who may decide (lib/approvers.ts `mayDecide`: the approvers, and not the
 *   people who asked for the work when the rule forbids self-approval) is offered the buttons; others see who decides.
 * - Errors say what to do: already decided (by whom), not one of the approvers, arguments
 *   refused, or the server unreachable.
 */
import { useEffect, useId, useImperativeHandle, useRef, useState, type Ref } from "react";
import type { Approvers } from "@/lib/fold/approvals";
import { DecisionError, useDecide } from "@/components/live/approvals";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { mayDecide } from "@/lib/approvers";
import { CheckIcon, PencilIcon, XCircleIcon } from "@/components/ui/icons";
import { safeStringify } from "@/components/ui/json-view";
import { approversLabel, parseArguments } from "./approval-model";

/** What the inbox may trigger from the keyboard. */
export interface ApprovalActionsHandle {
  approve(): void;
  reject(): void;
  edit(): void;
}

type Mode = "idle" | "reject" | "edit";

/** A readable sentence for a failed decision; `label` names the people (components/identity/names.ts `usePersonLabel`). */
export function decisionErrorText(err: unknown, approvers: Approvers, label: (id: string) => string): { text: string } {
  if (err instanceof DecisionError) {
    if (err.code === "not_pending") {
      // "approval apr_… is already granted by user:dana"
      const m = /already (\w+)(?: by (\S+))?/.exec(err.message);
      const by = err.approval?.decided_by ?? m?.[2];
      const state = err.approval?.state ?? m?.[1];
      const verb = state === "granted" ? "approved" : state === "rejected" ? "rejected" : state === "expired" ? "expired" : "decided";
      if (state === "expired") return { text: "This approval already expired." };
      return { text: by ? `Already ${verb} by ${label(by)}.` : `Already decided${err.message && !/pending/i.test(err.message) ? `: ${err.message}` : "."}` };
    }
    if (err.code === "not_an_approver") {
      return { text: `Only ${approversLabel(approvers, label)} may decide this. ${err.message}` };
    }
    if (err.status === 400) return { text: `The server refused this: ${err.message}` };
    if (err.code === "network") return { text: "Couldn’t reach the server. Check the connection and try again." };
    return { text: err.message || "Something went wrong. Try again." };
  }
  return { text: err instanceof Error ? err.message : "Something went wrong. Try again." };
}

const kbdCls = "ml-1 rounded border border-current/30 px-1 font-sans text-[10px] font-semibold leading-4 opacity-70 max-sm:hidden";

/** The action bar and its forms (see the file comment). */
export function ApprovalActions({
  ref,
  approvalId,
  args,
  approvers,
  requesters = [],
  forbidSelf = false,
  expired = false,
  keyHints = false,
  onCancel,
  onDecided,
  onModeChange,
}: {
  ref?: Ref<ApprovalActionsHandle>;
  approvalId: string;
  /** The tool arguments the agent asked for; enables "Edit arguments". */
  args?: Record<string, unknown> | null;
  approvers: Approvers;
  /** Everyone who asked for the work; with `forbidSelf` none of them may decide (lib/approvers.ts). */
  requesters?: readonly string[];
  forbidSelf?: boolean;
  /** Past the deadline: nothing can be decided any more. */
  expired?: boolean;
  /** Show the inbox's keys (A, R, E) on the buttons. */
  keyHints?: boolean;
  /** A form was closed without deciding (the inbox puts focus back on the item). */
  onCancel?: () => void;
  /** A form opened or closed (the card hides its read-only arguments while they are edited). */
  onModeChange?: (mode: "idle" | "reject" | "edit") => void;
  /** Runs once the server accepted the decision (even if this bar unmounts right after). */
  onDecided?: (decision: "approve" | "reject") => void;
}) {
  const me = useMe();
  const label = usePersonLabel();
  const decide = useDecide((input) => onDecided?.(input.decision));
  const [mode, setMode] = useState<Mode>("idle");
  const [comment, setComment] = useState("");
  const [argsText, setArgsText] = useState("");
  const [done, setDone] = useState<"approve" | "reject" | null>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const argsRef = useRef<HTMLTextAreaElement>(null);
  const rejectBtn = useRef<HTMLButtonElement>(null);
  const commentId = useId();
  const argsId = useId();
  const argsErrId = useId();
  const allowed = mayDecide(approvers, me, { requesters, forbidSelf });
  const selfOnly = allowed !== mayDecide(approvers, me);
  const busy = decide.isPending;
  const parsed = mode === "edit" ? parseArguments(argsText) : null;

  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (mode === "reject") commentRef.current?.focus({ preventScroll: true });
    if (mode === "edit") argsRef.current?.focus({ preventScroll: true });
    // The whole form in view, its buttons too.
    if (mode !== "idle") formRef.current?.scrollIntoView({ block: "nearest" });
    onModeChange?.(mode);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- tell the parent when the mode changes, not when it re-renders
  }, [mode]);

  const send = (decision: "approve" | "reject", extra: { comment?: string; arguments?: Record<string, unknown> } = {}) => {
    if (busy || done || expired) return;
    decide.mutate(
      {
        approval_id: approvalId,
        decision,
        ...(extra.comment?.trim() ? { comment: extra.comment.trim() } : {}),
        ...(extra.arguments ? { arguments: extra.arguments } : {}),
      },
      {
        onSuccess: () => {
          setDone(decision);
          setMode("idle");
        },
      },
    );
  };
  const openReject = () => {
    if (busy || done || expired) return;
    decide.reset();
    setMode("reject");
  };
  const openEdit = () => {
    if (busy || done || expired || !args) return;
    decide.reset();
    setArgsText(safeStringify(args));
    setMode("edit");
  };
  const cancel = () => {
    setMode("idle");
    setComment("");
    if (onCancel) onCancel();
    else requestAnimationFrame(() => rejectBtn.current?.focus());
  };

  useImperativeHandle(ref, () => ({
    approve: () => {
      if (mode === "idle" && allowed) send("approve");
    },
    reject: () => allowed && openReject(),
    edit: () => allowed && openEdit(),
  }));

  const error = decide.error ? decisionErrorText(decide.error, approvers, label) : null;

  if (done) {
    return (
      <p role="status" className="mt-2 flex items-center gap-1.5 text-[13px] font-medium text-fg-muted">
        {done === "approve" ? <CheckIcon size={14} className="text-success" /> : <XCircleIcon size={14} className="text-danger" />}
        {done === "approve" ? "You approved this." : "You rejected this."} Recording it…
      </p>
    );
  }

  return (
    <div className="mt-2.5">
      {mode === "idle" && !allowed && (
        <p className="text-xs text-fg-muted">
          {selfOnly ? "You asked for this work, so someone else decides it." : <>Only {approversLabel(approvers, label)} may decide.</>}
        </p>
      )}
      {mode === "idle" && allowed && (
        <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Decide">
          <button
            type="button"
            disabled={busy || expired}
            onClick={() => send("approve")}
            className="inline-flex h-8 items-center gap-1.5 rounded-md bg-success px-3 text-[13px] font-semibold text-white shadow-sm hover:brightness-110 disabled:cursor-not-allowed disabled:opacity-50 dark:text-[#0f0f14]"
          >
            <CheckIcon size={14} strokeWidth={2.5} />
            {busy && decide.variables?.decision === "approve" ? "Approving…" : "Approve"}
            {keyHints && <kbd className={kbdCls}>A</kbd>}
          </button>
          <button
            ref={rejectBtn}
            type="button"
            disabled={busy || expired}
            onClick={openReject}
            className="inline-flex h-8 items-center gap-1.5 rounded-md border border-danger/40 bg-surface px-3 text-[13px] font-semibold text-danger hover:bg-danger/[0.07] disabled:cursor-not-allowed disabled:opacity-50"
          >
            <XCircleIcon size={14} />
            Reject…
            {keyHints && <kbd className={kbdCls}>R</kbd>}
          </button>
          {args && (
            <button
              type="button"
              disabled={busy || expired}
              onClick={openEdit}
              className="inline-flex h-8 items-center gap-1.5 rounded-md px-2.5 text-[13px] font-medium text-fg-muted hover:bg-hover hover:text-fg disabled:cursor-not-allowed disabled:opacity-50"
            >
              <PencilIcon size={13} />
              Edit arguments…
              {keyHints && <kbd className={kbdCls}>E</kbd>}
            </button>
          )}
        </div>
      )}

      {mode === "reject" && (
        <form
          ref={formRef}
          onSubmit={(e) => {
            e.preventDefault();
            send("reject", { comment });
          }}
          className="rounded-md border border-danger/30 bg-danger/[0.04] p-2"
        >
          <label htmlFor={commentId} className="mb-1 block text-[12.5px] font-semibold text-fg">
            Why reject? <span className="font-normal text-fg-muted">The agent is told, with your comment, and carries on without this step.</span>
          </label>
          <textarea
            id={commentId}
            ref={commentRef}
            value={comment}
            rows={2}
            maxLength={2000}
            onChange={(e) => setComment(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                send("reject", { comment });
              } else if (e.key === "Escape") {
                e.preventDefault();
                e.stopPropagation();
                cancel();
              }
            }}
            placeholder="e.g. Use the regional breakdown instead"
            className="block w-full resize-y rounded-md border border-line-strong bg-canvas px-2.5 py-1.5 text-[13.5px] text-fg placeholder:text-fg-subtle focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25"
          />
          <div className="mt-1.5 flex flex-wrap items-center gap-2">
            <button
              type="submit"
              disabled={busy}
              className="inline-flex h-8 items-center gap-1.5 rounded-md bg-danger px-3 text-[13px] font-semibold text-white hover:brightness-110 disabled:opacity-50 dark:text-[#0f0f14]"
            >
              <XCircleIcon size={14} />
              {busy ? "Rejecting…" : "Reject"}
            </button>
            <button type="button" onClick={cancel} className="inline-flex h-8 items-center rounded-md px-2.5 text-[13px] font-medium text-fg-muted hover:bg-hover hover:text-fg">
              Cancel
            </button>
            <span className="text-[11px] text-fg-subtle max-sm:hidden">Enter to reject · Shift+Enter new line · Esc to cancel</span>
          </div>
        </form>
      )}

      {mode === "edit" && (
        <form
          ref={formRef}
          onSubmit={(e) => {
            e.preventDefault();
            if (parsed?.ok) send("approve", { arguments: parsed.value });
          }}
          className="rounded-md border border-line bg-sunken/60 p-2"
        >
          <label htmlFor={argsId} className="mb-1 block text-[12.5px] font-semibold text-fg">
            Arguments <span className="font-normal text-fg-muted">(JSON object) — the agent’s call runs with these instead</span>
          </label>
          <textarea
            id={argsId}
            ref={argsRef}
            value={argsText}
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            rows={Math.min(16, Math.max(5, argsText.split("\n").length + 1))}
            onChange={(e) => setArgsText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
                e.preventDefault();
                if (parsed?.ok) send("approve", { arguments: parsed.value });
              } else if (e.key === "Escape") {
                e.preventDefault();
                e.stopPropagation();
                cancel();
              }
            }}
            aria-invalid={parsed ? !parsed.ok : undefined}
            aria-describedby={argsErrId}
            className={`block w-full resize-y rounded-md border bg-canvas px-2.5 py-1.5 font-mono text-[12.5px] leading-[1.5] text-fg focus:outline-none focus:ring-2 ${
              parsed && !parsed.ok ? "border-danger focus:ring-danger/25" : "border-line-strong focus:border-accent focus:ring-accent/25"
            }`}
          />
          <p id={argsErrId} className={`mt-1 min-h-4 text-xs ${parsed && !parsed.ok ? "text-danger" : "text-fg-subtle"}`} aria-live="polite">
            {parsed && !parsed.ok ? parsed.error : "Valid JSON object."}
          </p>
          <div className="mt-1.5 flex flex-wrap items-center gap-2">
            <button
              type="submit"
              disabled={busy || !parsed?.ok}
              className="inline-flex h-8 items-center gap-1.5 rounded-md bg-success px-3 text-[13px] font-semibold text-white hover:brightness-110 disabled:cursor-not-allowed disabled:opacity-50 dark:text-[#0f0f14]"
            >
              <CheckIcon size={14} strokeWidth={2.5} />
              {busy ? "Approving…" : "Approve with these arguments"}
            </button>
            <button type="button" onClick={() => setArgsText(safeStringify(args))} className="inline-flex h-8 items-center rounded-md px-2.5 text-[13px] font-medium text-fg-muted hover:bg-hover hover:text-fg">
              Reset
            </button>
            <button type="button" onClick={cancel} className="inline-flex h-8 items-center rounded-md px-2.5 text-[13px] font-medium text-fg-muted hover:bg-hover hover:text-fg">
              Cancel
            </button>
            <span className="text-[11px] text-fg-subtle max-sm:hidden">Ctrl/⌘+Enter to approve · Esc to cancel</span>
          </div>
        </form>
      )}

      {error && (
        <p role="alert" className="mt-1.5 text-[12.5px] text-danger">
          {error.text}
        </p>
      )}
    </div>
  );
}
