/**
 * The SQL the built-in model's playbooks send to DataServer's `query_data` (DuckDB, table
 * `orders`; see examples/sales-analysis/docs/data-dictionary.md). One named constant (or, where
 * a query has a parameter chosen from a fixed list, one function of it) per query, so a reader
 * sees every statement the example runs.
 *
 * Periods follow the project spec (examples/sales-analysis/docs/project-spec-q4-sales-trends.md):
 * order_date, inclusive at both ends. Q4 2017 = 2017-10-01..2017-12-31 (the last quarter),
 * Q3 2017 = 2017-07-01..2017-09-30, Q4 2016 = 2016-10-01..2016-12-31. No other filter.
 *
 * Playbooks recognise their own earlier calls by comparing `input.sql` with these texts
 * ({@link sameSql}), so a constant must stay byte-for-byte stable within a run.
 */

/** A period of the analysis: label and inclusive order-date bounds (ISO dates). */
export interface Period {
  label: string;
  from: string;
  to: string;
}

export const PERIODS = {
  current: { label: "Q4 2017", from: "2017-10-01", to: "2017-12-31" },
  previous_quarter: { label: "Q3 2017", from: "2017-07-01", to: "2017-09-30" },
  previous_year: { label: "Q4 2016", from: "2016-10-01", to: "2016-12-31" },
} as const satisfies Record<string, Period>;

/** How the analysis breaks sales down: by region (major market), by segment, or the total only. */
export type Dimension = "region" | "segment" | "total";

const between = (p: Period) => `order_date BETWEEN DATE '${p.from}' AND DATE '${p.to}'`;
const { current: CUR, previous_quarter: PQ, previous_year: PY } = PERIODS;

/** pm-1's overview: sales, profit, orders and customers per quarter of 2016 and 2017. */
export const SQL_PM_QUARTERLY_OVERVIEW = `SELECT year(order_date) AS year, quarter(order_date) AS quarter,
  SUM(sales) AS sales, SUM(profit) AS profit,
  COUNT(DISTINCT order_id) AS orders, COUNT(DISTINCT customer_id) AS customers
FROM orders
WHERE order_date BETWEEN DATE '2016-01-01' AND DATE '2017-12-31'
GROUP BY ALL
ORDER BY year, quarter`;

/**
 * analyst-1 (a): sales and profit of the three periods per region or segment, with the total
 * (ROLLUP) as the last row; for `total`, one row `Total`. Columns: key, sales_q4_2017,
 * sales_q3_2017, sales_q4_2016, profit_q4_2017, profit_q3_2017, profit_q4_2016, orders_q4_2017.
 */
export function sqlBreakdown(dim: Dimension): string {
  const measures = `
  COALESCE(SUM(sales) FILTER (WHERE ${between(CUR)}), 0) AS sales_q4_2017,
  COALESCE(SUM(sales) FILTER (WHERE ${between(PQ)}), 0) AS sales_q3_2017,
  COALESCE(SUM(sales) FILTER (WHERE ${between(PY)}), 0) AS sales_q4_2016,
  COALESCE(SUM(profit) FILTER (WHERE ${between(CUR)}), 0) AS profit_q4_2017,
  COALESCE(SUM(profit) FILTER (WHERE ${between(PQ)}), 0) AS profit_q3_2017,
  COALESCE(SUM(profit) FILTER (WHERE ${between(PY)}), 0) AS profit_q4_2016,
  COUNT(DISTINCT order_id) FILTER (WHERE ${between(CUR)}) AS orders_q4_2017`;
  const where = `WHERE ${between(CUR)} OR ${between(PQ)} OR ${between(PY)}`;
  if (dim === "total") return `SELECT 'Total' AS key,${measures}\nFROM orders\n${where}`;
  return `SELECT COALESCE(${dim}, 'Total') AS key,${measures}
FROM orders
${where}
GROUP BY ROLLUP (${dim})
ORDER BY GROUPING(${dim}), ${dim}`;
}

/**
 * analyst-1 (b): the five products (Product IDs, names next to them) with the largest increase
 * (`desc`) or decrease (`asc`) in sales, Q4 2017 against Q4 2016; a product absent in a quarter
 * counts as 0; ties broken by product_id.
 */
function sqlTopProducts(order: "DESC" | "ASC"): string {
  return `WITH by_product AS (
  SELECT product_id,
    STRING_AGG(DISTINCT product_name, ' / ' ORDER BY product_name) AS product_name,
    MIN(category) AS category,
    COALESCE(SUM(sales) FILTER (WHERE ${between(CUR)}), 0) AS sales_q4_2017,
    COALESCE(SUM(sales) FILTER (WHERE ${between(PY)}), 0) AS sales_q4_2016
  FROM orders
  WHERE ${between(CUR)} OR ${between(PY)}
  GROUP BY product_id
)
SELECT product_id, product_name, category, sales_q4_2017, sales_q4_2016,
  sales_q4_2017 - sales_q4_2016 AS change
FROM by_product
ORDER BY change ${order}, product_id
LIMIT 5`;
}
export const SQL_TOP_PRODUCTS_INCREASE = sqlTopProducts("DESC");
export const SQL_TOP_PRODUCTS_DECREASE = sqlTopProducts("ASC");

/**
 * analyst-1 (c): churned customers of `year`: at least one order in each of Q1, Q2 and Q3 of
 * `year` and none in its Q4, one row per customer with their sales the year before (calendar
 * year and Q4) and in Q1–Q3 of `year`; the count and the sums repeat on every row (window
 * totals), so they hold even if the list were cut by the row limit.
 */
export function sqlChurnedCustomers(year: number): string {
  const y = Math.trunc(year);
  const b = (from: string, to: string) => `order_date BETWEEN DATE '${from}' AND DATE '${to}'`;
  return `WITH per_customer AS (
  SELECT customer_id, MIN(customer_name) AS customer_name, MIN(segment) AS segment,
    COUNT(*) FILTER (WHERE ${b(`${y}-01-01`, `${y}-03-31`)}) AS lines_q1,
    COUNT(*) FILTER (WHERE ${b(`${y}-04-01`, `${y}-06-30`)}) AS lines_q2,
    COUNT(*) FILTER (WHERE ${b(`${y}-07-01`, `${y}-09-30`)}) AS lines_q3,
    COUNT(*) FILTER (WHERE ${b(`${y}-10-01`, `${y}-12-31`)}) AS lines_q4,
    COALESCE(SUM(sales) FILTER (WHERE ${b(`${y - 1}-01-01`, `${y - 1}-12-31`)}), 0) AS sales_year_before,
    COALESCE(SUM(sales) FILTER (WHERE ${b(`${y - 1}-10-01`, `${y - 1}-12-31`)}), 0) AS sales_q4_year_before,
    COALESCE(SUM(sales) FILTER (WHERE ${b(`${y}-01-01`, `${y}-09-30`)}), 0) AS sales_q1_q3
  FROM orders
  GROUP BY customer_id
)
SELECT customer_id, customer_name, segment, sales_year_before, sales_q4_year_before, sales_q1_q3,
  COUNT(*) OVER () AS churned_customers,
  SUM(sales_year_before) OVER () AS total_sales_year_before,
  SUM(sales_q4_year_before) OVER () AS total_sales_q4_year_before,
  SUM(sales_q1_q3) OVER () AS total_sales_q1_q3
FROM per_customer
WHERE lines_q1 > 0 AND lines_q2 > 0 AND lines_q3 > 0 AND lines_q4 = 0
ORDER BY sales_year_before DESC, customer_id`;
}
export const SQL_CHURNED_2017 = sqlChurnedCustomers(2017);
/** The same pattern a year earlier (asked for after pm-1's answer to the follow-up). */
export const SQL_CHURNED_2016 = sqlChurnedCustomers(2016);

/** analyst-1 (d): sales, profit and orders per month, 2014–2017 (48 rows). */
export const SQL_MONTHLY_SALES = `SELECT year(order_date) AS year, month(order_date) AS month,
  SUM(sales) AS sales, SUM(profit) AS profit, COUNT(DISTINCT order_id) AS orders
FROM orders
GROUP BY ALL
ORDER BY year, month`;

/**
 * qa-1's independent recomputation of the current quarter by region or segment (a different
 * formulation from the analyst's: year()/quarter() instead of date ranges, no ROLLUP).
 */
export function sqlQaRecompute(dim: Dimension): string {
  const where = "WHERE year(order_date) = 2017 AND quarter(order_date) = 4";
  if (dim === "total") return `SELECT 'Total' AS key, SUM(sales) AS sales, SUM(profit) AS profit\nFROM orders\n${where}`;
  return `SELECT ${dim} AS key, SUM(sales) AS sales, SUM(profit) AS profit
FROM orders
${where}
GROUP BY ${dim}
ORDER BY ${dim}`;
}

/** Row limit the analyst asks for on the churn list (the default of 200 would do; explicit). */
export const CHURN_LIST_LIMIT = 500;

/** True when two SQL texts are the same statement (whitespace-insensitive). */
export function sameSql(a: unknown, b: string): boolean {
  return typeof a === "string" && a.replace(/\s+/g, " ").trim() === b.replace(/\s+/g, " ").trim();
}
