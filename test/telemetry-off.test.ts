/**
 * With no OTLP endpoint set, the trace export costs nothing: no OpenTelemetry module is loaded
 * (server/telemetry/export.ts and context.ts are replaced by stubs that record a load), Clutch
 * has no trace export, and a traceparent header is not even read.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import type { Clutch } from "@/server/clutch";
import { callerTraceMeta, tracesEnabled } from "@/server/telemetry";
import { asAdmin, newThread, testClutch } from "./helpers";

const loaded = vi.hoisted(() => [] as string[]);
vi.mock("@/server/telemetry/export", () => {
  loaded.push("export");
  return { startTraceExport: () => ({ flush: async () => {}, stop: async () => {} }) };
});
vi.mock("@/server/telemetry/context", () => {
  loaded.push("context");
  return { traceMetaFromHeaders: () => ({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }) };
});

let rt: Clutch;
beforeAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  rt = await testClutch();
});
afterAll(async () => {
  await rt?.stop();
});

describe("traces off (no OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  it("starts nothing and loads no OpenTelemetry module; a traceparent on a message is left unread", async () => {
    expect(rt.traces).toBeNull();
    const thread_id = await newThread(rt, "otel-off");
    const req = await asAdmin(`http://localhost/api/threads/${thread_id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
      body: JSON.stringify({ text: "hello" }),
    });
    const res = await messagesRoute.POST(req, { params: Promise.resolve({ thread_id }) });
    expect(res.status).toBe(201);
    const { event } = (await res.json()) as { event: { meta?: Record<string, unknown> } };
    expect(event.meta?.trace).toBeUndefined();
    expect(loaded).toEqual([]);

    // The standard variables decide; and the stubs above do see a load when traces are on.
    expect(tracesEnabled({})).toBe(false);
    expect(tracesEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracesEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracesEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(tracesEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    await callerTraceMeta(new Headers({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }), { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" });
    expect(loaded).toEqual(["context"]);
  });
});
