/**
 * The seed's PM → Analyst → QA example, made real: a person asks in a channel, answers the
 * clarifying question, and the team answers with figures equal to those computed here straight
 * from the CSV. Built-in model, real MCP servers, real PostgreSQL, every step through the one
 * append path.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import type { AgentSummary, RunSummary, TaskSummary } from "@/lib/api/types";
import * as agentsRoute from "@/app/api/agents/route";
import * as runRoute from "@/app/api/runs/[run_id]/route";
import * as threadRunsRoute from "@/app/api/threads/[thread_id]/runs/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import { personMessage } from "@/server/events/chat";
import { asAdmin, taskRow } from "./helpers";
import { say, scratchWorkspace, startAgents, threadEvents, waitFor, answer } from "./agents";
import { figures, loadOrders, money } from "./superstore";

let rt: Clutch;
let thread_id: string;

beforeAll(async () => {
  const ws = scratchWorkspace();
  rt = await startAgents(ws.dir);
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
});

const byType = (events: StoredEvent[], type: string, from?: string) => events.filter((e) => e.type === type && (!from || e.from.agent_id === from));

describe("sales analysis scenario", () => {
  it("plans, asks, delegates, reviews and reports real figures", async () => {
    await say(rt, thread_id, "Analyze last quarter's sales trends");
    const question = await waitFor(rt, thread_id, "pm-1's clarifying question", (evs) =>
      evs.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.payload.expects_reply),
    );
    expect(question.payload.text).toMatch(/regional breakdowns, customer segments, or overall trend/);
    const waiting = await taskRow(rt, question.task_id);
    expect(waiting.state).toBe("waiting_input");

    const reply = await answer(rt, thread_id, "Regional breakdown by major market");
    expect(reply).toMatchObject({ run_id: question.run_id, task_id: question.task_id, payload: { reply_to: question.id } });

    const run_id = question.run_id;
    const run = await runFinished(rt, run_id);
    expect(run).toMatchObject({ state: "succeeded", task_total: 3, task_done: 3 });

    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === run_id);
    const requests = byType(events, "task.request");
    const [t1, t11, review] = requests;
    // The seed's T1 → T1.1 → T1.1.1 tree, one run.
    expect(requests.map((e) => [e.to[0]!.agent_id, e.parent_task_id ?? null])).toEqual([
      ["agent:pm-1", null],
      ["agent:analyst-1", t1!.task_id],
      ["agent:qa-1", t11!.task_id],
    ]);
    expect(review!.meta?.review_of).toBe(t11!.task_id);

    // The steps of the scenario, in order.
    const step = (pred: (e: StoredEvent) => boolean, what: string) => {
      const e = events.find(pred);
      if (!e) throw new Error(`missing: ${what}`);
      return e.seq;
    };
    const order = [
      step((e) => e.type === "routing.decision" && e.task_id === t1!.task_id && e.payload.selected === "agent:pm-1", "routing to pm-1"),
      step((e) => e.type === "tool.call" && e.payload.server_id === "DocsServer" && e.payload.tool === "read_file", "pm reads the spec"),
      step((e) => e.id === question.id, "the clarifying question"),
      step((e) => e.id === reply.id, "the person's answer"),
      step((e) => e.type === "tool.call" && e.from.agent_id === "agent:pm-1" && e.payload.tool === "query_data", "pm queries DataServer"),
      step((e) => e.id === t11!.id, "delegation to analyst-1"),
      step((e) => e.type === "chat.message" && e.from.agent_id === "agent:analyst-1" && e.to[0]?.agent_id === "agent:pm-1", "analyst's follow-up"),
      step((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "agent:analyst-1", "pm's answer"),
      step((e) => e.id === review!.id, "the review task to qa-1"),
      step((e) => e.type === "tool.call" && e.from.agent_id === "agent:qa-1" && e.payload.tool === "query_data", "qa recomputes"),
      step((e) => e.type === "chat.message" && e.from.agent_id === "agent:qa-1" && e.payload.inquiry === true, "qa's oversight inquiry"),
      step((e) => e.type === "chat.message" && e.from.agent_id === "agent:analyst-1" && e.to[0]?.agent_id === "agent:qa-1", "analyst answers qa"),
      step((e) => e.type === "task.result" && e.task_id === review!.task_id && e.payload.decision === "approved", "qa approves"),
      step((e) => e.type === "task.result" && e.task_id === t11!.task_id, "the analysis returns to pm-1"),
      step((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user" && !e.payload.expects_reply, "the final report"),
      step((e) => e.type === "task.result" && e.task_id === t1!.task_id, "pm's result"),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));

    // Only after qa's approval does anything of the analysis reach pm-1.
    const approval = events.find((e) => e.type === "task.result" && e.task_id === review!.task_id)!;
    const analysis = events.find((e) => e.type === "task.result" && e.task_id === t11!.task_id)!;
    expect(analysis.meta?.approved_by).toBe("agent:qa-1");
    expect(events.filter((e) => e.type === "task.result" && e.task_id === t11!.task_id)).toHaveLength(1);
    expect(events.some((e) => e.seq < approval.seq && e.type === "task.result" && e.task_id === t11!.task_id)).toBe(false);
    expect(approval.payload_type).toBe("review.feedback.v1");

    // Every figure of the final report equals the same figure computed from the CSV.
    const report = byType(events, "chat.message", "agent:pm-1").at(-1)!.payload.text as string;
    const f = figures(loadOrders());
    for (const r of f.byRegion) {
      const row = report.split("\n").find((l) => l.startsWith(`| ${r.region} |`) && l.includes(money(r.sales_q4_2017)));
      expect(row, `sales row of ${r.region}`).toBeDefined();
      for (const v of [r.sales_q4_2017, r.sales_q4_2016, r.sales_q3_2017]) expect(row).toContain(`$${money(v)}`);
      expect(report).toContain(`${r.profit_q4_2017 < 0 ? "-" : ""}$${money(r.profit_q4_2017)}`);
    }
    expect(report).toContain(`$${money(f.total_q4_2017)}`);
    for (const p of [...f.up, ...f.down]) {
      const line = report.split("\n").find((l) => l.includes(`| ${p.product_id} |`));
      expect(line, p.product_id).toBeDefined();
      expect(line).toContain(`${p.change < 0 ? "-" : "+"}$${money(p.change)}`);
    }
    expect(report).toContain(`**${f.churn.count}** customers`);
    expect(report).toContain(`$${money(f.churn.sales_2016)}`);
    for (const v of Object.values(f.december)) expect(report).toContain(`$${money(v)}`);

    // What the UI reads: the run's header, its task tree, the agents and their status.
    const runs = (await (await threadRunsRoute.GET(await asAdmin("http://t"), { params: Promise.resolve({ thread_id }) })).json()) as { runs: RunSummary[] };
    expect(runs.runs).toEqual([
      expect.objectContaining({ run_id, state: "succeeded", task_total: 3, task_done: 3, title: "Analyze last quarter's sales trends", first_seq: order[0] }),
    ]);
    const detail = (await (await runRoute.GET(await asAdmin("http://t"), { params: Promise.resolve({ run_id }) })).json()) as { tasks: TaskSummary[] };
    expect(detail.tasks.map((t) => [t.assignee, t.state])).toEqual([
      ["agent:pm-1", "succeeded"],
      ["agent:analyst-1", "succeeded"],
      ["agent:qa-1", "succeeded"],
    ]);
    const listed = (await (await agentsRoute.GET(await asAdmin("http://t"), undefined as never)).json()) as { agents: AgentSummary[] };
    for (const id of ["agent:pm-1", "agent:analyst-1", "agent:qa-1"]) {
      // Other test files may be running these agents right now: online or busy, never offline.
      expect(listed.agents.find((a) => a.agent_id === id)).toMatchObject({ status: expect.stringMatching(/^(online|busy)$/), max_concurrency: 4 });
    }
  });

  it("carries on when the person replies to the report: a follow-up task of the same run, answered for the agreed period with figures equal to the CSV", async () => {
    const events = await threadEvents(rt, thread_id);
    const report = events.findLast((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user")!;
    const run_id = report.run_id;
    const first = byType(events, "task.request").find((e) => e.run_id === run_id && !e.parent_task_id)!;

    const res = await messagesRoute.POST(
      await asAdmin(`http://t/api/threads/${thread_id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Now break it down by customer segment", reply_to: report.id }) }),
      { params: Promise.resolve({ thread_id }) },
    );
    expect(res.status).toBe(201);
    const { event: followUp } = (await res.json()) as { event: StoredEvent };
    expect(followUp).toMatchObject({ run_id, parent_task_id: null, to: [{ agent_id: "agent:pm-1" }], payload: { reply_to: report.id }, meta: { follows: report.id } });
    expect(followUp.task_id).not.toBe(first.task_id);

    const result = await waitFor(rt, thread_id, "pm-1's follow-up result", (evs) => evs.find((e) => e.type === "task.result" && e.task_id === followUp.task_id));
    const all = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === run_id);
    const request = all.find((e) => e.type === "task.request" && e.task_id === followUp.task_id)!;
    expect(request).toMatchObject({ parent_task_id: null, to: [{ agent_id: "agent:pm-1" }], meta: { follows: report.id, follow_up_message: followUp.id } });

    // pm-1 answered in the channel for Q4 2017, the period agreed above, with the CSV's figures per segment.
    const answerText = String(all.findLast((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.task_id === followUp.task_id)!.payload.text);
    expect(answerText).toContain("Q4 2017 by customer segment");
    const f = figures(loadOrders());
    expect(f.bySegment.map((s) => s.segment)).toEqual(["Consumer", "Corporate", "Home Office"]);
    for (const s of f.bySegment) {
      const row = answerText.split("\n").find((l) => l.startsWith(`| ${s.segment} |`) && l.includes(money(s.sales_q4_2017)));
      expect(row, `sales row of ${s.segment}`).toBeDefined();
      for (const v of [s.sales_q4_2017, s.sales_q4_2016, s.sales_q3_2017]) expect(row).toContain(`$${money(v)}`);
      expect(answerText).toContain(`${s.profit_q4_2017 < 0 ? "-" : ""}$${money(s.profit_q4_2017)}`);
    }
    expect(answerText).toContain(`$${money(f.total_q4_2017)}`);
    expect(result.payload.dimension).toBe("segment");

    // The run went on: one more root task, succeeded; the card keeps the report's result and lists the follow-up under it.
    await runFinished(rt, run_id);
    const listed = (await (await threadRunsRoute.GET(await asAdmin("http://t"), { params: Promise.resolve({ thread_id }) })).json()) as { runs: RunSummary[] };
    const run = listed.runs.find((r) => r.run_id === run_id)!;
    expect(run).toMatchObject({ state: "succeeded", status: "succeeded", waiting_on: [], task_total: 4, task_done: 4, title: "Analyze last quarter's sales trends" });
    expect(run.outcome?.task_id).toBe(first.task_id);
    expect(run.follow_ups).toEqual([
      { task_id: followUp.task_id, title: "Now break it down by customer segment", state: "succeeded", outcome: expect.objectContaining({ kind: "result", task_id: followUp.task_id }) },
    ]);

    // A question already answered cannot be answered again.
    const question = all.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.payload.expects_reply)!;
    const again = await messagesRoute.POST(
      await asAdmin(`http://t/api/threads/${thread_id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Actually, by region", reply_to: question.id }) }),
      { params: Promise.resolve({ thread_id }) },
    );
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "already_answered", message: expect.stringContaining("Dana already answered") });
  });
});

describe("parallel runs", () => {
  it("runs two requests at once, each agent task in an instance of its own", async () => {
    await Promise.all([say(rt, thread_id, "Analyze last quarter's sales trends"), say(rt, thread_id, "Analyze last quarter's sales trends, again please")]);
    const questions = await waitFor(rt, thread_id, "two open questions", (evs) => {
      const qs = evs.filter((e) => e.from.agent_id === "agent:pm-1" && e.payload.expects_reply && !evs.some((a) => a.payload.reply_to === e.id));
      return qs.length === 2 ? qs : undefined;
    });
    await Promise.all(
      questions.map(async (q) => rt.store.append(await personMessage(rt.store.queries, thread_id, { text: "Regional breakdown by major market", reply_to: q.id }, { agent_id: "user:dana", display_name: "Dana" }))),
    );
    const runs = await Promise.all(questions.map((q) => runFinished(rt, q.run_id)));
    expect(runs.map((r) => r.state)).toEqual(["succeeded", "succeeded"]);

    const events = await threadEvents(rt, thread_id);
    const analystTasks = questions.map((q) => events.find((e) => e.type === "task.request" && e.run_id === q.run_id && e.to[0]?.agent_id === "agent:analyst-1")!.task_id);
    const instances = analystTasks.map((task_id) => events.find((e) => e.type === "task.accept" && e.task_id === task_id)!.payload.instance_id);
    expect(new Set(instances).size).toBe(2);
    // Both analyst instances were at work at the same time.
    const span = (task_id: string) => {
      const own = events.filter((e) => e.task_id === task_id);
      return [own[0]!.seq, own.at(-1)!.seq] as const;
    };
    const [a, b] = analystTasks.map(span) as [readonly [number, number], readonly [number, number]];
    expect(a[0] < b[1] && b[0] < a[1]).toBe(true);
  });
});

async function runFinished(rt: Clutch, run_id: string) {
  const end = Date.now() + 120_000;
  for (;;) {
    const r = await rt.store.queries.run(run_id);
    if (r && r.state !== "running") return r;
    if (Date.now() > end) throw new Error(`run ${run_id} still ${r?.state ?? "missing"}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}
