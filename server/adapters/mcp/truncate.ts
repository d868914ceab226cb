/**
 * Keeping large tool results off the event stream (Clutch Protocol §2.3 tool.result, §8.2
 * "large payloads stored separately"; seed 004 "pointers for large payloads").
 *
 * `truncateForEvent(result)` returns a preview that fits in a tool.result event and the full JSON
 * to keep in the artifact store; the caller sets `truncated: true` and `artifact_ref` on the event.
 */

/** Default byte budget of a preview in an event: 16 KiB. */
export const DEFAULT_EVENT_RESULT_BYTES = 16 * 1024;

/** The outcome of {@link truncateForEvent}. */
export interface TruncatedResult {
  /** A JSON value whose serialization is at most `maxBytes` UTF-8 bytes: the result itself when it fits. */
  preview: unknown;
  /** True when `preview` is not the whole result. */
  truncated: boolean;
  /** The whole result serialized as JSON (UTF-8), to store elsewhere (e.g. the artifact store). */
  full: string;
  /** Size of `full` in bytes. */
  bytes: number;
  /** Size of `preview` serialized, in bytes. */
  preview_bytes: number;
}

const MARK = "…[truncated]";

function size(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v) ?? "null");
}

/** The longest prefix of `s` (whole code points) whose JSON string form fits `budget` bytes, plus a mark. */
function cutString(s: string, budget: number): string {
  const room = budget - size(MARK) + 2; // the quotes are shared
  if (room <= 2) return "";
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(s.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  let end = lo;
  const code = s.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--; // do not split a surrogate pair
  return s.slice(0, end) + MARK;
}

/** Shrinks `v` until its JSON fits `budget` bytes; arrays keep a prefix, objects shrink their largest field. */
function shrink(v: unknown, budget: number): unknown {
  if (size(v) <= budget) return v;
  if (typeof v === "string") return cutString(v, budget);
  if (Array.isArray(v)) {
    let lo = 0;
    let hi = v.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (size(v.slice(0, mid)) <= budget) lo = mid;
      else hi = mid - 1;
    }
    if (lo > 0) return v.slice(0, lo);
    if (v.length > 0 && budget > 4) return [shrink(v[0], budget - 2)];
    return [];
  }
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    const out: Record<string, unknown> = Object.fromEntries(entries);
    // Shrink the largest fields first until the object fits.
    const bySize = entries.map(([k, x]) => [k, size(x)] as const).sort((a, b) => b[1] - a[1]);
    for (const [k] of bySize) {
      const over = size(out) - budget;
      if (over <= 0) break;
      const current = size(out[k]);
      const target = Math.max(0, current - over);
      const shrunk = target >= 2 ? shrink(out[k], target) : null;
      out[k] = size(shrunk) < current ? shrunk : null;
    }
    if (size(out) <= budget) return out;
    return cutString(JSON.stringify(v), budget);
  }
  return null;
}

/**
 * Splits a tool result for an event. Input: any JSON-serializable `result` (undefined → null),
 * `maxBytes` (default 16 KiB, at least 64). Output: {@link TruncatedResult}; when the result's JSON
 * fits, `preview` is the result and `truncated` false. Otherwise `preview` keeps the result's shape
 * where it can: arrays keep their first items (e.g. the first rows of a query), long strings are
 * cut and end in "…[truncated]", the largest fields of an object shrink first; fields that cannot
 * shrink become null. Throws a TypeError for values JSON cannot serialize (cycles, BigInt).
 */
export function truncateForEvent(result: unknown, maxBytes: number = DEFAULT_EVENT_RESULT_BYTES): TruncatedResult {
  const budget = Math.max(64, Math.floor(maxBytes));
  const value = result === undefined ? null : result;
  const full = JSON.stringify(value);
  const bytes = Buffer.byteLength(full);
  if (bytes <= budget) return { preview: value, truncated: false, full, bytes, preview_bytes: bytes };
  const preview = shrink(JSON.parse(full), budget);
  return { preview, truncated: true, full, bytes, preview_bytes: size(preview) };
}
