/**
 * API keys (docs/identity.md): a person's own, for scripts, or an external agent's, created by an
 * admin. A key is `clk_` + 32 random bytes (base64url), shown once; only its SHA-256 is stored, so
 * a stolen table does not give the keys away. `prefix` (its first 12 characters) is what lists
 * show. Revoked keys stay listed and never authenticate again.
 */
import { createHash, randomBytes } from "node:crypto";
import { newId } from "@/lib/protocol";
import type { ApiKeySummary } from "@/lib/api/types";
import type { Db } from "../db/client";

export type { ApiKeySummary };

/** last_used_at is written at most this often per key (ms), not on every request. */
const TOUCH_EVERY_MS = 60_000;

const hash = (key: string) => createHash("sha256").update(key).digest("hex");

type Row = { id: string; owner: string; name: string; prefix: string; created_by: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null };
export const toKeySummary = (r: Row): ApiKeySummary => ({
  id: r.id,
  owner: r.owner,
  name: r.name,
  prefix: r.prefix,
  created_by: r.created_by,
  created_at: r.created_at.toISOString(),
  last_used_at: r.last_used_at?.toISOString() ?? null,
  revoked_at: r.revoked_at?.toISOString() ?? null,
});

export class ApiKeys {
  constructor(private readonly db: Db) {}

  /** A new key for `owner`; `key` is returned only here. */
  async create(owner: string, name: string, created_by: string): Promise<{ key: string; summary: ApiKeySummary }> {
    const key = `clk_${randomBytes(32).toString("base64url")}`;
    const row = await this.db.apiKey.create({ data: { id: newId("key"), owner, name, prefix: key.slice(0, 12), key_hash: hash(key), created_by } });
    return { key, summary: toKeySummary(row) };
  }

  /** The live key `key` stands for (and its use recorded), or null when unknown or revoked. */
  async verify(key: string): Promise<ApiKeySummary | null> {
    const row = await this.db.apiKey.findUnique({ where: { key_hash: hash(key) } });
    if (!row || row.revoked_at) return null;
    const now = new Date();
    if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOUCH_EVERY_MS) {
      await this.db.apiKey.update({ where: { id: row.id }, data: { last_used_at: now } });
      row.last_used_at = now;
    }
    return toKeySummary(row);
  }

  async get(id: string): Promise<ApiKeySummary | null> {
    const row = await this.db.apiKey.findUnique({ where: { id } });
    return row ? toKeySummary(row) : null;
  }

  /** Keys of `owner`, or every key; newest first. */
  async list(owner?: string): Promise<ApiKeySummary[]> {
    const rows = await this.db.apiKey.findMany({ where: owner ? { owner } : {}, orderBy: { created_at: "desc" } });
    return rows.map(toKeySummary);
  }

  /** Revoke key `id`; true when it was live. */
  async revoke(id: string): Promise<boolean> {
    const r = await this.db.apiKey.updateMany({ where: { id, revoked_at: null }, data: { revoked_at: new Date() } });
    return r.count > 0;
  }
}
