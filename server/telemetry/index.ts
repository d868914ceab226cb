/**
 * OpenTelemetry trace export of Clutch runs, off by default (docs/observability.md "Traces
 * (OpenTelemetry)"). This module is what the rest of Clutch imports, and it imports nothing of
 * OpenTelemetry: with neither `OTEL_EXPORTER_OTLP_ENDPOINT` nor
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set, nothing is loaded, no listener follows the log and
 * no header is read. With one set, `startTraces` loads ./export.ts (the SDK) and
 * `callerTraceMeta` ./context.ts (W3C Trace Context parsing), each on first use.
 */
import { log } from "../log";
import type { TraceMeta } from "./meta";
import type { Env, TraceExport, TraceExportOptions } from "./options";

export type { TraceMeta } from "./meta";
export type { Env, TraceExport, TraceExportOptions } from "./options";

/**
 * True when runs are exported as traces: an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and neither `OTEL_SDK_DISABLED=true` nor
 * `OTEL_TRACES_EXPORTER=none` turns the SDK off (the standard variables).
 */
export function tracesEnabled(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * Start the trace export when `tracesEnabled`, else null (nothing is loaded). A failure to start
 * it is logged and Clutch runs on without traces: the export never stops Clutch.
 */
export async function startTraces(opts: TraceExportOptions): Promise<TraceExport | null> {
  if (!tracesEnabled(opts.env)) return null;
  try {
    const { startTraceExport } = await import("./export");
    return startTraceExport(opts);
  } catch (err) {
    log.error({ err }, "OpenTelemetry: the trace export could not start; Clutch runs without it");
    return null;
  }
}

/**
 * The caller's W3C trace context (`traceparent`, `tracestate` headers) as `meta.trace` for the
 * first event of the run the request starts, or undefined: traces are off, there is no
 * traceparent, or it is not valid. Never throws.
 */
export async function callerTraceMeta(headers: Headers, env: Env = process.env): Promise<TraceMeta | undefined> {
  if (!tracesEnabled(env) || !headers.has("traceparent")) return undefined;
  try {
    const { traceMetaFromHeaders } = await import("./context");
    return traceMetaFromHeaders(headers);
  } catch (err) {
    log.warn({ err }, "OpenTelemetry: the caller's traceparent could not be read; the run gets a trace of its own");
    return undefined;
  }
}
