/**
 * The Superstore orders table in an in-memory DuckDB database, locked down for read-only SQL.
 *
 * `SuperstoreDb.open(csv)` loads the CSV into table `orders` with snake_case columns and typed
 * values ({@link ORDERS_COLUMNS}), then turns off every way for SQL to reach the outside world:
 * `enable_external_access = false` (no file, HTTP or ATTACH access; no extension loading), extension
 * auto-install/auto-load off, and `lock_configuration = true` so no statement can turn them back on.
 * It checks the lock took effect before it serves a query.
 *
 * `query(sql)` runs exactly one read-only statement: DuckDB itself splits the text into statements
 * (`extractStatements`) and prepares the one statement; its prepared `statementType` must be
 * SELECT (which covers `WITH … SELECT`, `VALUES`, `FROM …`, `DESCRIBE`, `SHOW`, `SUMMARIZE` and
 * table-function PRAGMAs). Anything else (INSERT, CREATE, COPY, ATTACH, SET, EXPLAIN, CALL, …) is
 * refused with a {@link QueryRefusedError}. A query is interrupted when its `signal` aborts (the
 * client cancelled or timed out) or after `queryTimeoutMs`. DuckDB runs with DUCKDB_THREADS threads
 * and DUCKDB_MEMORY_LIMIT, and a result larger than MAX_RESULT_CHARS is refused.
 */
import { DuckDBInstance, DuckDBTypeId, StatementType, type DuckDBConnection, type DuckDBResultReader, type DuckDBValue } from "@duckdb/node-api";

/** A column of `orders`: SQL name, DuckDB type, CSV header and meaning. */
export interface OrdersColumn {
  name: string;
  type: "INTEGER" | "VARCHAR" | "DATE" | "DOUBLE";
  source: string;
  description: string;
}

/** The columns of table `orders`, in order (see examples/sales-analysis/docs/data-dictionary.md). */
export const ORDERS_COLUMNS: readonly OrdersColumn[] = [
  { name: "row_id", type: "INTEGER", source: "Row ID", description: "line number in the export; unique per row" },
  { name: "order_id", type: "VARCHAR", source: "Order ID", description: "order number; an order has one or more rows" },
  { name: "order_date", type: "DATE", source: "Order Date", description: "day the order was placed; period filters use it" },
  { name: "ship_date", type: "DATE", source: "Ship Date", description: "day the order shipped" },
  { name: "ship_mode", type: "VARCHAR", source: "Ship Mode", description: "Same Day, First Class, Second Class or Standard Class" },
  { name: "customer_id", type: "VARCHAR", source: "Customer ID", description: "customer key; count customers by it" },
  { name: "customer_name", type: "VARCHAR", source: "Customer Name", description: "customer's contact name" },
  { name: "segment", type: "VARCHAR", source: "Segment", description: "Consumer, Corporate or Home Office" },
  { name: "country", type: "VARCHAR", source: "Country", description: "always United States" },
  { name: "city", type: "VARCHAR", source: "City", description: "ship-to city" },
  { name: "state", type: "VARCHAR", source: "State", description: "ship-to state, full name" },
  { name: "postal_code", type: "VARCHAR", source: "Postal Code", description: "ZIP code as text; leading zeros were lost in the export" },
  { name: "region", type: "VARCHAR", source: "Region", description: "sales region: Central, East, South or West" },
  { name: "product_id", type: "VARCHAR", source: "Product ID", description: "product key (a few IDs carry two names)" },
  { name: "category", type: "VARCHAR", source: "Category", description: "Furniture, Office Supplies or Technology" },
  { name: "sub_category", type: "VARCHAR", source: "Sub-Category", description: "one of 17 sub-categories" },
  { name: "product_name", type: "VARCHAR", source: "Product Name", description: "product description" },
  { name: "sales", type: "DOUBLE", source: "Sales", description: "line revenue in US dollars, after discount" },
  { name: "quantity", type: "INTEGER", source: "Quantity", description: "units on the line" },
  { name: "discount", type: "DOUBLE", source: "Discount", description: "discount rate 0–0.8 (0.2 = 20% off)" },
  { name: "profit", type: "DOUBLE", source: "Profit", description: "line profit in US dollars; negative for a loss" },
];

/** Default and maximum number of rows `query` returns. */
export const DEFAULT_QUERY_LIMIT = 200;
export const MAX_QUERY_LIMIT = 5000;
/** Default server-side time limit of one query, in milliseconds. */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;
/**
 * DuckDB's own limits: its buffer manager (sorts, joins, aggregates) and worker threads. A single
 * huge value (`repeat('x', 1500000000)`) is allocated outside the buffer manager, so the process
 * as a whole is also capped by `memory_limit_mb` in mcp.json (docs/limits.md).
 */
export const DUCKDB_MEMORY_LIMIT = "512MB";
export const DUCKDB_THREADS = 2;
/** Most characters (keys and values, as JSON) one query result may hold. */
export const MAX_RESULT_CHARS = 2_000_000;

/** A statement `query` will not run (not exactly one read-only SELECT). The message says why. */
export class QueryRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QueryRefusedError";
  }
}

/** A statement DuckDB could not parse, bind or run (bad SQL, unknown column, interrupted …). */
export class QueryFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QueryFailedError";
  }
}

/** A column of a query result: its name and DuckDB type (e.g. `DOUBLE`, `DATE`, `VARCHAR`). */
export interface ResultColumn {
  name: string;
  type: string;
}

/** The result of {@link SuperstoreDb.query}. */
export interface QueryResult {
  columns: ResultColumn[];
  /** Row objects keyed by column name (duplicate names get DuckDB's `_1`, `_2` suffixes). */
  rows: Record<string, unknown>[];
  /** Number of rows in `rows` (at most the limit). */
  row_count: number;
  /** True when the statement produced more rows than the limit; only the first `limit` are given. */
  truncated: boolean;
}

/** Statement kinds that are plainly not reads, for a clearer refusal when DuckDB cannot prepare them. */
const WRITE_KEYWORDS = new Set([
  "ALTER", "ATTACH", "CALL", "CHECKPOINT", "COMMENT", "COPY", "CREATE", "DELETE", "DETACH", "DROP", "EXPORT",
  "IMPORT", "INSERT", "INSTALL", "LOAD", "MERGE", "PRAGMA", "RESET", "SET", "TRUNCATE", "UPDATE", "USE", "VACUUM",
  "BEGIN", "COMMIT", "ROLLBACK", "ABORT", "PREPARE", "EXECUTE", "DEALLOCATE", "EXPLAIN", "ANALYZE", "UPSERT",
]);

function firstKeyword(sql: string): string | undefined {
  const s = sql.replace(/^(\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)+/, "");
  return /^[A-Za-z_]+/.exec(s)?.[0].toUpperCase();
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split("\n")[0].trim();
}

const INTEGER_STRING_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT,
]);

/** Converts result rows to JSON values; 64/128-bit integers and decimals become numbers when exact enough. */
function readRows(reader: DuckDBResultReader, limit: number): { columns: ResultColumn[]; rows: Record<string, unknown>[] } {
  const names = reader.deduplicatedColumnNames();
  const columns = names.map((name, i) => ({ name, type: reader.columnType(i).toString() }));
  const typeIds = names.map((_, i) => reader.columnTypeId(i));
  const raw = reader.getRowsJson().slice(0, limit);
  const rows = raw.map((r) => {
    const o: Record<string, unknown> = {};
    r.forEach((v, i) => {
      let value: unknown = v;
      if (typeof v === "string") {
        if (INTEGER_STRING_TYPES.has(typeIds[i])) {
          const n = Number(v);
          if (Number.isSafeInteger(n)) value = n;
        } else if (typeIds[i] === DuckDBTypeId.DECIMAL) {
          const n = Number(v);
          if (Number.isFinite(n)) value = n;
        }
      }
      o[names[i]] = value;
    });
    return o;
  });
  return { columns, rows };
}

/** The locked-down in-memory database holding table `orders`. */
export class SuperstoreDb {
  private constructor(
    private readonly instance: DuckDBInstance,
    /** Rows loaded into `orders`. */
    readonly rowCount: number,
    private readonly queryTimeoutMs: number,
  ) {}

  /**
   * Loads `csvPath` (the Superstore CSV with its original headers; ISO dates) into `orders` and
   * locks the database. `queryTimeoutMs` (default 30 000) bounds every query.
   * Throws when the file cannot be read or parsed, or when the lock-down does not take effect.
   */
  static async open(csvPath: string, opts: { queryTimeoutMs?: number } = {}): Promise<SuperstoreDb> {
    const instance = await DuckDBInstance.create(":memory:", {
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
      threads: String(DUCKDB_THREADS),
      memory_limit: DUCKDB_MEMORY_LIMIT,
    });
    const conn = await instance.connect();
    try {
      const ddl = ORDERS_COLUMNS.map((c) => `${c.name} ${c.type} NOT NULL`).join(", ");
      await conn.run(`CREATE TABLE orders (${ddl})`);
      const select = ORDERS_COLUMNS.map((c) => `CAST("${c.source}" AS ${c.type})`).join(", ");
      await conn.run(`INSERT INTO orders SELECT ${select} FROM read_csv($path, header = true, all_varchar = true) ORDER BY CAST("Row ID" AS INTEGER)`, {
        path: csvPath,
      });
      const count = await conn.runAndReadAll("SELECT count(*)::INTEGER AS n FROM orders");
      const rowCount = Number(count.getRowsJson()[0][0]);

      await conn.run("SET enable_external_access = false");
      await conn.run("SET lock_configuration = true");
      const check = await conn.runAndReadAll(
        "SELECT current_setting('enable_external_access')::VARCHAR, current_setting('lock_configuration')::VARCHAR, current_setting('autoload_known_extensions')::VARCHAR",
      );
      const [external, locked, autoload] = check.getRowsJson()[0].map(String);
      if (external !== "false" || locked !== "true" || autoload !== "false") {
        throw new Error(`DuckDB lock-down did not take effect (external_access=${external}, lock=${locked}, autoload=${autoload})`);
      }
      return new SuperstoreDb(instance, rowCount, opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS);
    } finally {
      conn.closeSync();
    }
  }

  /** Runs `fn` on a fresh connection that is interrupted on `signal` abort or after the time limit. */
  private async withConnection<T>(signal: AbortSignal | undefined, fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    if (signal?.aborted) throw new QueryFailedError("the query was cancelled before it started");
    const conn = await this.instance.connect();
    let reason: string | undefined;
    const interrupt = (why: string) => {
      reason ??= why;
      conn.interrupt();
    };
    const onAbort = () => interrupt("the query was cancelled by the client");
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => interrupt(`the query ran longer than ${this.queryTimeoutMs} ms and was stopped`), this.queryTimeoutMs);
    try {
      return await fn(conn);
    } catch (e) {
      if (reason) throw new QueryFailedError(reason);
      throw e;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      conn.closeSync();
    }
  }

  /**
   * Runs one read-only statement and returns at most `limit` rows (default 200, at most 5 000).
   * Throws {@link QueryRefusedError} when `sql` is empty, holds more than one statement, or is not a
   * SELECT; {@link QueryFailedError} when DuckDB rejects or interrupts it (the message is DuckDB's
   * first line, e.g. `Binder Error: Referenced column "x" not found`).
   */
  async query(sql: string, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<QueryResult> {
    const limit = Math.max(1, Math.min(MAX_QUERY_LIMIT, Math.floor(opts.limit ?? DEFAULT_QUERY_LIMIT)));
    if (sql.trim() === "" || /^[\s;]*$/.test(sql)) throw new QueryRefusedError("sql is empty; give one SELECT statement");
    return this.withConnection(opts.signal, async (conn) => {
      let extracted;
      try {
        extracted = await conn.extractStatements(sql);
      } catch (e) {
        throw new QueryFailedError(`the SQL does not parse: ${firstLine(e)}`);
      }
      if (extracted.count !== 1) {
        throw new QueryRefusedError(
          `query_data runs exactly one statement; this text holds ${extracted.count}. Send one SELECT (or WITH … SELECT) without other statements`,
        );
      }
      const keyword = firstKeyword(sql);
      let prepared;
      try {
        prepared = await extracted.prepare(0);
      } catch (e) {
        if (keyword && WRITE_KEYWORDS.has(keyword)) {
          throw new QueryRefusedError(`${keyword} statements are not allowed: query_data runs read-only SELECT queries on table orders (DuckDB: ${firstLine(e)})`);
        }
        const msg = firstLine(e);
        if (/Permission Error|external access|file system operations are disabled/i.test(msg)) {
          throw new QueryRefusedError(`reading files or URLs is not allowed: query_data reads only table orders (DuckDB: ${msg})`);
        }
        throw new QueryFailedError(msg);
      }
      try {
        const type = prepared.statementType;
        if (type !== StatementType.SELECT) {
          const kind = StatementType[type] ?? String(type);
          throw new QueryRefusedError(
            `only read-only SELECT queries are allowed (SELECT, WITH … SELECT, VALUES, DESCRIBE); DuckDB classifies this statement as ${kind}`,
          );
        }
        let reader: DuckDBResultReader;
        try {
          reader = await prepared.streamAndReadUntil(limit + 1);
        } catch (e) {
          const msg = firstLine(e);
          if (/Permission Error|file system operations are disabled/i.test(msg)) {
            throw new QueryRefusedError(`reading files or URLs is not allowed: query_data reads only table orders (DuckDB: ${msg})`);
          }
          throw new QueryFailedError(msg);
        }
        const truncated = reader.currentRowCount > limit;
        const { columns, rows } = readRows(reader, limit);
        const size = JSON.stringify(rows).length;
        if (size > MAX_RESULT_CHARS) {
          throw new QueryFailedError(
            `the result is ${size.toLocaleString("en-US")} characters, over the limit of ${MAX_RESULT_CHARS.toLocaleString("en-US")}; select fewer rows or columns, or aggregate`,
          );
        }
        return { columns, rows, row_count: rows.length, truncated };
      } finally {
        prepared.destroySync();
      }
    });
  }

  /**
   * Runs trusted, server-built SQL with bound parameters (`$name` → `params[name]`) and returns
   * all rows as objects. For the named operations of `process_data`; never for caller SQL.
   * Throws {@link QueryFailedError} on a DuckDB error or interruption.
   */
  async select(sql: string, params: Record<string, DuckDBValue> = {}, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    return this.withConnection(signal, async (conn) => {
      try {
        const reader = await conn.runAndReadAll(sql, params);
        return readRows(reader, Number.MAX_SAFE_INTEGER).rows;
      } catch (e) {
        throw new QueryFailedError(firstLine(e));
      }
    });
  }

  /**
   * Describes table `orders` for agents writing SQL: columns (name, type, source header, meaning),
   * row count, order-date range, and the distinct values of the low-cardinality columns.
   */
  async describe(): Promise<{
    table: string;
    row_count: number;
    order_date_range: { from: string; to: string };
    columns: OrdersColumn[];
    values: Record<string, string[]>;
    notes: string[];
  }> {
    const [range] = await this.select("SELECT min(order_date)::VARCHAR AS from_date, max(order_date)::VARCHAR AS to_date FROM orders");
    const values: Record<string, string[]> = {};
    for (const col of ["region", "segment", "category", "ship_mode", "sub_category"]) {
      const rows = await this.select(`SELECT DISTINCT ${col} AS v FROM orders ORDER BY v`);
      values[col] = rows.map((r) => String(r.v));
    }
    return {
      table: "orders",
      row_count: this.rowCount,
      order_date_range: { from: String(range.from_date), to: String(range.to_date) },
      columns: [...ORDERS_COLUMNS],
      values,
      notes: [
        "One row is one order line (one product in one order).",
        "Dates are DATE values; filter with order_date BETWEEN DATE '2017-10-01' AND DATE '2017-12-31' (inclusive).",
        "sales and profit are US dollars; profit can be negative.",
        "Group products by product_id: a few IDs carry two product names.",
        "Only SELECT statements are allowed; files, URLs and extensions are disabled.",
      ],
    };
  }

  /** Closes the database. */
  close(): void {
    this.instance.closeSync();
  }
}
