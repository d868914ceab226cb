/**
 * AgentCard and capability (Clutch Protocol §1.4, §1.5).
 *
 * An AgentCard is how an agent advertises what it can do; the router (§4) matches a task's
 * `requires[]`/`prefers[]` against the capabilities listed here.
 */
import { z } from "zod";

export const TrustLevel = z.enum(["sandbox", "prod"]);
export const CostHint = z.enum(["low", "medium", "high"]);

/** One capability (§1.5). `id` is e.g. `skill:research` or `tool:mcp`; other fields optional. */
export const CapabilitySchema = z.looseObject({
  id: z.string().min(1, "a capability needs an id such as skill:research"),
  /** A semantic version (`1.0`, `1.2.3`) or a range (`^1.0`, `>=1.2 <2`). */
  version: z.string().min(1).optional(),
  tags: z.array(z.string()).optional(),
  /** MCP servers the capability needs (`mcp:browser`). */
  tools: z.array(z.string()).optional(),
  trust_level: TrustLevel.optional(),
  cost_hint: CostHint.optional(),
  /** For `tool:mcp` capabilities: the MCP servers offered. */
  servers: z.array(z.string()).optional(),
});
export type Capability = z.infer<typeof CapabilitySchema>;

/** The AgentCard (§1.4). */
export const AgentCardSchema = z.looseObject({
  v: z.literal("clutch/0.1"),
  agent_id: z.string().min(1),
  display: z.looseObject({ name: z.string().min(1), desc: z.string().optional() }),
  endpoints: z.record(z.string(), z.looseObject({ url: z.string() })).optional(),
  capabilities: z.array(CapabilitySchema),
  /**
   * Clutch extension (§3, docs/schemas.md): the payload types (§3.2, e.g. `research.summary.v1`)
   * the agent's results have, and those it takes as a task's `input`. The router prefers agents
   * that produce what a request `expects` and passes over those that declare other types only.
   */
  produces: z.array(z.string().min(1)).optional(),
  consumes: z.array(z.string().min(1)).optional(),
  limits: z
    .looseObject({
      max_concurrency: z.number().int().positive().optional(),
      max_runtime_sec: z.number().positive().optional(),
    })
    .optional(),
  security: z
    .looseObject({
      sandbox: z.boolean().optional(),
      network: z.string().optional(),
      /**
       * Signing keys (Clutch §6, docs/identity.md "Signed messages"): when present, every envelope
       * this agent sends must carry `security.auth { scheme: "ed25519", kid, sig }` by one of them.
       * `public_key` is the raw 32-byte Ed25519 public key, base64url.
       */
      keys: z
        .array(
          z.looseObject({
            kid: z.string().min(1).max(200),
            alg: z.literal("ed25519", { error: 'alg must be "ed25519"' }),
            public_key: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "public_key is the raw 32-byte Ed25519 key, base64url (43 characters)"),
          }),
        )
        .optional(),
    })
    .optional(),
});
export type AgentCard = z.infer<typeof AgentCardSchema>;

/**
 * Whether `after` declares the same signing keys as `before` (Clutch §6, docs/identity.md "Signed
 * messages"): the same kid, alg and public_key, in any order and whatever the order of each key's
 * fields (a card read back from the database's jsonb has its fields in jsonb's order, not the
 * sender's). Missing, null and [] are all "no keys". `after` may be unvalidated input: anything that
 * is not a list of keys differs from a list of keys.
 */
export function sameSigningKeys(before: unknown, after: unknown): boolean {
  const keyText = (k: unknown): string | null => {
    if (!k || typeof k !== "object") return null;
    const { kid, alg, public_key } = k as Record<string, unknown>;
    return JSON.stringify([kid, alg, public_key]);
  };
  /** The keys as one text, or null for what is not a list of keys. */
  const canonical = (keys: unknown): string | null => {
    if (keys === undefined || keys === null) return "";
    if (!Array.isArray(keys)) return null;
    const each = keys.map(keyText);
    return each.includes(null) ? null : each.sort().join("\n");
  };
  const a = canonical(before);
  return a !== null && a === canonical(after);
}
