/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) for the trace export: reading the
 * caller's `traceparent` / `tracestate` headers, and turning a stored `meta.trace` back into the
 * remote parent of a run's span. Parsing is `@opentelemetry/core`'s (`parseTraceParent`, the
 * W3CTraceContextPropagator's own): loaded only when traces are exported (./index.ts imports this
 * module on demand).
 */
import { parseTraceParent, TraceState } from "@opentelemetry/core";
import type { TraceMeta } from "./meta";

/** The caller's span a run goes under: ids as lowercase hex, and its tracestate (W3C). */
export interface RemoteParent {
  traceId: string;
  spanId: string;
  tracestate?: string;
}

/**
 * `meta.trace` of the caller's headers, or undefined when there is no `traceparent` or it is not
 * a valid one (a bad header is ignored, as the W3C propagator does: the run gets a trace of its own).
 */
export function traceMetaFromHeaders(headers: Headers): TraceMeta | undefined {
  const traceparent = headers.get("traceparent")?.trim();
  if (!traceparent || !parseTraceParent(traceparent)) return undefined;
  const tracestate = headers.get("tracestate")?.trim();
  const state = tracestate ? new TraceState(tracestate).serialize() : "";
  return { traceparent, ...(state ? { tracestate: state.slice(0, 512) } : {}) };
}

/** The remote parent `meta.trace` names, or null when its traceparent is not valid. */
export function remoteParentOf(meta: TraceMeta | undefined): RemoteParent | null {
  if (!meta) return null;
  const ctx = parseTraceParent(meta.traceparent);
  if (!ctx) return null;
  return { traceId: ctx.traceId, spanId: ctx.spanId, ...(meta.tracestate ? { tracestate: meta.tracestate } : {}) };
}
