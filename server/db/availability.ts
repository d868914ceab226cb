/**
 * Telling "the database is down" apart from every other failure, so a client gets 503
 * `database_unavailable` (retry later; nothing was stored) instead of a 500 during an outage
 * (docs/limits.md). Looks through the wrappers an error arrives in: Prisma's known-request error
 * (`code` P1001…, `meta.driverAdapterError.cause.kind`), the pg driver's error (`code` SQLSTATE)
 * and Node's socket errors (`code` ECONNREFUSED…), following `cause`.
 */

/** Prisma error codes of an unreachable or overloaded database (connection, pool timeout). */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** Driver adapter error kinds of the same. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/** SQLSTATE classes 08 (connection exception), 57P (operator intervention: shutdown), 53300. */
const SQLSTATE = /^(08\d{3}|57P0[1-4]|53300)$/;
/** Node socket errors. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);
/** pg's own messages for a connection that went away (they carry no code). */
const LOST_CONNECTION = /Connection terminated|connection (?:error|timeout)|timeout exceeded when trying to connect|Client was closed/i;

/** True when `err` (or what it wraps) says the database cannot be reached right now. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (depth > 5 || typeof err !== "object" || err === null) return false;
  const e = err as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
  if (typeof e.code === "string" && (PRISMA_CODES.has(e.code) || SOCKET_CODES.has(e.code) || SQLSTATE.test(e.code))) return true;
  if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === "string" && LOST_CONNECTION.test(e.message)) return true;
  return isDatabaseUnavailable(e.meta?.driverAdapterError?.cause, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
