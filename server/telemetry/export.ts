/**
 * The trace export (docs/observability.md "Traces (OpenTelemetry)"): follows the log's
 * after-commit feed (server/events/tail.ts), turns each run's events into spans (./tracer.ts) and
 * hands them to OpenTelemetry's BatchSpanProcessor, which sends them in batches with the OTLP
 * exporter (protobuf over HTTP, `@opentelemetry/exporter-trace-otlp-proto`). The exporter reads
 * the standard variables itself: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`), `OTEL_EXPORTER_OTLP[_TRACES]_HEADERS`,
 * `_TIMEOUT`, `_COMPRESSION`; the resource takes `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES`; the batch processor `OTEL_BSP_SCHEDULE_DELAY`,
 * `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, `OTEL_BSP_EXPORT_TIMEOUT`.
 *
 * It never slows or fails a run: the tail's listener only queues the event (at most
 * MAX_QUEUED_EVENTS; past that events are dropped, with one warning); spans wait in the
 * processor's bounded queue; an endpoint that is down makes the batches fail and be dropped, with
 * one warning until it answers again. Loaded only when traces are exported (./index.ts).
 */
import { TraceFlags, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { ExportResultCode, millisToHrTime, hrTimeDuration, TraceState, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { TERMINAL_STATES, type TaskState } from "@/lib/fold/task-state";
import type { EventStore } from "../events/store";
import { log } from "../log";
import { isTraced, RunTracer, type SpanRecord, type TraceLookup } from "./tracer";
import type { Env, TraceExport, TraceExportOptions } from "./options";

/** Events waiting for the tracer, at most; more are dropped (with one warning) until it catches up. */
export const MAX_QUEUED_EVENTS = 10_000;
/** How long `stop()` waits for the queue and the last batch, ms. */
const STOP_WAIT_MS = 3000;

const KIND = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER } as const;

/** Where spans go, for the log's words: the traces endpoint the exporter posts to. */
export function tracesEndpoint(env: Env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").trim().replace(/\/+$/, "")}/v1/traces`;
}

/** A positive whole number from `env[name]`, else undefined (the processor's default). */
function envNumber(env: Env, name: string): number | undefined {
  const n = Number(env[name]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * The OTLP exporter, saying once when the endpoint cannot be reached (and once when it can
 * again): a batch that fails is dropped, never retried past the exporter's own timeout.
 */
export class WarnOnceExporter implements SpanExporter {
  private down = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly endpoint: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && !this.down) {
        this.down = true;
        log.warn(
          { endpoint: this.endpoint, err: result.error?.message, spans: spans.length },
          "OpenTelemetry traces cannot be sent: spans are dropped until the endpoint answers (runs are not affected; OTEL_EXPORTER_OTLP_ENDPOINT, docs/observability.md)",
        );
      } else if (result.code === ExportResultCode.SUCCESS && this.down) {
        this.down = false;
        log.info({ endpoint: this.endpoint }, "OpenTelemetry traces are sent again");
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** A finished span as the SDK's processors and exporters take it. */
export function toReadableSpan(r: SpanRecord, resource: Resource, version: string): ReadableSpan {
  const startTime = millisToHrTime(r.startMs);
  const endTime = millisToHrTime(Math.max(r.endMs, r.startMs));
  const traceState = r.tracestate ? new TraceState(r.tracestate) : undefined;
  const context = { traceId: r.traceId, spanId: r.spanId, traceFlags: TraceFlags.SAMPLED, ...(traceState ? { traceState } : {}) };
  return {
    name: r.name,
    kind: KIND[r.kind],
    spanContext: () => context,
    ...(r.parent ? { parentSpanContext: { traceId: r.traceId, spanId: r.parent.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: r.parent.remote, ...(traceState ? { traceState } : {}) } } : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: r.status.code === "error" ? { code: SpanStatusCode.ERROR, ...(r.status.message ? { message: r.status.message } : {}) } : { code: SpanStatusCode.UNSET },
    attributes: r.attributes,
    links: [],
    events: r.events.map((e) => ({ name: e.name, time: millisToHrTime(e.timeMs), attributes: e.attributes, droppedAttributesCount: 0 })),
    ended: true,
    resource,
    instrumentationScope: { name: "clutch", version },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** The tracer's store reads, on the log's queries (server/events/queries.ts). */
export function storeLookup(store: EventStore): TraceLookup {
  const q = store.queries;
  return {
    async firstRootRequest(run_id) {
      return (await q.rootRequests(run_id, 1))[0] ?? null;
    },
    async openRootTasks(run_id) {
      return (await q.rootTasks([run_id])).filter((t) => !TERMINAL_STATES.has(t.state as TaskState)).map((t) => t.id);
    },
    async task(run_id, task_id) {
      const row = await q.task(task_id);
      if (!row || row.run_id !== run_id) return null;
      const request = row.attempts > 1 ? await q.latestRequest(run_id, task_id) : await q.firstRequest(run_id, task_id);
      return {
        parent_task_id: row.parent_task_id,
        assignee: row.assignee,
        title: row.title,
        attempts: row.attempts,
        startMs: request ? Date.parse(request.ts) : row.created_at.getTime(),
      };
    },
    async approvalRequest(approval_id) {
      const row = await q.approval(approval_id);
      const ev = row ? await q.eventAtSeq(Number(row.request_seq)) : null;
      return ev && isEvent(ev, "approval.requested") ? ev : null;
    },
    eventInRun: (run_id, id) => q.eventInRun(run_id, id),
    async isPrivate(thread_id) {
      const thread = await store.getThread(thread_id);
      // A channel that cannot be found is treated as private: nothing is sent that might be.
      return !thread || thread.visibility === "private" || thread.kind === "dm";
    },
  };
}

/**
 * Start exporting runs as traces (see the module doc): from now on, every committed event of
 * the log is read in order; spans go out only while `exporting()` says this node exports (the
 * one that does the agents' work, so a deployment of several nodes sends each span once).
 */
export function startTraceExport(opts: TraceExportOptions): TraceExport {
  const env = opts.env ?? process.env;
  const endpoint = tracesEndpoint(env);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: "clutch", [ATTR_SERVICE_VERSION]: opts.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = new WarnOnceExporter(new OTLPTraceExporter(), endpoint);
  const processor = new BatchSpanProcessor(exporter, {
    scheduledDelayMillis: envNumber(env, "OTEL_BSP_SCHEDULE_DELAY"),
    maxQueueSize: envNumber(env, "OTEL_BSP_MAX_QUEUE_SIZE"),
    maxExportBatchSize: envNumber(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
    exportTimeoutMillis: envNumber(env, "OTEL_BSP_EXPORT_TIMEOUT"),
  });
  const tracer = new RunTracer(storeLookup(opts.store), opts.nameOf, { privateContent: opts.privateContent ?? false });

  const queue: StoredEvent[] = [];
  let overflowWarned = false;
  let readWarned = false;
  let pumping: Promise<void> | null = null;

  const pump = (): Promise<void> => {
    pumping ??= (async () => {
      while (queue.length) {
        const ev = queue.shift()!;
        try {
          const spans = await tracer.apply(ev);
          if (spans.length && opts.exporting()) for (const s of spans) processor.onEnd(toReadableSpan(s, resource, opts.version));
        } catch (err) {
          if (!readWarned) log.warn({ err, seq: ev.seq }, "OpenTelemetry: reading the log for a span failed; that span is left out");
          readWarned = true;
        }
      }
      pumping = null;
    })();
    return pumping;
  };

  const unsubscribe = opts.tail.subscribe((ev) => {
    if (!isTraced(ev)) return;
    if (queue.length >= MAX_QUEUED_EVENTS) {
      if (!overflowWarned) log.warn({ queued: queue.length }, "OpenTelemetry: the trace export falls behind the log; events are left out of traces until it catches up");
      overflowWarned = true;
      return;
    }
    overflowWarned = false;
    queue.push(ev);
    void pump();
  });
  log.info({ endpoint }, "OpenTelemetry: runs are exported as traces");

  return {
    async flush() {
      while (pumping) await pumping;
      await processor.forceFlush();
    },
    async stop() {
      unsubscribe();
      const wait = new Promise<void>((r) => setTimeout(r, STOP_WAIT_MS).unref());
      await Promise.race([
        (async () => {
          while (pumping) await pumping;
          await processor.shutdown();
        })(),
        wait,
      ]).catch((err: unknown) => log.warn({ err }, "OpenTelemetry: the last spans could not be sent"));
    },
  };
}
