/**
 * How many writes each principal may make a minute (docs/limits.md), counted across every door
 * that writes (the API's routes, the A2A endpoints):
 *   - a person (or a person's key): CLUTCH_WRITES_PER_MIN, default 3,000 (50/s);
 *   - an agent's key: CLUTCH_AGENT_WRITES_PER_MIN, default 60,000 (1,000/s), sized for an agent
 *     that streams its progress one event per request.
 * One limiter per process and limit: they live on globalThis, since Next's route bundles are
 * module graphs of their own. Those graphs also load copies of rate-limiter-flexible of their
 * own, so a limiter one graph built refuses with another copy's RateLimiterRes: a refusal is
 * recognised by its shape (`isRefusal`), never with `instanceof`.
 */
import { RateLimiterMemory } from "rate-limiter-flexible";

/** Default writes a minute of a person, and of an agent's key. */
export const PERSON_WRITES_PER_MIN = 3000;
export const AGENT_WRITES_PER_MIN = 60_000;

/** The most writes a minute either setting may allow. */
const MAX_WRITES_PER_MIN = 10_000_000;

/**
 * The value of the writes-a-minute setting `name` (CLUTCH_WRITES_PER_MIN or
 * CLUTCH_AGENT_WRITES_PER_MIN) given as `raw`: unset or blank → `fallback`; else a whole number
 * from 1 to 10,000,000. Throws an Error whose message names the setting and says what it takes;
 * server/config.ts calls it at start, so a bad value stops the start instead of being ignored.
 */
export function writesPerMinuteSetting(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_WRITES_PER_MIN) throw new Error(`${name} must be a whole number of writes a minute from 1 to ${MAX_WRITES_PER_MIN}, e.g. ${fallback} (got "${raw}")`);
  return n;
}

/**
 * Writes `principal_id` may make per minute: an agent's (`agent:`) or a person's limit. Read at
 * each write (Next's route bundles do not share the server's configuration object), through the
 * same parser that server/config.ts checked the setting with at start.
 */
function writesPerMinute(principal_id: string): number {
  if (principal_id.startsWith("agent:")) return writesPerMinuteSetting("CLUTCH_AGENT_WRITES_PER_MIN", process.env.CLUTCH_AGENT_WRITES_PER_MIN, AGENT_WRITES_PER_MIN);
  return writesPerMinuteSetting("CLUTCH_WRITES_PER_MIN", process.env.CLUTCH_WRITES_PER_MIN, PERSON_WRITES_PER_MIN);
}

const KEY = Symbol.for("clutch.write-limiters");

function writeLimiter(points: number): RateLimiterMemory {
  const g = globalThis as { [KEY]?: Map<number, RateLimiterMemory> };
  const limiters = (g[KEY] ??= new Map());
  let limiter = limiters.get(points);
  if (!limiter) limiters.set(points, (limiter = new RateLimiterMemory({ points, duration: 60 })));
  return limiter;
}

/**
 * Whether `r`, what a limiter's `consume` rejected with, is its refusal (a RateLimiterRes of any
 * copy of the library: not an Error, with `msBeforeNext` in milliseconds) rather than a failure.
 */
function isRefusal(r: unknown): r is { msBeforeNext: number } {
  return typeof r === "object" && r !== null && !(r instanceof Error) && typeof (r as { msBeforeNext?: unknown }).msBeforeNext === "number";
}

/**
 * Count one write of `principal_id`. Resolves null when it may go ahead, else how long to wait
 * (whole seconds, at least 1) and the limit it hit.
 */
export async function countWrite(principal_id: string): Promise<{ wait_sec: number; per_minute: number } | null> {
  const points = writesPerMinute(principal_id);
  try {
    await writeLimiter(points).consume(principal_id);
    return null;
  } catch (r) {
    if (!isRefusal(r)) throw r;
    return { wait_sec: Math.max(1, Math.ceil(r.msBeforeNext / 1000)), per_minute: points };
  }
}
