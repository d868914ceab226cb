/**
 * Limits on password guessing (docs/identity.md, "Signing in"; docs/limits.md): failed sign-ins
 * are counted per account (the email asked for, whether or not it has an account) and per client
 * address (server/http/client-address.ts), in PostgreSQL (`sign_in_limits`), so every node of a
 * deployment sees the same counts.
 *
 * Within a window (15 min) failures count up. From `backoffAfter` failures on, each attempt must
 * wait a back-off after the last failure (1 s, doubling, at most 60 s); at `lockAfter` failures
 * the account or address is locked for `lockMs` (15 min). A refused attempt is not checked
 * against the password and not counted. A successful sign-in clears its account's count (not
 * its address's, or one's own account would reset an address's guesses); an admin lifts an
 * account's lock with `unlock`. After a window or a lock ends, the count starts again.
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

export class SignInLimit {
  readonly policy: SignInLimitPolicy;

  constructor(
    private readonly db: Db,
    policy: Partial<SignInLimitPolicy> = {},
  ) {
    this.policy = { ...DEFAULT_SIGN_IN_POLICY, ...policy };
  }

  private async rows(keys: string[]): Promise<Row[]> {
    const rows = await this.db.$queryRaw<unknown[]>`
      SELECT key, failures, window_start, last_failure_at, locked_until, now() AS now
      FROM sign_in_limits WHERE key = ANY(${keys}::text[])`;
    return rows.map((r) => Row.parse(r));
  }

  /** Why `row` refuses an attempt now, or null (the database's clock, so nodes agree). */
  private refusal(row: Row, scope: Scope): Refusal | null {
    const now = row.now.getTime();
    if (row.locked_until && row.locked_until.getTime() > now) return { code: "sign_in_locked", scope, retry_ms: row.locked_until.getTime() - now, failures: row.failures };
    if (row.locked_until || row.window_start.getTime() + this.policy.windowMs <= now) return null;
    const { backoffAfter } = this.policy[scope];
    if (row.failures < backoffAfter) return null;
    const wait = Math.min(this.policy.maxBackoffMs, this.policy.backoffMs * 2 ** (row.failures - backoffAfter));
    const left = row.last_failure_at.getTime() + wait - now;
    return left > 0 ? { code: "rate_limited", scope, retry_ms: left, failures: row.failures } : null;
  }

  /**
   * May `email` try a password from `address` now? Resolves null, or the refusal (the lock
   * before a back-off, the account before the address).
   */
  async check(email: string, address: string): Promise<Refusal | null> {
    const rows = await this.rows([accountKey(email), addressKey(address)]);
    const refusals = rows.map((r) => this.refusal(r, r.key.startsWith("account:") ? "account" : "address")).filter((r): r is Refusal => r !== null);
    refusals.sort((a, b) => (a.code === b.code ? (a.scope === "account" ? -1 : 1) : a.code === "sign_in_locked" ? -1 : 1));
    return refusals[0] ?? null;
  }

  /** Count a failed sign-in of `email` from `address`. Resolves the account's lock when this failure locked it. */
  async fail(email: string, address: string): Promise<{ locked: Scope[] }> {
    const locked: Scope[] = [];
    for (const [scope, key] of [["account", accountKey(email)], ["address", addressKey(address)]] as const) {
      const { lockAfter } = this.policy[scope];
      const window = `${Math.round(this.policy.windowMs)} milliseconds`;
      const lock = `${Math.round(this.policy.lockMs)} milliseconds`;
      // A window or lock that ended starts the count again; reaching lockAfter locks.
      const [row] = await this.db.$queryRaw<{ locked: boolean }[]>`
        INSERT INTO sign_in_limits AS l (key, failures, window_start, last_failure_at, locked_until)
        VALUES (${key}, 1, now(), now(), CASE WHEN 1 >= ${lockAfter}::int THEN now() + ${lock}::interval END)
        ON CONFLICT (key) DO UPDATE SET
          failures = CASE WHEN l.locked_until <= now() OR l.window_start <= now() - ${window}::interval THEN 1 ELSE l.failures + 1 END,
          window_start = CASE WHEN l.locked_until <= now() OR l.window_start <= now() - ${window}::interval THEN now() ELSE l.window_start END,
          last_failure_at = now(),
          locked_until = CASE
            WHEN (CASE WHEN l.locked_until <= now() OR l.window_start <= now() - ${window}::interval THEN 1 ELSE l.failures + 1 END) >= ${lockAfter}::int
              THEN GREATEST(COALESCE(l.locked_until, now()), now() + ${lock}::interval)
            WHEN l.locked_until <= now() THEN NULL
            ELSE l.locked_until END
        RETURNING (locked_until IS NOT NULL AND locked_until > now()) AS locked`;
      if (row?.locked) locked.push(scope);
    }
    return { locked };
  }

  /** A successful sign-in of `email`: its account's count starts again. */
  async succeed(email: string): Promise<void> {
    await this.db.$executeRaw`DELETE FROM sign_in_limits WHERE key = ${accountKey(email)}`;
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
