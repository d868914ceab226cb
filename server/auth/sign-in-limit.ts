/**
 * Limits on password guessing (docs/identity.md, "Signing in"; docs/limits.md): failed sign-ins
 * are counted per account (the email asked for, whether or not it has an account) and per client
 * address (server/http/client-address.ts), in PostgreSQL (`sign_in_limits`), so every node of a
 * deployment sees the same counts.
 *
 * Within a window (15 min) failures count up. From `backoffAfter` failures on, each attempt must
 * wait a back-off after the last failure (1 s, doubling, at most 60 s); at `lockAfter` failures
 * the account or address is locked for `lockMs` (15 min). A refused attempt is not checked
 * against the password and not counted. Every other attempt is counted as a failure before its
 * password is checked (`begin`), so a burst of parallel guesses meets the limit too; a
 * successful sign-in then clears its account's count and takes back its address's failure (an
 * address's earlier failures stay, or one's own account would reset an address's guesses). An
 * admin lifts an account's lock with `unlock`. After a window or a lock ends, the count starts
 * again.
 */
import { z } from "zod";
import type { Db } from "../db/client";

export interface SignInLimitPolicy {
  /** How long failures count (ms), from the first of them. */
  windowMs: number;
  /** How long a lock lasts (ms). */
  lockMs: number;
  /** First back-off wait (ms); it doubles with every further failure, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Per account (email): failures before back-off starts, and failures that lock. */
  account: { backoffAfter: number; lockAfter: number };
  /** Per client address: the same, higher, since people behind one address share it. */
  address: { backoffAfter: number; lockAfter: number };
}

/** The documented limits (docs/limits.md). */
export const DEFAULT_SIGN_IN_POLICY: SignInLimitPolicy = {
  windowMs: 15 * 60_000,
  lockMs: 15 * 60_000,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  account: { backoffAfter: 3, lockAfter: 10 },
  address: { backoffAfter: 10, lockAfter: 50 },
};

export type Scope = "account" | "address";

/** Why an attempt is refused: a lock (`sign_in_locked`) or a back-off (`rate_limited`), and for how long (ms). */
export interface Refusal {
  code: "sign_in_locked" | "rate_limited";
  scope: Scope;
  retry_ms: number;
  failures: number;
}

/** An account's lock as Admin → People shows it. */
export interface AccountLock {
  email: string;
  failures: number;
  locked_until: string;
}

const Row = z.object({
  key: z.string(),
  failures: z.number(),
  window_start: z.date(),
  last_failure_at: z.date(),
  locked_until: z.date().nullable(),
  now: z.date(),
});
type Row = z.infer<typeof Row>;

const accountKey = (email: string) => `account:${email.trim().toLowerCase()}`;
const addressKey = (address: string) => `address:${address}`;
const scopeOf = (key: string): Scope => (key.startsWith("account:") ? "account" : "address");

export class SignInLimit {
  readonly policy: SignInLimitPolicy;

  constructor(
    private readonly db: Db,
    policy: Partial<SignInLimitPolicy> = {},
  ) {
    this.policy = { ...DEFAULT_SIGN_IN_POLICY, ...policy };
  }

  /** `row` as it counts now: a lock or a window that ended starts the count again. */
  private current(row: Row): Row {
    const now = row.now.getTime();
    const lockEnded = row.locked_until !== null && row.locked_until.getTime() <= now;
    const windowEnded = row.locked_until === null && row.window_start.getTime() + this.policy.windowMs <= now;
    return lockEnded || windowEnded ? { ...row, failures: 0, window_start: row.now, locked_until: null } : row;
  }

  /** Why `row` (current) refuses an attempt now, or null. Times are the database's, so nodes agree. */
  private refusal(row: Row): Refusal | null {
    const scope = scopeOf(row.key);
    const now = row.now.getTime();
    if (row.locked_until) return { code: "sign_in_locked", scope, retry_ms: row.locked_until.getTime() - now, failures: row.failures };
    const { backoffAfter } = this.policy[scope];
    if (row.failures < backoffAfter) return null;
    const wait = Math.min(this.policy.maxBackoffMs, this.policy.backoffMs * 2 ** (row.failures - backoffAfter));
    const left = row.last_failure_at.getTime() + wait - now;
    return left > 0 ? { code: "rate_limited", scope, retry_ms: left, failures: row.failures } : null;
  }

  /**
   * Reserve a sign-in attempt of `email` from `address`, before its password is checked.
   * Resolves the refusal (the lock before a back-off, the account before the address), or null:
   * then the attempt is already counted as a failure (and may have locked), so parallel attempts
   * cannot slip past the limit together; settle it with `succeeded` or `voided`. The rows of
   * both keys are locked for the check and the count (one transaction).
   */
  async begin(email: string, address: string): Promise<Refusal | null> {
    const keys = [accountKey(email), addressKey(address)].sort();
    return this.db.$transaction(async (tx) => {
      await tx.$executeRaw`
        INSERT INTO sign_in_limits (key, failures, window_start, last_failure_at)
        SELECT k, 0, now(), now() FROM unnest(${keys}::text[]) AS k ORDER BY k
        ON CONFLICT (key) DO NOTHING`;
      const locked = await tx.$queryRaw<unknown[]>`
        SELECT key, failures, window_start, last_failure_at, locked_until, now() AS now
        FROM sign_in_limits WHERE key = ANY(${keys}::text[]) ORDER BY key FOR UPDATE`;
      const rows = locked.map((r) => this.current(Row.parse(r)));
      const refusals = rows.map((r) => this.refusal(r)).filter((r): r is Refusal => r !== null);
      refusals.sort((a, b) => (a.code === b.code ? (a.scope === "account" ? -1 : 1) : a.code === "sign_in_locked" ? -1 : 1));
      if (refusals[0]) return refusals[0];
      for (const r of rows) {
        const failures = r.failures + 1;
        const lockedUntil = failures >= this.policy[scopeOf(r.key)].lockAfter ? new Date(r.now.getTime() + this.policy.lockMs) : null;
        await tx.$executeRaw`
          UPDATE sign_in_limits SET failures = ${failures}, window_start = ${r.window_start}, last_failure_at = ${r.now}, locked_until = ${lockedUntil}
          WHERE key = ${r.key}`;
      }
      return null;
    });
  }

  /** The attempt `begin` counted signed in: its account's count starts again; its address's failure is taken back. */
  async succeeded(email: string, address: string): Promise<void> {
    await this.db.$executeRaw`DELETE FROM sign_in_limits WHERE key = ${accountKey(email)}`;
    await this.uncount(addressKey(address));
  }

  /** The attempt `begin` counted checked no password (a malformed request, an error): take it back. */
  async voided(email: string, address: string): Promise<void> {
    await this.uncount(accountKey(email));
    await this.uncount(addressKey(address));
  }

  private async uncount(key: string): Promise<void> {
    const { lockAfter } = this.policy[scopeOf(key)];
    await this.db.$executeRaw`
      UPDATE sign_in_limits SET failures = GREATEST(failures - 1, 0),
        locked_until = CASE WHEN failures - 1 < ${lockAfter}::int THEN NULL ELSE locked_until END
      WHERE key = ${key}`;
  }

  /** Whether `email`'s account is locked now (after a failed attempt, for the log). */
  async isLocked(email: string): Promise<boolean> {
    const rows = await this.db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM sign_in_limits WHERE key = ${accountKey(email)} AND locked_until > now()`;
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /** Lift `email`'s lock and clear its count. Resolves true when there was a lock. */
  async unlock(email: string): Promise<boolean> {
    const rows = await this.db.$queryRaw<{ locked: boolean }[]>`
      DELETE FROM sign_in_limits WHERE key = ${accountKey(email)}
      RETURNING (locked_until IS NOT NULL AND locked_until > now()) AS locked`;
    return rows.some((r) => r.locked);
  }

  /** The accounts locked now (email, failures, until when). */
  async locks(): Promise<AccountLock[]> {
    const rows = await this.db.$queryRaw<{ key: string; failures: number; locked_until: Date }[]>`
      SELECT key, failures, locked_until FROM sign_in_limits WHERE key LIKE 'account:%' AND locked_until > now()`;
    return rows.map((r) => ({ email: r.key.slice("account:".length), failures: r.failures, locked_until: r.locked_until.toISOString() }));
  }
}
