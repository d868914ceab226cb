"use client";
/**
 * Ending and retrying work from the UI (docs/lifecycle.md): `CancelWork` is a button that asks
 * for confirmation and an optional reason in a dialog, then cancels a run or a task with
 * everything under it (`POST /api/runs/:id/cancel`, `POST /api/tasks/:id/cancel`); `RetryTask`
 * starts a new attempt of a task that failed, was cancelled or timed out
 * (`POST /api/tasks/:id/retry`). What changed arrives over the live stream like any event;
 * a refusal (already ended, a parent that ended) is shown beside the button.
 */
import { useState } from "react";
import { Button, inputClass } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { cancelRun, cancelTask, retryTask } from "./api";

/** "Cancel run" / "Cancel task" with a confirming dialog. */
export function CancelWork({
  kind,
  id,
  title,
  className = "",
  iconOnPhone = false,
}: {
  kind: "run" | "task";
  id: string;
  title: string;
  className?: string;
  /** Only the icon below the `sm` breakpoint (a crowded header), the words still read by screen readers. */
  iconOnPhone?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await (kind === "run" ? cancelRun(id, reason.trim() || undefined) : cancelTask(id, reason.trim() || undefined));
      setOpen(false);
      setReason("");
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        className={`inline-flex h-8 items-center gap-1 rounded-md px-2 text-[13px] font-medium text-danger hover:bg-danger/10 ${className}`}
        title={kind === "run" ? "Stop every task of this run" : "Stop this task and everything under it"}
      >
        <StopIcon />
        <span className={iconOnPhone ? "max-sm:sr-only" : ""}>Cancel {kind}</span>
      </button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={kind === "run" ? "Cancel this run?" : "Cancel this task?"}
        description={
          kind === "run"
            ? `Every task of “${title}” that has not ended stops now, and the approvals it waits for close.`
            : `“${title}” and every task under it stop now; whoever asked for it is told.`
        }
        className="max-w-md"
      >
        <form
          className="space-y-3 px-5 pb-4 pt-3"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <label className="block text-[13px] font-medium text-fg">
            Reason <span className="font-normal text-fg-muted">(optional, shown to everyone)</span>
            <input className={`${inputClass} mt-1`} value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} placeholder="e.g. wrong quarter, asking again" autoFocus />
          </label>
          {error && (
            <p role="alert" className="text-[13px] text-danger">
              {error}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <Button onClick={() => setOpen(false)}>Keep it running</Button>
            <button type="submit" disabled={busy} className="inline-flex h-8 items-center rounded-md bg-danger px-3 text-[13px] font-semibold text-white hover:brightness-110 disabled:opacity-50">
              {busy ? "Cancelling…" : `Cancel ${kind}`}
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

/** "Retry" for an ended task: a new attempt that carries on from what the log records. */
export function RetryTask({ taskId, label = "Retry" }: { taskId: string; label?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <Button
        variant="primary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await retryTask(taskId);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          } finally {
            setBusy(false);
          }
        }}
        title="Start a new attempt; the agent carries on from what it did before"
      >
        {busy ? "Retrying…" : label}
      </Button>
      {error && (
        <span role="alert" className="text-[12px] text-danger">
          {error}
        </span>
      )}
    </span>
  );
}

function StopIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <circle cx="12" cy="12" r="9" />
      <rect x="9" y="9" width="6" height="6" rx="1" fill="currentColor" stroke="none" />
    </svg>
  );
}
