/**
 * What a JSON value must be for Clutch to store it: PostgreSQL's `jsonb` and `text` refuse a NUL
 * character and unpaired UTF-16 surrogates, a very deep value overflows the stack of whatever
 * serialises it, and `__proto__` is dropped by object spreads. `findUnstorable` finds the first such
 * place, so a boundary can refuse the request with a 400 that names the field, instead of failing
 * inside the database. Every number here is listed in docs/limits.md.
 *
 * Pure; runs in the browser and on the server.
 */

/** Deepest nesting of objects and arrays in one value (the value itself is depth 1). */
export const MAX_JSON_DEPTH = 64;
/** Most characters (UTF-16 code units) of all strings and keys of one ClutchMessage. */
export const MAX_MESSAGE_CHARS = 1_000_000;

export interface Unstorable {
  /** Where in the value, e.g. `["payload", "rows", 3, "name"]`. */
  path: (string | number)[];
  message: string;
}

/**
 * The first place in `value` that cannot be stored, or null. `maxChars` bounds the characters of
 * all its strings and keys together (default: no bound).
 */
export function findUnstorable(value: unknown, opts: { maxDepth?: number; maxChars?: number } = {}): Unstorable | null {
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  const maxChars = opts.maxChars ?? Infinity;
  let chars = 0;
  const path: (string | number)[] = [];
  const found = (message: string): Unstorable => ({ path: [...path], message });

  const text = (s: string): string | null => {
    chars += s.length;
    if (s.includes("\u0000")) return "contains a NUL character (\\u0000), which cannot be stored; remove it";
    if (!s.isWellFormed()) return "contains an unpaired UTF-16 surrogate (e.g. \\ud800 alone), which is not valid Unicode";
    return null;
  };

  const visit = (v: unknown, depth: number): Unstorable | null => {
    if (typeof v === "string") {
      const bad = text(v);
      return bad ? found(bad) : null;
    }
    if (v === null || typeof v !== "object") return null;
    if (depth > maxDepth) return found(`is nested more than ${maxDepth} levels deep`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const r = visit(v[i], depth + 1);
        path.pop();
        if (r) return r;
      }
      return null;
    }
    for (const key of Object.keys(v)) {
      path.push(key);
      const badKey = key === "__proto__" ? "is a key named __proto__, which is not allowed" : text(key);
      const r = badKey ? found(badKey.startsWith("is ") ? badKey : `has a key that ${badKey}`) : visit((v as Record<string, unknown>)[key], depth + 1);
      path.pop();
      if (r) return r;
    }
    return null;
  };

  const r = visit(value, 1);
  if (r) return r;
  if (chars > maxChars) {
    return { path: [], message: `is too large: ${chars.toLocaleString("en-US")} characters of text, over the limit of ${maxChars.toLocaleString("en-US")}; keep large data in an artifact` };
  }
  return null;
}

/** `["payload", "rows", 3]` → `payload.rows[3]`; the empty path → `body`. */
export function describePath(path: readonly (string | number | symbol)[], root = "body"): string {
  if (!path.length) return root;
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}
