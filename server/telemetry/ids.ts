/**
 * Deterministic OpenTelemetry ids for a run's spans (docs/observability.md "Traces
 * (OpenTelemetry)"): the trace id comes from the run id and each span id from what the span
 * stands for (the run, a task's attempt, a model call, a tool call, a wait), so spans emitted at
 * different times, or by another node of the deployment, join one trace, and a span whose
 * opening event was seen long before (or never, by this process) can still be ended and named
 * as a parent. Ids are lowercase hex as W3C Trace Context and OTLP carry them: 32 characters for
 * a trace, 16 for a span; never all zeros (an invalid id in both).
 */
import { createHash } from "node:crypto";

function digest(kind: string, parts: readonly string[], chars: number): string {
  const hex = createHash("sha256").update(`clutch.${kind}\u0000${parts.join("\u0000")}`).digest("hex").slice(0, chars);
  // All zeros is invalid; a sha256 prefix of zeros is all but impossible, but never emit one.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace id of run `run_id` when no caller's trace context came with it: 32 hex characters. */
export function traceIdOf(run_id: string): string {
  return digest("trace", [run_id], 32);
}

/**
 * The span id of what `parts` name, e.g. `spanIdOf("task", run_id, task_id)`: 16 hex
 * characters, the same on every node and every time.
 */
export function spanIdOf(kind: "run" | "task" | "chat" | "tool" | "approval" | "question", ...parts: string[]): string {
  return digest(`span.${kind}`, parts, 16);
}
