/**
 * The ACP delta algorithm (seed 003, "Delta Algorithm"): how the deltas of
 * `notifications/agents/run/progress` combine into an agent run's output. Used by Clutch's ACP
 * server (server/adapters/acp/server.ts) to check what it streams, and by any client to rebuild
 * the output.
 *
 *   different types       cannot be combined (throws AcpDeltaError)
 *   numbers               add:          1 + 2 → 3
 *   strings               concatenate:  "hello" + "there" → "hellothere"
 *   objects               merge, combining the values of keys in both
 *   null                  value + null → value; null + value → value
 *   arrays                array + [] → array; [] + array → array; a delta whose first element is
 *                         null appends the rest (a leading null into an empty output is dropped);
 *                         otherwise the output's last element combines with the delta's first and
 *                         the rest are appended
 * Booleans, which the seed does not mention, are replaced by the delta.
 */

/** A JSON value. */
export type AcpDelta = null | boolean | number | string | AcpDelta[] | { [key: string]: AcpDelta };

export class AcpDeltaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AcpDeltaError";
  }
}

const kind = (v: AcpDelta): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** `output + delta` (see the module doc); `output` undefined is the start of a run. Never mutates its arguments. */
export function applyDelta(output: AcpDelta | undefined, delta: AcpDelta, path = "output"): AcpDelta {
  if (Array.isArray(delta) && (output === undefined || output === null || (Array.isArray(output) && output.length === 0))) {
    return delta[0] === null ? delta.slice(1) : [...delta];
  }
  if (output === undefined || output === null) return delta;
  if (delta === null) return output;
  if (kind(output) !== kind(delta)) throw new AcpDeltaError(`${path}: a ${kind(output)} cannot be combined with a ${kind(delta)}`);
  if (typeof output === "number") return output + (delta as number);
  if (typeof output === "string") return output + (delta as string);
  if (typeof output === "boolean") return delta;
  if (Array.isArray(output)) {
    const d = delta as AcpDelta[];
    if (!d.length) return output;
    const last = output.length - 1;
    return [...output.slice(0, last), applyDelta(output[last], d[0]!, `${path}[${last}]`), ...d.slice(1)];
  }
  const out: { [key: string]: AcpDelta } = { ...output };
  for (const [key, value] of Object.entries(delta as { [key: string]: AcpDelta })) out[key] = applyDelta(out[key], value, `${path}.${key}`);
  return out;
}

/** The output the deltas make, in order (undefined for none). */
export function joinDeltas(deltas: readonly AcpDelta[]): AcpDelta | undefined {
  let out: AcpDelta | undefined;
  for (const d of deltas) out = applyDelta(out, d);
  return out;
}
