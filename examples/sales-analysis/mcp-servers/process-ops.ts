/**
 * `process_data`: named analyses over table `orders`, for an analyst who would rather not write
 * SQL. Each operation is validated with zod, built into parameterized SQL (caller values are bound,
 * never spliced; column names come from fixed enums) and run through {@link SuperstoreDb.select}.
 *
 * Conventions for every operation:
 * - a period is `"2017"`, `"2017-Q4"`, `"2017-12"` or `{ from: "YYYY-MM-DD", to: "YYYY-MM-DD", label? }`;
 *   both ends inclusive, on `order_date`;
 * - metrics: `sales` and `profit` (US dollars: summed exactly, then rounded half away from zero to
 *   the cent), `quantity` (units), `orders` (distinct order_id), `customers` (distinct customer_id);
 * - `change` = b − a (period_b minus period_a), from unrounded values; `change_pct` = change ÷ a × 100,
 *   one decimal, null when a ≤ 0 (a percent of a zero or negative base means nothing);
 * - `filters` restrict the rows first: `{ region: ["West"], segment: ["Corporate"], … }`.
 */
import { z } from "zod";
import type { SuperstoreDb } from "./superstore-db";

// ---------------------------------------------------------------------------------------------
// Periods
// ---------------------------------------------------------------------------------------------

/** A normalized period: inclusive ISO dates and a label for output keys. */
export interface Period {
  from: string;
  to: string;
  label: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function isRealDate(s: string): boolean {
  if (!ISO_DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function lastDayOfMonth(year: number, month: number): string {
  const d = new Date(Date.UTC(year, month, 0));
  return d.toISOString().slice(0, 10);
}

/**
 * Normalizes a period: `"2017"` → 2017-01-01..2017-12-31, `"2017-Q4"` → 2017-10-01..2017-12-31,
 * `"2017-12"` → 2017-12-01..2017-12-31, `{ from, to, label? }` as given (label defaults to
 * `from..to`). Returns a string error message instead when the period is invalid.
 */
export function normalizePeriod(p: string | { from: string; to: string; label?: string }): Period | string {
  if (typeof p === "string") {
    const s = p.trim().toUpperCase();
    let m = /^(\d{4})$/.exec(s);
    if (m) return { from: `${m[1]}-01-01`, to: `${m[1]}-12-31`, label: m[1] };
    m = /^(\d{4})-?Q([1-4])$/.exec(s);
    if (m) {
      const y = Number(m[1]);
      const q = Number(m[2]);
      const startMonth = (q - 1) * 3 + 1;
      return { from: `${m[1]}-${String(startMonth).padStart(2, "0")}-01`, to: lastDayOfMonth(y, startMonth + 2), label: `${m[1]}-Q${q}` };
    }
    m = /^(\d{4})-(\d{2})$/.exec(s);
    if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12) {
      return { from: `${m[1]}-${m[2]}-01`, to: lastDayOfMonth(Number(m[1]), Number(m[2])), label: `${m[1]}-${m[2]}` };
    }
    return `"${p}" is not a period; use "2017", "2017-Q4", "2017-12" or { "from": "2017-10-01", "to": "2017-12-31" }`;
  }
  if (!isRealDate(p.from)) return `from "${p.from}" is not a date (YYYY-MM-DD)`;
  if (!isRealDate(p.to)) return `to "${p.to}" is not a date (YYYY-MM-DD)`;
  if (p.from > p.to) return `from ${p.from} is after to ${p.to}`;
  return { from: p.from, to: p.to, label: p.label?.trim() || `${p.from}..${p.to}` };
}

/** The published (JSON-Schema-friendly) shape of a period. */
export const PeriodInput = z.union([
  z.string().min(4).max(10).describe('"2017", "2017-Q4" or "2017-12"'),
  z.object({
    from: z.string().describe("first day, YYYY-MM-DD, inclusive"),
    to: z.string().describe("last day, YYYY-MM-DD, inclusive"),
    label: z.string().max(40).optional().describe("name used in the output, e.g. \"Q4 2017\""),
  }),
]);

const PeriodSchema = PeriodInput.transform((p, ctx) => {
  const r = normalizePeriod(p);
  if (typeof r === "string") {
    ctx.addIssue({ code: "custom", message: r });
    return z.NEVER;
  }
  return r;
});

// ---------------------------------------------------------------------------------------------
// Metrics, dimensions, filters
// ---------------------------------------------------------------------------------------------

export const METRICS = ["sales", "profit", "quantity", "orders", "customers"] as const;
export type Metric = (typeof METRICS)[number];
const MetricSchema = z.enum(METRICS);

/**
 * Aggregates per metric. Money is summed exactly, in integer units of 1/10 000 dollar (the CSV has
 * at most four decimals), so a total never depends on summation order and a half cent rounds the
 * same way every time (see {@link present}).
 */
const METRIC_AGG: Record<Metric, string> = {
  sales: "SUM(CAST(round(sales * 10000) AS BIGINT))",
  profit: "SUM(CAST(round(profit * 10000) AS BIGINT))",
  quantity: "SUM(quantity)",
  orders: "COUNT(DISTINCT order_id)",
  customers: "COUNT(DISTINCT customer_id)",
};
/** Units per dollar of the money aggregates. */
const MONEY_UNITS = 10_000;
const MONEY = new Set<Metric>(["sales", "profit"]);

/** Columns compare_periods / time_series may group by. */
export const GROUP_BY = ["region", "state", "city", "segment", "category", "sub_category", "ship_mode"] as const;
/** Levels top_changes may rank. */
export const LEVELS = ["product", "customer", "sub_category", "category", "region", "state", "city", "segment"] as const;
type Level = (typeof LEVELS)[number];

const FILTER_COLUMNS = ["region", "state", "city", "segment", "category", "sub_category", "ship_mode", "customer_id", "product_id"] as const;
const FiltersSchema = z
  .object(Object.fromEntries(FILTER_COLUMNS.map((c) => [c, z.array(z.string().min(1).max(200)).min(1).max(100).optional()])) as Record<
    (typeof FILTER_COLUMNS)[number],
    z.ZodOptional<z.ZodArray<z.ZodString>>
  >)
  .describe('row filters, each a list of accepted values, e.g. { "region": ["West", "East"] }');
type Filters = z.infer<typeof FiltersSchema>;

/** Rounds half away from zero (e.g. −3047.165 → −3047.17, 0.125 → 0.13 at 2 digits). */
function roundHalfAway(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}
function roundTo(x: number, digits: number): number {
  const f = 10 ** digits;
  return roundHalfAway(x * f) / f;
}
function num(v: unknown): number {
  return typeof v === "number" ? v : v === null || v === undefined ? 0 : Number(v);
}
/**
 * A metric value for output: money from exact 1/10 000-dollar units to dollars rounded half away
 * from zero to the cent; counts as integers.
 */
function present(metric: Metric, v: number): number {
  return MONEY.has(metric) ? roundHalfAway(v / (MONEY_UNITS / 100)) / 100 : Math.round(v);
}
function pct(a: number, b: number): number | null {
  return a > 0 ? roundTo(((b - a) / a) * 100, 1) : null;
}

/** Builds the SQL condition and parameters for `filters`; names are `$f_<col>_<i>`. */
function filterSql(filters: Filters | undefined, params: Record<string, string>): string {
  if (!filters) return "TRUE";
  const parts: string[] = [];
  for (const col of FILTER_COLUMNS) {
    const values = filters[col];
    if (!values || values.length === 0) continue;
    const names = values.map((v, i) => {
      const n = `f_${col}_${i}`;
      params[n] = v;
      return `$${n}`;
    });
    parts.push(`${col} IN (${names.join(", ")})`);
  }
  return parts.length > 0 ? parts.join(" AND ") : "TRUE";
}

function between(prefix: string, p: Period, params: Record<string, string>): string {
  params[`${prefix}_from`] = p.from;
  params[`${prefix}_to`] = p.to;
  return `(order_date BETWEEN CAST($${prefix}_from AS DATE) AND CAST($${prefix}_to AS DATE))`;
}

// ---------------------------------------------------------------------------------------------
// Operation schemas
// ---------------------------------------------------------------------------------------------

const metricsField = {
  metric: MetricSchema.optional(),
  metrics: z.array(MetricSchema).min(1).max(METRICS.length).optional(),
};

function metricsOf(x: { metric?: Metric; metrics?: Metric[] }, fallback: Metric[] = ["sales"]): Metric[] {
  const all = [...(x.metrics ?? []), ...(x.metric ? [x.metric] : [])];
  return all.length > 0 ? [...new Set(all)] : fallback;
}

const ComparePeriods = z.object({
  operation: z.literal("compare_periods"),
  ...metricsField,
  group_by: z.enum(GROUP_BY).optional(),
  period_a: PeriodSchema,
  period_b: PeriodSchema,
  filters: FiltersSchema.optional(),
});
const TopChanges = z.object({
  operation: z.literal("top_changes"),
  metric: MetricSchema.optional(),
  level: z.enum(LEVELS).optional(),
  period_a: PeriodSchema,
  period_b: PeriodSchema,
  limit: z.number().int().min(1).max(50).optional(),
  filters: FiltersSchema.optional(),
});
const ChurnedCustomers = z.object({
  operation: z.literal("churned_customers"),
  metric: MetricSchema.optional(),
  active_in: z.array(PeriodSchema).min(1).max(12),
  absent_in: PeriodSchema,
  baselines: z.array(PeriodSchema).max(6).optional(),
  filters: FiltersSchema.optional(),
});
const TimeSeries = z.object({
  operation: z.literal("time_series"),
  ...metricsField,
  grain: z.enum(["month", "quarter", "year"]).optional(),
  period: PeriodSchema.optional(),
  group_by: z.enum(GROUP_BY).optional(),
  filters: FiltersSchema.optional(),
});
const Seasonality = z.object({
  operation: z.literal("seasonality"),
  metric: MetricSchema.optional(),
  month: z.number().int().min(1).max(12).optional(),
  filters: FiltersSchema.optional(),
});

/** The validated input of `process_data`, one branch per operation. */
export const ProcessDataSchema = z.discriminatedUnion("operation", [ComparePeriods, TopChanges, ChurnedCustomers, TimeSeries, Seasonality]);
export type ProcessDataInput = z.infer<typeof ProcessDataSchema>;
export const OPERATIONS = ["compare_periods", "top_changes", "churned_customers", "time_series", "seasonality"] as const;

/**
 * The flat input shape `process_data` publishes as its MCP inputSchema (an MCP tool's input must
 * be one JSON object schema); {@link ProcessDataSchema} then checks the fields per operation.
 */
export const ProcessDataInputShape = {
  operation: z.enum(OPERATIONS).describe("which analysis to run (see the tool description)"),
  metric: MetricSchema.optional().describe("sales | profit | quantity | orders | customers (default sales)"),
  metrics: z.array(MetricSchema).optional().describe("several metrics at once (compare_periods, time_series)"),
  group_by: z.enum(GROUP_BY).optional().describe("compare_periods / time_series: column to break down by"),
  level: z.enum(LEVELS).optional().describe("top_changes: what to rank (default product)"),
  period_a: PeriodInput.optional().describe("compare_periods / top_changes: the comparison (earlier) period"),
  period_b: PeriodInput.optional().describe("compare_periods / top_changes: the period under review"),
  limit: z.number().int().optional().describe("top_changes: how many per direction, 1–50 (default 5)"),
  active_in: z.array(PeriodInput).optional().describe("churned_customers: periods a customer must have ordered in, each"),
  absent_in: PeriodInput.optional().describe("churned_customers: period with no order from the customer"),
  baselines: z.array(PeriodInput).optional().describe("churned_customers: periods to total the churned customers' metric over"),
  grain: z.enum(["month", "quarter", "year"]).optional().describe("time_series: bucket size (default month)"),
  period: PeriodInput.optional().describe("time_series: range to cover (default all data)"),
  month: z.number().int().optional().describe("seasonality: month 1–12 (default 12, December)"),
  filters: FiltersSchema.optional(),
};

/** The tool description of `process_data` (what each operation takes and returns). */
export const PROCESS_DATA_DESCRIPTION = [
  "Named analyses over table orders, without writing SQL. Periods: \"2017\", \"2017-Q4\", \"2017-12\" or {from, to, label?} (inclusive dates).",
  "Metrics: sales, profit (USD, summed exactly, rounded half away from zero to cents), quantity, orders (distinct), customers (distinct). change = b − a; change_pct = change ÷ a × 100 (1 decimal; null when a ≤ 0).",
  "Optional filters: {region|state|city|segment|category|sub_category|ship_mode|customer_id|product_id: [values]}.",
  "Operations:",
  "• compare_periods {metric|metrics, group_by?, period_a, period_b} → rows per group with <metric>_a, <metric>_b, <metric>_change, <metric>_change_pct, and total. Example: {operation:\"compare_periods\", metrics:[\"sales\",\"profit\"], group_by:\"region\", period_a:\"2016-Q4\", period_b:\"2017-Q4\"}.",
  "• top_changes {metric?, level? (product|customer|sub_category|…), period_a, period_b, limit?} → increases and decreases (largest change first; ties by key) with key, name, a, b, change, change_pct. Products are grouped by product_id.",
  "• churned_customers {active_in: [periods], absent_in, baselines?: [periods], metric?} → customers with an order in every active_in period and none in absent_in, each with the metric in each baseline; totals per baseline; absent_in_total (everyone's metric in absent_in).",
  "• time_series {metric|metrics, grain? (month|quarter|year), period?, group_by?} → rows per bucket (period key \"2017-12\", \"2017-Q4\" or \"2017\").",
  "• seasonality {metric?, month? (default 12)} → per year: month_value, other_months_avg (mean of the other 11 months), index = month_value ÷ other_months_avg (3 decimals), share_pct, previous_month_value, prior_year_month_value.",
].join("\n");

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

function periodOut(p: Period) {
  return { from: p.from, to: p.to, label: p.label };
}

async function comparePeriods(db: SuperstoreDb, op: z.infer<typeof ComparePeriods>, signal?: AbortSignal) {
  const metrics = metricsOf(op);
  const params: Record<string, string> = {};
  const inA = between("a", op.period_a, params);
  const inB = between("b", op.period_b, params);
  const where = `(${inA} OR ${inB}) AND ${filterSql(op.filters, params)}`;
  const aggs = metrics
    .flatMap((m) => [`coalesce(${METRIC_AGG[m]} FILTER (WHERE ${inA}), 0) AS "${m}_a"`, `coalesce(${METRIC_AGG[m]} FILTER (WHERE ${inB}), 0) AS "${m}_b"`])
    .join(", ");
  const shape = (r: Record<string, unknown>) => {
    const o: Record<string, unknown> = {};
    for (const m of metrics) {
      const a = num(r[`${m}_a`]);
      const b = num(r[`${m}_b`]);
      o[`${m}_a`] = present(m, a);
      o[`${m}_b`] = present(m, b);
      o[`${m}_change`] = present(m, b - a);
      o[`${m}_change_pct`] = pct(a, b);
    }
    return o;
  };
  const rows = op.group_by
    ? (await db.select(`SELECT ${op.group_by} AS grp, ${aggs} FROM orders WHERE ${where} GROUP BY 1 ORDER BY 1`, params, signal)).map((r) => ({
        [op.group_by as string]: r.grp,
        ...shape(r),
      }))
    : [];
  const [total] = await db.select(`SELECT ${aggs} FROM orders WHERE ${where}`, params, signal);
  return {
    operation: "compare_periods",
    metrics,
    group_by: op.group_by ?? null,
    period_a: periodOut(op.period_a),
    period_b: periodOut(op.period_b),
    filters: op.filters ?? {},
    rows,
    total: shape(total),
  };
}

const LEVEL_SQL: Record<Level, { key: string; name: string; extra: string }> = {
  product: { key: "product_id", name: "string_agg(DISTINCT product_name, ' / ' ORDER BY product_name)", extra: "any_value(category) AS category, any_value(sub_category) AS sub_category" },
  customer: { key: "customer_id", name: "string_agg(DISTINCT customer_name, ' / ' ORDER BY customer_name)", extra: "any_value(segment) AS segment" },
  sub_category: { key: "sub_category", name: "any_value(sub_category)", extra: "any_value(category) AS category" },
  category: { key: "category", name: "any_value(category)", extra: "NULL AS none" },
  region: { key: "region", name: "any_value(region)", extra: "NULL AS none" },
  state: { key: "state", name: "any_value(state)", extra: "any_value(region) AS region" },
  city: { key: "city || ', ' || state", name: "any_value(city || ', ' || state)", extra: "any_value(region) AS region" },
  segment: { key: "segment", name: "any_value(segment)", extra: "NULL AS none" },
};

async function topChanges(db: SuperstoreDb, op: z.infer<typeof TopChanges>, signal?: AbortSignal) {
  const metric = op.metric ?? "sales";
  const level = op.level ?? "product";
  const limit = op.limit ?? 5;
  const L = LEVEL_SQL[level];
  const params: Record<string, string> = {};
  const inA = between("a", op.period_a, params);
  const inB = between("b", op.period_b, params);
  const where = `(${inA} OR ${inB}) AND ${filterSql(op.filters, params)}`;
  const sql = `
    WITH per AS (
      SELECT ${L.key} AS key,
             coalesce(${METRIC_AGG[metric]} FILTER (WHERE ${inA}), 0) AS a,
             coalesce(${METRIC_AGG[metric]} FILTER (WHERE ${inB}), 0) AS b
      FROM orders WHERE ${where} GROUP BY 1
    ), names AS (
      SELECT ${L.key} AS key, ${L.name} AS name, ${L.extra} FROM orders GROUP BY 1
    )
    SELECT * FROM per JOIN names USING (key)`;
  const rows = await db.select(sql, params, signal);
  const items = rows.map((r) => {
    const a = num(r.a);
    const b = num(r.b);
    const extra: Record<string, unknown> = {};
    for (const k of ["category", "sub_category", "segment", "region"]) if (r[k] !== undefined && r[k] !== null) extra[k] = r[k];
    return { key: String(r.key), name: String(r.name), ...extra, exact: b - a, a, b };
  });
  const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
  const out = (x: (typeof items)[number]) => {
    const { exact, a, b, ...rest } = x;
    return { ...rest, a: present(metric, a), b: present(metric, b), change: present(metric, exact), change_pct: pct(a, b) };
  };
  const increases = items.filter((x) => x.exact > 0).sort((x, y) => y.exact - x.exact || byKey(x, y)).slice(0, limit).map(out);
  const decreases = items.filter((x) => x.exact < 0).sort((x, y) => x.exact - y.exact || byKey(x, y)).slice(0, limit).map(out);
  return {
    operation: "top_changes",
    metric,
    level,
    key: level === "product" ? "product_id" : level === "customer" ? "customer_id" : level,
    period_a: periodOut(op.period_a),
    period_b: periodOut(op.period_b),
    filters: op.filters ?? {},
    compared: items.length,
    increases,
    decreases,
  };
}

async function churnedCustomers(db: SuperstoreDb, op: z.infer<typeof ChurnedCustomers>, signal?: AbortSignal) {
  const metric = op.metric ?? "sales";
  const params: Record<string, string> = {};
  const filters = filterSql(op.filters, params);
  const flags = op.active_in.map((p, i) => `bool_or(${between(`act${i}`, p, params)}) AS act${i}`);
  const absent = between("abs", op.absent_in, params);
  const baselines = op.baselines ?? [];
  const labels = baselines.map((p) => p.label);
  if (new Set(labels).size !== labels.length) throw new Error("baselines need distinct labels; give each a label");
  const baseAggs = baselines.map((p, i) => `coalesce(${METRIC_AGG[metric]} FILTER (WHERE ${between(`base${i}`, p, params)}), 0) AS base${i}`);
  const sql = `
    WITH flags AS (
      SELECT customer_id, ${flags.join(", ")}, bool_or(${absent}) AS absent
      FROM orders WHERE ${filters} GROUP BY 1
    ), churned AS (
      SELECT customer_id FROM flags WHERE ${op.active_in.map((_, i) => `act${i}`).join(" AND ")} AND NOT absent
    )
    SELECT o.customer_id, any_value(o.customer_name) AS customer_name, any_value(o.segment) AS segment
           ${baseAggs.length > 0 ? ", " + baseAggs.join(", ") : ""}
    FROM orders o JOIN churned USING (customer_id)
    WHERE ${filters}
    GROUP BY 1`;
  const rows = await db.select(sql, params, signal);
  const customers = rows.map((r) => {
    const values: Record<string, number> = {};
    baselines.forEach((p, i) => (values[p.label] = num(r[`base${i}`])));
    return { customer_id: String(r.customer_id), customer_name: String(r.customer_name), segment: String(r.segment), values };
  });
  const first = labels[0];
  customers.sort((x, y) => (first ? y.values[first] - x.values[first] : 0) || (x.customer_id < y.customer_id ? -1 : 1));
  const totals: Record<string, number> = {};
  for (const l of labels) totals[l] = present(metric, customers.reduce((s, c) => s + c.values[l], 0));
  const absParams: Record<string, string> = {};
  const absWhere = `${between("abs", op.absent_in, absParams)} AND ${filterSql(op.filters, absParams)}`;
  const [abs] = await db.select(`SELECT coalesce(${METRIC_AGG[metric]}, 0) AS v FROM orders WHERE ${absWhere}`, absParams, signal);
  return {
    operation: "churned_customers",
    metric,
    active_in: op.active_in.map(periodOut),
    absent_in: periodOut(op.absent_in),
    baselines: baselines.map(periodOut),
    filters: op.filters ?? {},
    count: customers.length,
    customers: customers.map((c) => ({
      customer_id: c.customer_id,
      customer_name: c.customer_name,
      segment: c.segment,
      ...Object.fromEntries(labels.map((l) => [l, present(metric, c.values[l])])),
    })),
    totals,
    absent_in_total: present(metric, num(abs.v)),
  };
}

const BUCKET_SQL = {
  month: "strftime(order_date, '%Y-%m')",
  quarter: "CAST(year(order_date) AS VARCHAR) || '-Q' || CAST(quarter(order_date) AS VARCHAR)",
  year: "CAST(year(order_date) AS VARCHAR)",
} as const;

async function timeSeries(db: SuperstoreDb, op: z.infer<typeof TimeSeries>, signal?: AbortSignal) {
  const metrics = metricsOf(op);
  const grain = op.grain ?? "month";
  const params: Record<string, string> = {};
  const range = op.period ? between("p", op.period, params) : "TRUE";
  const group = op.group_by ? `, ${op.group_by} AS grp` : "";
  const aggs = metrics.map((m) => `${METRIC_AGG[m]} AS "${m}"`).join(", ");
  const rows = await db.select(
    `SELECT ${BUCKET_SQL[grain]} AS bucket${group}, ${aggs} FROM orders WHERE ${range} AND ${filterSql(op.filters, params)} GROUP BY ALL ORDER BY ALL`,
    params,
    signal,
  );
  return {
    operation: "time_series",
    metrics,
    grain,
    period: op.period ? periodOut(op.period) : null,
    group_by: op.group_by ?? null,
    filters: op.filters ?? {},
    rows: rows.map((r) => ({
      period: r.bucket,
      ...(op.group_by ? { [op.group_by]: r.grp } : {}),
      ...Object.fromEntries(metrics.map((m) => [m, present(m, num(r[m]))])),
    })),
  };
}

async function seasonality(db: SuperstoreDb, op: z.infer<typeof Seasonality>, signal?: AbortSignal) {
  const metric = op.metric ?? "sales";
  const month = op.month ?? 12;
  const params: Record<string, string> = {};
  const rows = await db.select(
    `SELECT year(order_date) AS y, month(order_date) AS m, ${METRIC_AGG[metric]} AS v FROM orders WHERE ${filterSql(op.filters, params)} GROUP BY ALL ORDER BY ALL`,
    params,
    signal,
  );
  const byYear = new Map<number, number[]>();
  for (const r of rows) {
    const y = num(r.y);
    if (!byYear.has(y)) byYear.set(y, new Array(13).fill(0));
    byYear.get(y)![num(r.m)] = num(r.v);
  }
  const years = [...byYear.keys()].sort((a, b) => a - b);
  const valueAt = (y: number, m: number) => byYear.get(y)?.[m] ?? 0;
  const out = years.map((y) => {
    const months = byYear.get(y)!;
    const value = months[month];
    const total = months.reduce((s, v) => s + v, 0);
    const otherAvg = (total - value) / 11;
    const prevMonth = month === 1 ? valueAt(y - 1, 12) : months[month - 1];
    const prior = byYear.has(y - 1) ? valueAt(y - 1, month) : null;
    return {
      year: y,
      month_value: present(metric, value),
      year_total: present(metric, total),
      other_months_avg: present(metric, otherAvg),
      index: otherAvg > 0 ? roundTo(value / otherAvg, 3) : null,
      share_pct: total > 0 ? roundTo((value / total) * 100, 1) : null,
      previous_month_value: present(metric, prevMonth),
      change_vs_previous_month_pct: pct(prevMonth, value),
      prior_year_month_value: prior === null ? null : present(metric, prior),
      change_vs_prior_year_pct: prior === null ? null : pct(prior, value),
    };
  });
  return { operation: "seasonality", metric, month, filters: op.filters ?? {}, years: out };
}

/**
 * Runs one validated `process_data` operation (parse the input with {@link ProcessDataSchema}
 * first). Output: the operation's result object (see {@link PROCESS_DATA_DESCRIPTION}). Throws
 * `QueryFailedError` when DuckDB fails or is interrupted (`signal` aborts it).
 */
export async function runProcessData(db: SuperstoreDb, op: ProcessDataInput, signal?: AbortSignal): Promise<Record<string, unknown>> {
  switch (op.operation) {
    case "compare_periods":
      return comparePeriods(db, op, signal);
    case "top_changes":
      return topChanges(db, op, signal);
    case "churned_customers":
      return churnedCustomers(db, op, signal);
    case "time_series":
      return timeSeries(db, op, signal);
    case "seasonality":
      return seasonality(db, op, signal);
  }
}
