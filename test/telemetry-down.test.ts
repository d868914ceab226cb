/**
 * An OTLP endpoint that is down (connection refused) never slows or fails a run: runs end as
 * usual while the exporter is still trying, the spans are dropped, and the log says so once
 * (docs/observability.md "Traces (OpenTelemetry)", failure behaviour).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { log } from "@/server/log";
import { msg, newThread, runRow, testClutch } from "./helpers";

let rt: Clutch;
const warn = vi.spyOn(log, "warn");
const downWarnings = () => warn.mock.calls.filter((c) => String(c[1] ?? c[0]).includes("OpenTelemetry traces cannot be sent"));

beforeAll(async () => {
  // A port nothing listens on: every export is refused.
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${port}/v1/traces`;
  // The exporter retries a refused connection for up to this long (ms) before the batch is dropped.
  process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "4000";
  process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
  rt = await testClutch();
});
afterAll(async () => {
  await rt?.stop();
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_TIMEOUT;
  delete process.env.OTEL_BSP_SCHEDULE_DELAY;
});

/** A small run, appended as its agent would: request, one model call, result. */
async function quickRun(thread_id: string): Promise<string> {
  const run_id = newId("run");
  const task_id = newId("task");
  const agent = { agent_id: "agent:quick", role: "worker" };
  await rt.store.append(msg("task.request", { title: "Quick one" }, { thread_id, run_id, task_id, from: { agent_id: "user:dana", role: "human" }, to: [{ agent_id: "agent:quick" }] }));
  await rt.store.append(msg("model.usage", { model: "m-1", input_tokens: 10, output_tokens: 2, latency_ms: 5 }, { thread_id, run_id, task_id, from: agent }));
  await rt.store.append(msg("task.result", { summary: "done" }, { thread_id, run_id, task_id, from: agent, to: [{ agent_id: "user:dana" }] }));
  return run_id;
}

describe("an OTLP endpoint that is down", () => {
  it("leaves runs alone, drops the spans and warns once", async () => {
    expect(rt.traces).not.toBeNull();
    const thread_id = await newThread(rt, "otel-down");
    const first = await quickRun(thread_id);
    // The run has ended while the exporter still tries the refused endpoint (for up to 4 s).
    expect((await runRow(rt, first)).state).toBe("succeeded");
    expect(downWarnings()).toHaveLength(0);

    for (const end = Date.now() + 20_000; downWarnings().length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
    expect(downWarnings()).toHaveLength(1);
    expect(downWarnings()[0]![0]).toMatchObject({ endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT });

    // Still down: more runs, more failed batches, no more warnings.
    const second = await quickRun(thread_id);
    expect((await runRow(rt, second)).state).toBe("succeeded");
    await rt.traces!.flush().catch(() => undefined);
    const third = await quickRun(thread_id);
    await rt.traces!.flush().catch(() => undefined);
    expect((await runRow(rt, third)).state).toBe("succeeded");
    expect(downWarnings()).toHaveLength(1);
  });
});
