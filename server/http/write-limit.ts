/**
 * How many writes each person or key may make a minute (docs/limits.md): CLUTCH_WRITES_PER_MIN,
 * default 3,000, counted per principal across every door that writes (the API's routes, the A2A
 * endpoints). One limiter per process: it lives on globalThis, since Next's route bundles are
 * module graphs of their own.
 */
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/** Writes each principal may make per minute. */
function writesPerMinute(): number {
  return Number(process.env.CLUTCH_WRITES_PER_MIN) || 3000;
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
 * Count one write of `principal_id`. Resolves null when it may go ahead, else how long to wait
 * (whole seconds, at least 1) and the limit it hit.
 */
export async function countWrite(principal_id: string): Promise<{ wait_sec: number; per_minute: number } | null> {
  const points = writesPerMinute();
  try {
    await writeLimiter(points).consume(principal_id);
    return null;
  } catch (r) {
    if (!(r instanceof RateLimiterRes)) throw r;
    return { wait_sec: Math.max(1, Math.ceil(r.msBeforeNext / 1000)), per_minute: points };
  }
}
