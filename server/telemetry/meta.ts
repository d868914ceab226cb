/**
 * The caller's trace context as Clutch keeps it on a run's first event: `meta.trace =
 * { traceparent, tracestate? }` (W3C Trace Context headers, verbatim), on the root task.request
 * of a run started by `POST /api/threads/:thread_id/messages` (the person's chat.message carries
 * it until the orchestrator opens the run), an A2A message or an ACP `agents/run` call
 * (docs/observability.md "Traces (OpenTelemetry)"; docs/protocol.md). The exporter then puts the
 * run in the caller's trace, under the caller's span.
 *
 * This module is free of OpenTelemetry imports: the orchestrator and the routes use it whether
 * or not traces are exported. Parsing the header is ./context.ts's, loaded only when they are.
 */
import { z } from "zod";

/** `meta.trace` as stored: the headers' text, each within the W3C limits (traceparent 55 characters for version 00). */
export const TraceMetaSchema = z.object({
  traceparent: z.string().min(1).max(256),
  tracestate: z.string().min(1).max(512).optional(),
});
export type TraceMeta = z.infer<typeof TraceMetaSchema>;

/**
 * `{ trace }` of an event's `meta.trace` when it has the stored shape, else `{}`: spread into the
 * meta of the run's first task.request. Whether the traceparent is a valid one is the exporter's
 * to decide (an invalid one is ignored there).
 */
export function traceMetaOf(meta: Record<string, unknown> | undefined): { trace?: TraceMeta } {
  const parsed = TraceMetaSchema.safeParse(meta?.trace);
  return parsed.success ? { trace: parsed.data } : {};
}
