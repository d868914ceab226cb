/**
 * A test OTLP/HTTP receiver: a plain node http server that takes `POST /v1/traces` with a
 * protobuf ExportTraceServiceRequest, as Jaeger, Tempo, Langfuse or an OpenTelemetry Collector
 * would, and decodes it with the OpenTelemetry proto definitions: the protobufjs module generated
 * from opentelemetry-proto that `@opentelemetry/otlp-transformer` 0.216 ships (installed as the
 * dev dependency `otlp-transformer-protobuf`; Apache-2.0). Spans are kept flat, ids as hex.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

interface Decoder {
  decode(buf: Uint8Array): unknown;
  toObject(msg: unknown, opts: Record<string, unknown>): Record<string, unknown>;
}
const root = require("otlp-transformer-protobuf/build/src/generated/root.js") as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Decoder } } } } };
};
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** OTLP's SpanKind numbers (trace.proto). */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;
/** OTLP's StatusCode numbers (trace.proto). */
export const STATUS_CODE = { UNSET: 0, OK: 1, ERROR: 2 } as const;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  events: string[];
  /** The resource's attributes (service.name …). */
  resource: Record<string, unknown>;
  scope: string;
}

type AnyValue = { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

function valueOf(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attrs = (kvs: KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
const hex = (b64: string | undefined) => Buffer.from(b64 ?? "", "base64").toString("hex");
const nanosToMs = (n: string | undefined) => Number(BigInt(n ?? "0") / 1_000_000n);

/** Decode one ExportTraceServiceRequest body into flat spans. */
export function decodeTraces(body: Uint8Array): ReceivedSpan[] {
  const msg = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, bytes: String, enums: Number }) as {
    resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: Record<string, unknown>[] }[] }[];
  };
  const out: ReceivedSpan[] = [];
  for (const rs of msg.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.traceId as string),
          spanId: hex(s.spanId as string),
          parentSpanId: hex(s.parentSpanId as string | undefined),
          name: s.name as string,
          kind: (s.kind as number) ?? 0,
          startMs: nanosToMs(s.startTimeUnixNano as string),
          endMs: nanosToMs(s.endTimeUnixNano as string),
          attributes: attrs(s.attributes as KeyValue[]),
          status: { code: ((s.status as { code?: number })?.code ?? 0) as number, ...((s.status as { message?: string })?.message ? { message: (s.status as { message: string }).message } : {}) },
          events: ((s.events as { name: string }[] | undefined) ?? []).map((e) => e.name),
          resource,
          scope: ss.scope?.name ?? "",
        });
      }
    }
  }
  return out;
}

/** Serve OTLP/HTTP on 127.0.0.1; `spans` collects every span received, `requests` each request's path and content type. */
export async function startOtlpReceiver(): Promise<{
  endpoint: string;
  spans: ReceivedSpan[];
  requests: { path: string; contentType: string }[];
  close(): void;
}> {
  const spans: ReceivedSpan[] = [];
  const requests: { path: string; contentType: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", contentType: String(req.headers["content-type"] ?? "") });
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      spans.push(...decodeTraces(Buffer.concat(chunks)));
      // An empty ExportTraceServiceResponse: everything accepted.
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
