/**
 * The workspace's model prices (workspace.json `prices`, docs/observability.md "Prices"): per
 * model id, the price of a million input, output and cached input tokens in the workspace's
 * currency. No network look-up: a model without a price shows its tokens and "cost unknown".
 * Clutch's built-in model is priced at zero unless the table names it.
 *
 *   "prices": { "currency": "USD",
 *               "models": { "gpt-4o": { "input": 2.5, "output": 10, "cached_input": 1.25 } } }
 *
 * workspace.json's `prices` section is PricesSchema (server/workspace/workspace.ts);
 * `loadWorkspace` checks the table at start (a bad entry refuses the workspace with its path);
 * `PriceBook` then re-reads it whenever workspace.json changes, and keeps the last good table
 * when the new one does not parse (`status().error` names the bad entry), as the policy does.
 */
import fs from "node:fs";
import { z } from "zod";
import type { PriceTable } from "@/lib/fold/usage";
import { BUILTIN_MODEL_ID } from "../agents/models/builtin";
import { log } from "../log";
import { watchFile } from "../workspace/watch-file";
import { PricesSchema } from "../workspace/workspace";

/** `table` with the built-in model at zero unless it names it. */
export function withBuiltin(table: z.infer<typeof PricesSchema>): PriceTable {
  return { currency: table.currency, models: { [BUILTIN_MODEL_ID]: { input: 0, output: 0 }, ...table.models } };
}

export interface PriceStatus {
  ok: boolean;
  /** What is wrong with the file, path first; null when the table in force is the file's. */
  error: string | null;
  models: number;
}

export class PriceBook {
  private table: PriceTable;
  private error: string | null = null;
  private watcher: fs.FSWatcher | null = null;

  /** `file`: workspace.json (null: no workspace); `initial`: the table `loadWorkspace` checked. */
  constructor(
    private readonly file: string | null,
    initial: z.infer<typeof PricesSchema>,
  ) {
    this.table = withBuiltin(initial);
  }

  /** The prices in force (the last good table). */
  current(): PriceTable {
    return this.table;
  }

  status(): PriceStatus {
    return { ok: this.error === null, error: this.error, models: Object.keys(this.table.models).length };
  }

  /** Re-read the file's `prices`; on any problem keep the table in force and say why. */
  load(): PriceStatus {
    if (!this.file) return this.status();
    try {
      const raw = JSON.parse(fs.readFileSync(this.file, "utf8")) as { prices?: unknown };
      const parsed = PricesSchema.safeParse(raw?.prices);
      if (!parsed.success) {
        const [first] = parsed.error.issues;
        throw new Error(`prices.${first!.path.join(".")}: ${first!.message}`);
      }
      this.table = withBuiltin(parsed.data);
      this.error = null;
    } catch (err) {
      this.error = `${this.file}: ${(err as Error).message}; keeping the last good prices`;
      log.warn({ error: this.error }, "prices not reloaded");
    }
    return this.status();
  }

  /** Reload whenever workspace.json changes (debounced). */
  watch(): void {
    if (!this.file || this.watcher) return;
    this.watcher = watchFile(this.file, () => this.load());
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}
