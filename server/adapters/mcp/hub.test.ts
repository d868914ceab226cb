/**
 * The MCP hub against the real example servers (examples/sales-analysis/mcp.json), over stdio:
 * DocsServer, DataServer (DuckDB over the Superstore CSV) and SummaryServer. Figures are checked
 * against sums computed here straight from the CSV, without DuckDB.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CapMcpBinding } from "@/lib/protocol/cap";
import { readSuperstoreCsv } from "@/test/superstore";
import { McpHub, isMcpToolError, type McpToolError } from "./hub";

/** Money as exact integers of 1/10 000 dollar: the CSV has at most four decimals. */
interface Order {
  date: string;
  region: string;
  customer: string;
  product: string;
  sales: number;
  profit: number;
}
const units = (s: string) => Math.round(Number(s) * 10_000);

const ORDERS: Order[] = readSuperstoreCsv().map((r) => ({
  date: r["Order Date"]!,
  region: r["Region"]!,
  customer: r["Customer ID"]!,
  product: r["Product ID"]!,
  sales: units(r["Sales"]!),
  profit: units(r["Profit"]!),
}));

const Q = {
  q4_2017: ["2017-10-01", "2017-12-31"],
  q3_2017: ["2017-07-01", "2017-09-30"],
  q4_2016: ["2016-10-01", "2016-12-31"],
  q1_2017: ["2017-01-01", "2017-03-31"],
  q2_2017: ["2017-04-01", "2017-06-30"],
  y2016: ["2016-01-01", "2016-12-31"],
} as const;
const inP = (o: Order, p: readonly [string, string]) => o.date >= p[0] && o.date <= p[1];

function byRegion(p: readonly [string, string]): Map<string, { sales: number; profit: number }> {
  const m = new Map<string, { sales: number; profit: number }>();
  for (const o of ORDERS) {
    if (!inP(o, p)) continue;
    const v = m.get(o.region) ?? { sales: 0, profit: 0 };
    v.sales += o.sales;
    v.profit += o.profit;
    m.set(o.region, v);
  }
  return m;
}
const sum = (rows: Order[], f: (o: Order) => number) => rows.reduce((s, o) => s + f(o), 0);
/** Dollars from units, for comparing with floating-point SQL sums. */
const dollars = (u: number) => u / 10_000;
/** Units → dollars rounded half away from zero to the cent (exact: the units are integers). */
const cents = (u: number) => (Math.sign(u) * Math.round(Math.abs(u) / 100)) / 100;
const pct1 = (a: number, b: number) => (Math.sign(b - a) * Math.round(Math.abs(((b - a) / a) * 1000))) / 10;

// ---------------------------------------------------------------------------------------------

const ALL: CapMcpBinding[] = [
  { server_id: "DocsServer", scopes: ["read:docs"], allowed_tools: ["list_documents", "read_file", "create_summary"] },
  { server_id: "DataServer", scopes: ["read:data"], allowed_tools: ["query_data", "process_data", "describe_table", "no_such_tool"] },
  { server_id: "SummaryServer", scopes: ["write:summary"], allowed_tools: ["create_summary"] },
];
/** pm-1's bindings in seed 000: DataServer with query_data only; no SummaryServer. */
const PM: CapMcpBinding[] = [
  { server_id: "DocsServer", scopes: ["read:docs", "write:summary"], allowed_tools: ["list_documents", "read_file", "create_summary"] },
  { server_id: "DataServer", scopes: ["read:data"], allowed_tools: ["query_data"] },
];

/** Runs a call expected to fail and returns its McpToolError. */
async function failure(p: Promise<unknown>): Promise<McpToolError> {
  try {
    await p;
  } catch (e) {
    if (isMcpToolError(e)) return e;
    throw e;
  }
  throw new Error("the call succeeded but was expected to fail");
}

const HEAVY_SQL = "SELECT count(*) AS n FROM orders a, orders b, orders c WHERE a.sales + b.sales + c.sales < 0";

let hub: McpHub;
const stderr: string[] = [];

beforeAll(async () => {
  hub = await McpHub.fromFile("examples/sales-analysis/mcp.json", { onStderr: (id, line) => stderr.push(`${id}: ${line}`) });
});
afterAll(async () => {
  await hub?.close();
});

async function data(args: Record<string, unknown>, bindings = ALL) {
  return hub.callTool({ bindings, server_id: "DataServer", tool: args.sql ? "query_data" : "process_data", arguments: args });
}

describe("DocsServer", () => {
  it("lists the project documents with titles and sizes", async () => {
    const r = await hub.callTool({ bindings: PM, server_id: "DocsServer", tool: "list_documents", arguments: {} });
    const docs = (r.result as { documents: { name: string; title: string; size: number }[] }).documents;
    const names = docs.map((d) => d.name);
    expect(names).toContain("project-spec-q4-sales-trends.md");
    expect(names).toContain("data-dictionary.md");
    const spec = docs.find((d) => d.name === "project-spec-q4-sales-trends.md")!;
    expect(spec.title).toBe("Project spec: Q4 sales trends analysis");
    expect(spec.size).toBe(fs.statSync("examples/sales-analysis/docs/project-spec-q4-sales-trends.md").size);
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("reads a document by its relative path", async () => {
    const r = await hub.callTool({ bindings: PM, server_id: "DocsServer", tool: "read_file", arguments: { path: "project-spec-q4-sales-trends.md" } });
    const doc = r.result as { path: string; text: string; size: number };
    expect(doc.path).toBe("project-spec-q4-sales-trends.md");
    expect(doc.text).toBe(fs.readFileSync("examples/sales-analysis/docs/project-spec-q4-sales-trends.md", "utf8"));
  });

  it("refuses paths outside the docs folder", async () => {
    for (const p of ["../../../package.json", "/etc/passwd", "docs/../../mcp.json", "..", "nope.md"]) {
      const e = await failure(hub.callTool({ bindings: PM, server_id: "DocsServer", tool: "read_file", arguments: { path: p } }));
      expect(e.code).toBe("TOOL_ERROR");
      expect(e.retryable).toBe(false);
      expect(e.message).toMatch(/outside the docs folder|absolute|no document|folder, not a document/);
    }
  });

  it("summarizes a document deterministically, keeping its headings", async () => {
    const call = () =>
      hub.callTool({ bindings: PM, server_id: "DocsServer", tool: "create_summary", arguments: { path: "project-spec-q4-sales-trends.md", max_sentences: 4 } });
    const a = (await call()).result as { title: string; headings: { text: string }[]; sentences: { text: string }[]; summary: string };
    const b = (await call()).result;
    expect(b).toEqual(a);
    expect(a.title).toBe("Project spec: Q4 sales trends analysis");
    expect(a.headings.map((h) => h.text)).toContain("3. Churned customers");
    expect(a.sentences).toHaveLength(4);
    const spec = fs.readFileSync("examples/sales-analysis/docs/project-spec-q4-sales-trends.md", "utf8").replace(/\s+/g, " ").toLowerCase();
    for (const s of a.sentences) expect(spec).toContain(s.text.slice(0, 30).toLowerCase());
  });
});

describe("DataServer query_data", () => {
  it("returns Q4 2017 sales and profit by region equal to the CSV", async () => {
    const r = await data({
      sql: "SELECT region, SUM(sales) AS sales, SUM(profit) AS profit, COUNT(*) AS lines FROM orders WHERE order_date BETWEEN DATE '2017-10-01' AND DATE '2017-12-31' GROUP BY region ORDER BY region",
    });
    const res = r.result as { columns: { name: string; type: string }[]; rows: { region: string; sales: number; profit: number; lines: number }[]; row_count: number; truncated: boolean };
    expect(res.columns.map((c) => c.name)).toEqual(["region", "sales", "profit", "lines"]);
    expect(res.row_count).toBe(4);
    expect(res.truncated).toBe(false);
    const expected = byRegion(Q.q4_2017);
    expect(res.rows.map((x) => x.region)).toEqual(["Central", "East", "South", "West"]);
    for (const row of res.rows) {
      expect(row.sales).toBeCloseTo(dollars(expected.get(row.region)!.sales), 6);
      expect(row.profit).toBeCloseTo(dollars(expected.get(row.region)!.profit), 6);
      expect(row.lines).toBe(ORDERS.filter((o) => o.region === row.region && inP(o, Q.q4_2017)).length);
    }
  });

  it("limits rows and says the result was truncated", async () => {
    const r = await data({ sql: "SELECT row_id, order_date FROM orders ORDER BY row_id", limit: 10 });
    const res = r.result as { rows: { row_id: number; order_date: string }[]; row_count: number; truncated: boolean };
    expect(res.row_count).toBe(10);
    expect(res.truncated).toBe(true);
    expect(res.rows[0]).toEqual({ row_id: 1, order_date: "2016-11-08" });
  });

  it.each([
    ["COPY orders TO '/tmp/clutch-leak.csv'", /COPY statements are not allowed/],
    ["CREATE TABLE t AS SELECT 1", /only read-only SELECT.*CREATE/],
    ["INSERT INTO orders SELECT * FROM orders", /only read-only SELECT.*INSERT/],
    ["UPDATE orders SET sales = 0", /only read-only SELECT.*UPDATE/],
    ["DROP TABLE orders", /only read-only SELECT.*DROP/],
    ["ATTACH '/tmp/clutch-other.db' AS other", /only read-only SELECT.*ATTACH/],
    ["SELECT * FROM read_csv('/etc/passwd')", /reading files or URLs is not allowed/],
    ["SELECT * FROM read_text('/etc/hostname')", /reading files or URLs is not allowed/],
    ["SET enable_external_access = true", /only read-only SELECT.*SET/],
    ["INSTALL httpfs", /only read-only SELECT/],
    ["SELECT 1; DROP TABLE orders", /exactly one statement/],
    ["EXPLAIN ANALYZE SELECT * FROM orders", /only read-only SELECT.*EXPLAIN/],
  ])("refuses %s", async (sql, message) => {
    const e = await failure(data({ sql }));
    expect(e.code).toBe("TOOL_ERROR");
    expect(e.retryable).toBe(false);
    expect(e.message).toMatch(message);
  });

  it("still has the whole table after the refused statements", async () => {
    const r = await data({ sql: "WITH t AS (SELECT * FROM orders) SELECT count(*) AS n, sum(sales) AS s FROM t" });
    const row = (r.result as { rows: { n: number; s: number }[] }).rows[0];
    expect(row.n).toBe(ORDERS.length);
    expect(row.s).toBeCloseTo(dollars(sum(ORDERS, (o) => o.sales)), 6);
    expect(fs.existsSync("/tmp/clutch-leak.csv")).toBe(false);
  });

  it("reports bad SQL as a tool error with DuckDB's message", async () => {
    const e = await failure(data({ sql: "SELECT no_such_column FROM orders" }));
    expect(e).toMatchObject({ code: "TOOL_ERROR", retryable: false });
    expect(e.message).toMatch(/no_such_column/);
  });

  // memory_limit_mb (mcp.json) is enforced with Linux's prlimit.
  it.skipIf(process.platform !== "linux")("refuses a value larger than its memory limit, and goes on serving", async () => {
    const e = await failure(data({ sql: "SELECT length(repeat('x', 1500000000)) AS n" }));
    expect(e).toMatchObject({ code: "TOOL_ERROR", retryable: false });
    expect(e.message).toMatch(/Out of Memory/);
    const r = await data({ sql: "SELECT count(*) AS n FROM orders" });
    expect((r.result as { rows: { n: number }[] }).rows[0]!.n).toBe(ORDERS.length);
  });

  it("refuses a result of more than 2,000,000 characters", async () => {
    const e = await failure(data({ sql: "SELECT repeat('x', 100000) AS s FROM range(30)", limit: 100 }));
    expect(e.message).toMatch(/the result is 3,000,\d{3} characters, over the limit of 2,000,000/);
  });
});

describe("DataServer process_data", () => {
  it("compare_periods: Q4 2017 against Q4 2016 and Q3 2017 by region, as in the CSV", async () => {
    for (const base of [Q.q4_2016, Q.q3_2017]) {
      const r = await data({
        operation: "compare_periods",
        metrics: ["sales", "profit"],
        group_by: "region",
        period_a: { from: base[0], to: base[1] },
        period_b: "2017-Q4",
      });
      const res = r.result as { rows: Record<string, number & string>[]; total: Record<string, number> };
      const a = byRegion(base);
      const b = byRegion(Q.q4_2017);
      expect(res.rows.map((x) => x.region)).toEqual(["Central", "East", "South", "West"]);
      for (const row of res.rows) {
        const ra = a.get(row.region)!;
        const rb = b.get(row.region)!;
        expect(row.sales_a).toBe(cents(ra.sales));
        expect(row.sales_b).toBe(cents(rb.sales));
        expect(row.sales_change).toBe(cents(rb.sales - ra.sales));
        expect(row.sales_change_pct).toBe(pct1(ra.sales, rb.sales));
        expect(row.profit_a).toBe(cents(ra.profit));
        expect(row.profit_b).toBe(cents(rb.profit));
        expect(row.profit_change).toBe(cents(rb.profit - ra.profit));
        expect(row.profit_change_pct).toBe(ra.profit > 0 ? pct1(ra.profit, rb.profit) : null);
      }
      const totalA = sum(ORDERS.filter((o) => inP(o, base)), (o) => o.sales);
      const totalB = sum(ORDERS.filter((o) => inP(o, Q.q4_2017)), (o) => o.sales);
      expect(res.total.sales_a).toBe(cents(totalA));
      expect(res.total.sales_b).toBe(cents(totalB));
    }
  });

  it("top_changes: the five products up and down, Q4 2017 against Q4 2016", async () => {
    const r = await data({ operation: "top_changes", metric: "sales", level: "product", period_a: "2016-Q4", period_b: "2017-Q4", limit: 5 });
    const res = r.result as { increases: { key: string; change: number; a: number; b: number }[]; decreases: { key: string; change: number }[] };
    const change = new Map<string, number>();
    for (const o of ORDERS) {
      if (inP(o, Q.q4_2017)) change.set(o.product, (change.get(o.product) ?? 0) + o.sales);
      if (inP(o, Q.q4_2016)) change.set(o.product, (change.get(o.product) ?? 0) - o.sales);
    }
    const all = [...change.entries()].map(([key, c]) => ({ key, c }));
    const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : 1);
    const up = all.filter((x) => x.c > 0).sort((x, y) => y.c - x.c || byKey(x, y)).slice(0, 5);
    const down = all.filter((x) => x.c < 0).sort((x, y) => x.c - y.c || byKey(x, y)).slice(0, 5);
    expect(res.increases.map((x) => x.key)).toEqual(up.map((x) => x.key));
    expect(res.decreases.map((x) => x.key)).toEqual(down.map((x) => x.key));
    res.increases.forEach((x, i) => expect(x.change).toBe(cents(up[i].c)));
    res.decreases.forEach((x, i) => expect(x.change).toBe(cents(down[i].c)));
    // FUR-BO-10002213 changed by exactly −3,047.165 (359.499 − 3,406.664): half a cent rounds away from zero.
    expect(res.decreases.find((x) => x.key === "FUR-BO-10002213")?.change).toBe(-3047.17);
  });

  it("churned_customers: active in Q1–Q3 2017, absent in Q4 2017, with their 2016 sales", async () => {
    const r = await data({
      operation: "churned_customers",
      active_in: ["2017-Q1", "2017-Q2", "2017-Q3"],
      absent_in: "2017-Q4",
      baselines: [{ from: "2016-01-01", to: "2016-12-31", label: "2016" }, { from: "2016-10-01", to: "2016-12-31", label: "Q4 2016" }],
    });
    const res = r.result as { count: number; customers: { customer_id: string }[]; totals: Record<string, number>; absent_in_total: number };
    const active = (p: readonly [string, string]) => new Set(ORDERS.filter((o) => inP(o, p)).map((o) => o.customer));
    const [a1, a2, a3, q4] = [active(Q.q1_2017), active(Q.q2_2017), active(Q.q3_2017), active(Q.q4_2017)];
    const churned = [...a1].filter((c) => a2.has(c) && a3.has(c) && !q4.has(c)).sort();
    expect(churned.length).toBeGreaterThan(0);
    expect(res.count).toBe(churned.length);
    expect(res.customers.map((c) => c.customer_id).sort()).toEqual(churned);
    const set = new Set(churned);
    expect(res.totals["2016"]).toBe(cents(sum(ORDERS.filter((o) => set.has(o.customer) && inP(o, Q.y2016)), (o) => o.sales)));
    expect(res.totals["Q4 2016"]).toBe(cents(sum(ORDERS.filter((o) => set.has(o.customer) && inP(o, Q.q4_2016)), (o) => o.sales)));
    expect(res.absent_in_total).toBe(cents(sum(ORDERS.filter((o) => inP(o, Q.q4_2017)), (o) => o.sales)));
  });

  it("seasonality: December against the mean of January–November, per year", async () => {
    const r = await data({ operation: "seasonality", metric: "sales", month: 12 });
    const years = (r.result as { years: { year: number; month_value: number; other_months_avg: number; index: number }[] }).years;
    expect(years.map((y) => y.year)).toEqual([2014, 2015, 2016, 2017]);
    for (const y of years) {
      const dec = sum(ORDERS.filter((o) => o.date.startsWith(`${y.year}-12`)), (o) => o.sales);
      const rest = sum(ORDERS.filter((o) => o.date.startsWith(`${y.year}-`) && !o.date.startsWith(`${y.year}-12`)), (o) => o.sales) / 11;
      expect(y.month_value).toBe(cents(dec));
      expect(y.other_months_avg).toBe(cents(rest));
      expect(y.index).toBe(Math.round((dec / rest) * 1000) / 1000);
    }
  });

  it("explains invalid operation input", async () => {
    const e = await failure(data({ operation: "compare_periods", period_a: "2016-Q5", period_b: { from: "2017-02-30", to: "2017-03-01" } }));
    expect(e.code).toBe("TOOL_ERROR");
    expect(e.message).toMatch(/period_a: "2016-Q5" is not a period/);
    expect(e.message).toMatch(/period_b: from "2017-02-30" is not a date/);
  });
});

describe("SummaryServer", () => {
  it("renders structured findings as markdown, deterministically", async () => {
    const args = {
      title: "QA review of the Q4 analysis",
      sections: [
        { heading: "Recomputed", facts: { "West Q4 2017 sales": 79806.318 }, bullets: ["Recomputed West with an independent query."] },
        { heading: "By region", table: { columns: ["region", "sales"], rows: [["West", 79806.318], ["East", 98023.255]] } },
      ],
    };
    const bindings = [ALL[2]];
    const a = await hub.callTool({ bindings, server_id: "SummaryServer", tool: "create_summary", arguments: args });
    const b = await hub.callTool({ bindings, server_id: "SummaryServer", tool: "create_summary", arguments: args });
    const summary = (a.result as { summary: string }).summary;
    expect((b.result as { summary: string }).summary).toBe(summary);
    expect(summary).toContain("# QA review of the Q4 analysis");
    expect(summary).toContain("- **West Q4 2017 sales**: 79,806.32");
    expect(summary).toContain("| West | 79,806.32 |");
  });

  it("refuses a call with neither text nor sections", async () => {
    const e = await failure(hub.callTool({ bindings: [ALL[2]], server_id: "SummaryServer", tool: "create_summary", arguments: { title: "x" } }));
    expect(e.code).toBe("TOOL_ERROR");
    expect(e.message).toMatch(/give `text`, or `title` with `sections`/);
  });
});

describe("bindings", () => {
  it("refuses a tool outside allowed_tools before anything is sent", async () => {
    const fresh = await McpHub.fromFile("examples/sales-analysis/mcp.json");
    try {
      const e = await failure(fresh.callTool({ bindings: PM, server_id: "DataServer", tool: "process_data", arguments: { operation: "seasonality" } }));
      expect(e).toMatchObject({ code: "TOOL_NOT_ALLOWED", retryable: false, duration_ms: 0, server_id: "DataServer", tool: "process_data" });
      expect(e.message).toContain('tool "process_data" of DataServer is not in this agent\'s allowed_tools for DataServer (query_data)');
      expect(e.toPayload()).toMatchObject({ code: "TOOL_NOT_ALLOWED", retryable: false, tool: "process_data", server_id: "DataServer" });

      const e2 = await failure(fresh.callTool({ bindings: PM, server_id: "SummaryServer", tool: "create_summary", arguments: { text: "x" } }));
      expect(e2.code).toBe("TOOL_NOT_ALLOWED");
      expect(e2.message).toContain('MCP server "SummaryServer" is not in this agent\'s mcp_bindings (bound: DocsServer, DataServer)');

      // Nothing was started, so nothing was sent.
      expect(fresh.status().every((s) => s.state === "stopped" && s.starts === 0 && s.pid === null)).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it("lists only the tools an agent's bindings allow", async () => {
    const { tools, unavailable } = await hub.toolsFor(PM);
    expect(unavailable).toEqual([]);
    expect(tools.map((t) => `${t.server_id}.${t.name}`)).toEqual([
      "DocsServer.create_summary",
      "DocsServer.list_documents",
      "DocsServer.read_file",
      "DataServer.query_data",
    ]);
    const q = tools.find((t) => t.name === "query_data")!;
    expect(q.input_schema.properties).toHaveProperty("sql");
  });

  it("reports a bound server missing from the workspace, and a tool the server lacks", async () => {
    const bindings = [...ALL, { server_id: "CrmServer", scopes: [], allowed_tools: ["lookup"] }];
    const e = await failure(hub.callTool({ bindings, server_id: "CrmServer", tool: "lookup", arguments: {} }));
    expect(e).toMatchObject({ code: "TOOL_UNAVAILABLE", retryable: false });
    expect(e.message).toContain('no MCP server "CrmServer" in the workspace file');
    const e2 = await failure(hub.callTool({ bindings, server_id: "DataServer", tool: "no_such_tool", arguments: {} }));
    expect(e2).toMatchObject({ code: "TOOL_UNAVAILABLE", retryable: false });
    expect(e2.message).toMatch(/DataServer has no tool "no_such_tool"; it offers: .*query_data/);
  });
});

describe("failures", () => {
  it("a call that takes too long gives TOOL_TIMEOUT (retryable) and the server goes on", async () => {
    await data({ sql: "SELECT 1 AS one" });
    const e = await failure(hub.callTool({ bindings: ALL, server_id: "DataServer", tool: "query_data", arguments: { sql: HEAVY_SQL }, timeout_ms: 300 }));
    expect(e).toMatchObject({ code: "TOOL_TIMEOUT", retryable: true, details: { timeout_ms: 300 } });
    expect(e.duration_ms).toBeGreaterThanOrEqual(300);
    const after = await data({ sql: "SELECT count(*) AS n FROM orders" });
    expect((after.result as { rows: { n: number }[] }).rows[0].n).toBe(ORDERS.length);
    expect(hub.status().find((s) => s.server_id === "DataServer")!.restarts).toBe(0);
  });

  it("a server killed during a call gives TOOL_UNAVAILABLE (retryable); the next call restarts it", async () => {
    await data({ sql: "SELECT 1 AS one" });
    const before = hub.status().find((s) => s.server_id === "DataServer")!;
    expect(before.state).toBe("running");
    const pending = failure(hub.callTool({ bindings: ALL, server_id: "DataServer", tool: "query_data", arguments: { sql: HEAVY_SQL }, timeout_ms: 30_000 }));
    await new Promise((r) => setTimeout(r, 100));
    process.kill(before.pid!, "SIGKILL");
    const e = await pending;
    expect(e).toMatchObject({ code: "TOOL_UNAVAILABLE", retryable: true, server_id: "DataServer", tool: "query_data" });
    expect(e.message).toMatch(/stopped while running query_data.*restarted on the next call/);

    const again = await data({ sql: "SELECT count(*) AS n FROM orders" });
    expect((again.result as { rows: { n: number }[] }).rows[0].n).toBe(ORDERS.length);
    const after = hub.status().find((s) => s.server_id === "DataServer")!;
    expect(after).toMatchObject({ state: "running", restarts: before.restarts + 1 });
    expect(after.pid).not.toBe(before.pid);
  });

  it("a server that died while idle is restarted by the next call", async () => {
    const before = hub.status().find((s) => s.server_id === "SummaryServer")!;
    if (before.state !== "running") await hub.listTools("SummaryServer");
    const pid = hub.status().find((s) => s.server_id === "SummaryServer")!.pid!;
    process.kill(pid, "SIGKILL");
    for (let i = 0; i < 100 && hub.status().find((s) => s.server_id === "SummaryServer")!.state !== "crashed"; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(hub.status().find((s) => s.server_id === "SummaryServer")!.state).toBe("crashed");
    const r = await hub.callTool({ bindings: ALL, server_id: "SummaryServer", tool: "create_summary", arguments: { text: "One sentence about sales. Another sentence about profit." } });
    expect((r.result as { kind: string }).kind).toBe("text");
  });

  it("a server that cannot start gives TOOL_UNAVAILABLE (retryable) with its stderr", async () => {
    const broken = new McpHub({ mcpServers: { Broken: { command: "node", args: ["-e", "console.error('missing config: BROKEN_URL'); process.exit(3)"] } } });
    try {
      const e = await failure(broken.callTool({ bindings: [{ server_id: "Broken", scopes: [], allowed_tools: ["x"] }], server_id: "Broken", tool: "x" }));
      expect(e).toMatchObject({ code: "TOOL_UNAVAILABLE", retryable: true });
      expect(e.message).toMatch(/could not start/);
      expect(e.message).toContain("missing config: BROKEN_URL");
    } finally {
      await broken.close();
    }
  });
});

describe("DocsServer with a link out of its folder", () => {
  it("refuses a symlink that points outside the docs folder", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-docs-"));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-secret-"));
    fs.writeFileSync(path.join(dir, "ok.md"), "# OK\n\nA fine document.\n");
    fs.writeFileSync(path.join(outside, "secret.md"), "# Secret\n");
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(dir, "link.md"));
    const own = new McpHub(
      { mcpServers: { DocsServer: { command: "node", args: ["--import", "tsx", "examples/sales-analysis/mcp-servers/docs-server.ts"], env: { CLUTCH_DOCS_DIR: dir } } } },
      { onStderr: () => {} },
    );
    try {
      const ok = await own.callTool({ bindings: PM, server_id: "DocsServer", tool: "read_file", arguments: { path: "ok.md" } });
      expect((ok.result as { title: string }).title).toBe("OK");
      const e = await failure(own.callTool({ bindings: PM, server_id: "DocsServer", tool: "read_file", arguments: { path: "link.md" } }));
      expect(e.code).toBe("TOOL_ERROR");
      expect(e.message).toMatch(/leads outside the docs folder/);
    } finally {
      await own.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("close", () => {
  it("stops every server process and refuses later calls", async () => {
    const own = await McpHub.fromFile("examples/sales-analysis/mcp.json", { onStderr: () => {} });
    await own.listTools("SummaryServer");
    const pid = own.status().find((s) => s.server_id === "SummaryServer")!.pid!;
    await own.close();
    expect(() => process.kill(pid, 0)).toThrow();
    expect(own.status().every((s) => s.state === "closed" && s.pid === null)).toBe(true);
    const e = await failure(own.callTool({ bindings: ALL, server_id: "SummaryServer", tool: "create_summary", arguments: { text: "x" } }));
    expect(e).toMatchObject({ code: "TOOL_UNAVAILABLE", retryable: false });
  });
});

describe("relative paths in the workspace file", () => {
  it("name files next to the file, wherever Clutch was started", async () => {
    const file = path.resolve("examples/sales-analysis/mcp.json");
    const started = process.cwd();
    process.chdir(os.tmpdir());
    let own: McpHub | undefined;
    try {
      own = await McpHub.fromFile(file, { onStderr: () => {} });
      const spec = await own.callTool({ bindings: PM, server_id: "DocsServer", tool: "read_file", arguments: { path: "project-spec-q4-sales-trends.md" } });
      expect((spec.result as { text: string }).text).toContain("Q4");
    } finally {
      process.chdir(started);
      await own?.close();
    }
  });
});
