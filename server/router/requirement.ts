/**
 * Capability requirements and version ranges (Clutch Protocol §1.5 "version: semantic version
 * or range", §4.2 step 2 "match by capability id").
 *
 * A requirement is a capability id with an optional range after `@`:
 *   `skill:research`          any version
 *   `skill:research@^1.2`     a version in the semver range (`1.2`, `>=1.2 <2`, `1.x`, `~1.4.0`)
 *
 * Versions and ranges use npm's semver; a bare `1.0` on a card is read as `1.0.0`, and a card
 * whose version is itself a range matches when the two ranges overlap.
 */
import semver from "semver";
import type { Capability } from "@/lib/protocol";

export class RequirementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RequirementError";
  }
}

export interface Requirement {
  /** The text as written (`skill:research@^1.2`). */
  raw: string;
  id: string;
  /** The semver range, or null for any version. */
  range: semver.Range | null;
}

const cache = new Map<string, Requirement>();
const cardRanges = new Map<string, semver.Range | null>();
const overlaps = new Map<string, boolean>();

/** Parse `id` or `id@range`. Throws RequirementError naming the requirement when the range is invalid. */
export function parseRequirement(raw: string): Requirement {
  const hit = cache.get(raw);
  if (hit) return hit;
  const at = raw.indexOf("@");
  const id = (at < 0 ? raw : raw.slice(0, at)).trim();
  const rangeText = at < 0 ? "" : raw.slice(at + 1).trim();
  if (!id) throw new RequirementError(`"${raw}" names no capability (write e.g. skill:research or skill:research@^1.2)`);
  let range: semver.Range | null = null;
  if (rangeText) {
    try {
      range = new semver.Range(rangeText, { loose: true });
    } catch {
      throw new RequirementError(`"${raw}": "${rangeText}" is not a version range (write e.g. ^1.2, >=1.2 <2 or 1.x)`);
    }
  }
  const out = { raw, id, range };
  if (cache.size > 10_000) cache.clear();
  cache.set(raw, out);
  return out;
}

/** The range a card's version stands for (`1.2` → `1.2.x`-exact `1.2.0`); null when absent or unreadable. */
function cardRange(version: string | undefined): semver.Range | null {
  if (!version) return null;
  if (cardRanges.has(version)) return cardRanges.get(version)!;
  let out: semver.Range | null = null;
  const exact = semver.valid(version, { loose: true }) ?? semver.coerce(version)?.version;
  try {
    out = exact && /^\s*v?\d+(\.\d+){0,2}\s*$/.test(version) ? new semver.Range(exact) : new semver.Range(version, { loose: true });
  } catch {
    out = null;
  }
  cardRanges.set(version, out);
  return out;
}

/**
 * Whether a capability satisfies a requirement: same id and, with a range, a version inside it.
 * Returns null when it does, else the reason it does not (for routing.decision `rejected`).
 */
export function unmetBy(cap: Capability, req: Requirement): string | null {
  if (cap.id !== req.id) return `no ${req.id}`;
  if (!req.range) return null;
  const have = cardRange(cap.version);
  if (!have) return cap.version ? `${req.id} version "${cap.version}" is unreadable` : `${req.id} has no version (${req.range.raw} asked)`;
  const key = `${cap.version}|${req.range.raw}`;
  let ok = overlaps.get(key);
  if (ok === undefined) {
    ok = semver.intersects(have, req.range);
    if (overlaps.size > 10_000) overlaps.clear();
    overlaps.set(key, ok);
  }
  return ok ? null : `${req.id} ${cap.version} is outside ${req.raw.slice(req.raw.indexOf("@") + 1)}`;
}

/** The card's capability that satisfies `req`, or the reason none does. */
export function findCapability(caps: readonly Capability[], req: Requirement): { cap: Capability } | { reason: string } {
  let reason = `no ${req.id}`;
  for (const cap of caps) {
    const why = unmetBy(cap, req);
    if (why === null) return { cap };
    if (cap.id === req.id) reason = why;
  }
  return { reason };
}
