/**
 * The conversation so far for a follow-up (lib/fold/follow-up.ts): what goes in, what stays
 * out, and how a long history is fitted into a budget without cutting JSON in half.
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { compactJson, conversationHistory, followsOf, renderHistory } from "./follow-up";

let seq = 0;
const ev = (m: Partial<ClutchMessage> & Pick<ClutchMessage, "type" | "payload">): StoredEvent => ({
  ...makeMessage({ thread_id: "thr_1", run_id: "run_1", task_id: "task_T1", from: { agent_id: "agent:pm-1" }, to: [], ...m } as never),
  seq: ++seq,
});
const dana = { agent_id: "user:dana", role: "human" as const, display_name: "Dana" };

/** The seed's conversation: request, question, answer, agents' traffic, report, result; then a follow-up. */
function salesRun() {
  seq = 0;
  const request = ev({ type: "task.request", from: { agent_id: "agent:orchestrator" }, to: [{ agent_id: "agent:pm-1" }], payload: { title: "Analyze last quarter's sales trends", instructions: "Analyze last quarter's sales trends", input: { from: dana } } });
  const question = ev({ type: "chat.message", to: [{ agent_id: "user" }], payload: { text: "Regions, segments or overall?", expects_reply: true } });
  const answer = ev({ type: "chat.message", from: dana, to: [{ agent_id: "agent:pm-1" }], payload: { text: "By region", reply_to: question.id } });
  const toAnalyst = ev({ type: "chat.message", to: [{ agent_id: "agent:analyst-1" }], payload: { text: "Compare with 2016 too" } });
  const call = ev({ type: "tool.call", payload: { call_id: "c1", tool: "query_data" } });
  const sub = ev({ type: "task.result", task_id: "task_T11", parent_task_id: "task_T1", from: { agent_id: "agent:analyst-1" }, payload: { summary: "sub" } });
  const report = ev({ type: "chat.message", to: [{ agent_id: "user" }], payload: { text: "# Q4 2017 sales trends by region\n| West | $1.00 |" } });
  const result = ev({ type: "task.result", payload: { summary: "Q4 2017 up 12%", report_markdown: "# Q4 2017 sales trends by region", breakdown: [{ key: "West", sales: 1 }] } });
  const followUp = ev({ type: "chat.message", task_id: "task_T2", from: dana, to: [{ agent_id: "agent:pm-1" }], payload: { text: "Now by segment", reply_to: report.id }, meta: { follows: report.id } });
  const followUpRequest = ev({ type: "task.request", task_id: "task_T2", from: { agent_id: "agent:orchestrator" }, to: [{ agent_id: "agent:pm-1" }], payload: { title: "Now by segment", instructions: "Now by segment" }, meta: { follows: report.id } });
  return { events: [request, question, answer, toAnalyst, call, sub, report, result, followUp, followUpRequest], request, question, answer, report, result, followUpRequest };
}

describe("conversationHistory", () => {
  it("keeps the request, the question and answer, the report and the result, in order, and leaves out the machinery", () => {
    const { events, request, question, answer, report, result } = salesRun();
    const h = conversationHistory(events, "task_T2");
    expect(h.map((e) => [e.kind, e.event_id])).toEqual([
      ["request", request.id],
      ["question", question.id],
      ["answer", answer.id],
      ["message", report.id],
      ["result", result.id],
    ]);
    expect(h[0]!.from).toEqual(dana); // the person who asked, not the orchestrator
    expect(h[4]).toMatchObject({ text: "# Q4 2017 sales trends by region", data: { breakdown: [{ key: "West", sales: 1 }] } });
  });

  it("names the event a follow-up follows", () => {
    const { followUpRequest, request, report } = salesRun();
    expect(followsOf(followUpRequest)).toBe(report.id);
    expect(followsOf(request)).toBeNull();
  });
});

describe("renderHistory and compactJson", () => {
  it("renders who said what, with the data", () => {
    const { events } = salesRun();
    const text = renderHistory(conversationHistory(events, "task_T2"));
    expect(text).toContain("Dana (user:dana) asked:\nAnalyze last quarter's sales trends");
    expect(text).toContain("agent:pm-1 asked the people:\nRegions, segments or overall?");
    expect(text).toContain('Data: {"breakdown":[{"key":"West","sales":1}]}');
  });

  it("fits a long history into the budget, keeps the newest turn longest, and never cuts JSON", () => {
    const { events } = salesRun();
    const h = conversationHistory(events, "task_T2");
    const rows = Array.from({ length: 5000 }, (_, i) => ({ customer_id: `C-${i}`, sales: i * 1.5 }));
    h[4] = { ...h[4]!, text: "Report line\n".repeat(4000), data: { churn: rows } };
    h[0] = { ...h[0]!, text: "Old request ".repeat(3000) };
    const text = renderHistory(h, 12_000);
    expect(text.length).toBeLessThanOrEqual(12_000);
    expect(text).toContain("more characters left out");
    const data = /Data: (.*)/.exec(text)?.[1];
    expect(data).toBeDefined();
    expect(() => JSON.parse(data!)).not.toThrow();
    expect(data).toMatch(/more items left out/);
  });

  it("shortens arrays by whole items", () => {
    const s = compactJson({ rows: Array.from({ length: 100 }, (_, i) => ({ i })) }, 200);
    expect(s.length).toBeLessThanOrEqual(200);
    expect(JSON.parse(s).rows.at(-1)).toMatch(/^\(\d+ more items left out\)$/);
  });
});
