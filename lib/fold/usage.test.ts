/**
 * The usage fold (lib/fold/usage.ts, docs/observability.md): tokens, cost and time per run, task
 * and agent from events; unpriced models never guessed; a fork's copies left out; open intervals
 * counted to the last event; and the figures as people read them.
 */
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../protocol/envelope";
import { callCost, foldUsage, formatCost, formatTokens, totalsOfRows } from "./usage";

let seq = 0;
const T0 = Date.parse("2026-11-26T10:00:00Z");
function ev(type: string, payload: Record<string, unknown>, o: { s: number; task?: string; from?: string; meta?: Record<string, unknown>; to?: string[]; id?: string }): StoredEvent {
  seq++;
  return {
    v: "clutch/0.1",
    id: o.id ?? `msg_${seq}`,
    seq,
    ts: new Date(T0 + o.s * 1000).toISOString(),
    thread_id: "thr_1",
    run_id: "run_1",
    task_id: o.task ?? "task_a",
    from: { agent_id: o.from ?? "agent:a" },
    to: (o.to ?? []).map((agent_id) => ({ agent_id })),
    type,
    payload,
    ...(o.meta ? { meta: o.meta } : {}),
  } as unknown as StoredEvent;
}

const PRICES = { currency: "USD", models: { m: { input: 2, output: 10, cached_input: 1 } } };

describe("foldUsage", () => {
  it("sums calls per run, task and agent, prices them, and splits the time into model, tools and people", () => {
    seq = 0;
    const events = [
      ev("task.request", { title: "A" }, { s: 0, from: "agent:orchestrator" }),
      ev("task.accept", { agent_id: "agent:a" }, { s: 1 }),
      ev("model.usage", { model: "m", input_tokens: 1000, output_tokens: 100, cached_input_tokens: 400, latency_ms: 1500 }, { s: 3 }),
      ev("tool.call", { call_id: "c1", tool: "q" }, { s: 4 }),
      ev("tool.result", { call_id: "c1", tool: "q", result: 1 }, { s: 6 }),
      ev("chat.message", { text: "Which quarter?", expects_reply: true }, { s: 7, to: ["user"], id: "q1" }),
      ev("chat.message", { text: "Q4", reply_to: "q1" }, { s: 17, from: "user:dana" }),
      ev("task.request", { title: "B" }, { s: 18, task: "task_b" }),
      ev("model.usage", { model: "other", input_tokens: 50, output_tokens: 5, latency_ms: 200 }, { s: 19, task: "task_b", from: "agent:b" }),
      ev("task.result", { summary: "b" }, { s: 20, task: "task_b", from: "agent:b" }),
      ev("task.result", { summary: "a" }, { s: 30 }),
    ];
    const u = foldUsage(events, PRICES);
    expect(u.run).toMatchObject({ calls: 2, input_tokens: 1050, output_tokens: 105, cached_input_tokens: 400, unpriced_calls: 1, model_ms: 1700, tool_ms: 2000, people_ms: 10_000, elapsed_ms: 30_000 });
    // (600 × 2 + 400 × 1 + 100 × 10) / 1e6
    expect(u.run.cost).toBeCloseTo(0.0026, 10);
    expect(u.tasks.get("task_a")).toMatchObject({ agent_id: "agent:a", calls: 1, tool_ms: 2000, people_ms: 10_000, elapsed_ms: 30_000 });
    expect(u.tasks.get("task_b")).toMatchObject({ agent_id: "agent:b", calls: 1, cost: null, unpriced_calls: 1, elapsed_ms: 2000 });
    expect(u.agents.map((a) => [a.agent_id, a.models, a.calls])).toEqual([
      ["agent:a", ["m"], 1],
      ["agent:b", ["other"], 1],
    ]);
    expect(u.unpriced_models).toEqual(["other"]);
  });

  it("counts an interval still open up to the last event folded (a replay position), and leaves a fork's copies out", () => {
    seq = 0;
    const events = [
      ev("model.usage", { model: "m", input_tokens: 10, output_tokens: 1, latency_ms: 5 }, { s: 0, meta: { forked_from: { run_id: "run_0", seq: 3 } } }),
      ev("task.request", { title: "A" }, { s: 1 }),
      ev("approval.requested", { approval_id: "apr_1" }, { s: 2 }),
      ev("task.progress", { message: "waiting" }, { s: 12 }),
    ];
    const u = foldUsage(events, PRICES);
    expect(u.run.calls).toBe(0);
    expect(u.run.people_ms).toBe(10_000);
    expect(u.run.cost).toBeNull();
  });

  it("prices per-model rows as the fold does, and never guesses a missing price", () => {
    expect(callCost(PRICES, "m", 1000, 100, 400)).toBeCloseTo(0.0026, 10);
    expect(callCost(PRICES, "nope", 1000, 100)).toBeNull();
    const t = totalsOfRows([{ model: "m", calls: 2, input_tokens: 2000, output_tokens: 200, cached_input_tokens: 800, model_ms: 10 }, { model: "nope", calls: 1, input_tokens: 5, output_tokens: 5, cached_input_tokens: 0, model_ms: 1 }], PRICES);
    expect(t).toMatchObject({ calls: 3, unpriced_calls: 1, input_tokens: 2005 });
    expect(formatCost(t, "USD")).toBe("$0.0052 + unpriced");
    expect(formatCost({ cost: null, unpriced_calls: 2, calls: 2 }, "USD")).toBe("cost unknown");
    expect(formatCost({ cost: 1.234, unpriced_calls: 0, calls: 2 }, "EUR")).toBe("€1.23");
  });

  it("writes token counts as people read them", () => {
    expect([850, 1200, 4000, 15_000, 16_800, 240_000, 999_999, 1_250_000].map(formatTokens)).toEqual(["850", "1.2k", "4k", "15k", "16.8k", "240k", "1M", "1.3M"]);
  });
});
