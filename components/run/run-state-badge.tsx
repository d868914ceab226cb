/**
 * A run's state as a coloured badge (running, succeeded, failed, cancelled, timed out), labelled
 * "Run state: …" like the channel's run header.
 */
import type { RunState } from "@/lib/fold/run-state";
import { StatusBadge, type Tone } from "@/components/ui/chip";

const RUN_STATE: Record<RunState, { tone: Tone; label: string }> = {
  running: { tone: "info", label: "Running" },
  succeeded: { tone: "success", label: "Succeeded" },
  failed: { tone: "danger", label: "Failed" },
  cancelled: { tone: "neutral", label: "Cancelled" },
  timed_out: { tone: "warning", label: "Timed out" },
};

/** "● Running" etc.; pulses while running. */
export function RunStateBadge({ state }: { state: RunState }) {
  const s = RUN_STATE[state] ?? { tone: "neutral" as Tone, label: state };
  return (
    <StatusBadge tone={s.tone} label={`Run state: ${s.label}`}>
      <span className={`h-1.5 w-1.5 rounded-full bg-current ${state === "running" ? "animate-pulse" : ""}`} aria-hidden="true" />
      {s.label}
    </StatusBadge>
  );
}
