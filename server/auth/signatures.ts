/**
 * Signed messages (Clutch Protocol §6 "Message authentication"; docs/identity.md): an agent whose
 * AgentCard declares `security.keys` signs every envelope it sends with Ed25519.
 *
 * - What is signed: the RFC 8785 canonical JSON (the `canonicalize` package) of the whole envelope
 *   as sent, without `security.auth.sig` (so `scheme` and `kid` are signed too, and no field can be
 *   added, changed or moved between envelopes). Clutch never changes a stored envelope, so a
 *   stored signature stays verifiable.
 * - Where: `security.auth = { scheme: "ed25519", kid, sig }`; `sig` is the 64-byte signature,
 *   base64url. (`alg` is accepted in place of `scheme`.)
 * - Keys: `card.security.keys[] = { kid, alg: "ed25519", public_key }`, the raw 32-byte public key
 *   base64url (a JWK's `x`).
 *
 * Refusals (403, nothing stored): signature_required (no sig from an agent with keys),
 * unknown_kid, signature_invalid (wrong scheme, malformed, or it does not verify).
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import canonicalize from "canonicalize";
import type { AgentCard } from "@/lib/protocol";

export const SIGNATURE_SCHEME = "ed25519";

type Auth = { scheme?: unknown; alg?: unknown; kid?: unknown; sig?: unknown };
type Envelope = { security?: { auth?: Auth } & Record<string, unknown> } & Record<string, unknown>;

/** The bytes an envelope's signature covers: its canonical JSON without `security.auth.sig`. */
export function signingBytes(message: Envelope): Buffer {
  const { sig: _sig, ...auth } = message.security?.auth ?? {};
  const copy = message.security?.auth ? { ...message, security: { ...message.security, auth } } : message;
  return Buffer.from(canonicalize(copy) ?? "", "utf8");
}

/**
 * A copy of `message` signed with an Ed25519 private key (a KeyObject or PKCS#8 PEM) under `kid`,
 * for agents and tests: sets `security.auth = { scheme: "ed25519", kid, sig }`.
 */
export function signEnvelope<T extends object>(message: T, key: { kid: string; privateKey: KeyObject | string }): T {
  const privateKey = typeof key.privateKey === "string" ? createPrivateKey(key.privateKey) : key.privateKey;
  const m = message as Envelope;
  const unsigned = { ...m, security: { ...m.security, auth: { scheme: SIGNATURE_SCHEME, kid: key.kid } } };
  const sig = sign(null, signingBytes(unsigned), privateKey).toString("base64url");
  return { ...unsigned, security: { ...unsigned.security, auth: { ...unsigned.security.auth, sig } } } as T;
}

/** The agent card's public key as a KeyObject. */
function publicKeyOf(k: { public_key: string }): KeyObject {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: k.public_key }, format: "jwk" });
}

/**
 * Why `message` from an agent with `card` fails its signature check, or null when it passes (or
 * the card declares no keys: signing is then optional and not checked).
 */
export function signatureProblem(message: Envelope, card: AgentCard | undefined): { code: string; message: string } | null {
  const keys = card?.security?.keys;
  if (!keys?.length) return null;
  const auth = message.security?.auth;
  if (!auth || typeof auth.sig !== "string" || !auth.sig) {
    return { code: "signature_required", message: `${card!.agent_id} declares signing keys: sign the envelope (security.auth { scheme: "ed25519", kid, sig })` };
  }
  if ((auth.scheme ?? auth.alg) !== SIGNATURE_SCHEME) return { code: "signature_invalid", message: `security.auth.scheme must be "${SIGNATURE_SCHEME}"` };
  const key = keys.find((k) => k.kid === auth.kid);
  if (!key) return { code: "unknown_kid", message: `${card!.agent_id} has no key ${JSON.stringify(auth.kid)}; its keys: ${keys.map((k) => k.kid).join(", ")}` };
  let ok = false;
  try {
    ok = verify(null, signingBytes(message), publicKeyOf(key), Buffer.from(auth.sig, "base64url"));
  } catch {
    ok = false;
  }
  return ok ? null : { code: "signature_invalid", message: `the signature by ${auth.kid} does not match the envelope: it was changed after signing, or signed with another key` };
}

/** How far a signed heartbeat's `ts` may be from the server's clock (seconds; docs/identity.md). */
export const HEARTBEAT_SKEW_SEC = 300;

/**
 * Why a REST heartbeat body (POST /api/agents/:agent_id/heartbeat) from an agent with `card`
 * fails its signature check, or null when it passes or the card declares no keys
 * (docs/identity.md "Signed messages"). A keyed agent signs the body the way it signs an
 * envelope (`signEnvelope(body, key)`: canonical JSON without `security.auth.sig`), and the body
 * names `agent_id` (the path's) and `ts` (ISO 8601, within HEARTBEAT_SKEW_SEC of `now` and later
 * than `lastSignedTs`, the ts of the agent's last signed heartbeat), so a signature cannot be
 * replayed, kept for later or used for another agent. Codes as signatureProblem's.
 */
export function heartbeatSignatureProblem(
  body: Record<string, unknown>,
  card: AgentCard | undefined,
  expect: { agent_id: string; lastSignedTs?: string | null; now?: Date },
): { code: string; message: string } | null {
  const bad = signatureProblem(body as Envelope, card);
  if (bad || !card?.security?.keys?.length) return bad;
  if (body.agent_id !== expect.agent_id) return { code: "signature_invalid", message: `a signed heartbeat names its agent: agent_id must be ${expect.agent_id}` };
  const ts = typeof body.ts === "string" ? Date.parse(body.ts) : NaN;
  const now = (expect.now ?? new Date()).getTime();
  if (!Number.isFinite(ts) || Math.abs(now - ts) > HEARTBEAT_SKEW_SEC * 1000) {
    return { code: "signature_invalid", message: `a signed heartbeat carries ts, the time it was signed (ISO 8601), within ${HEARTBEAT_SKEW_SEC} s of the server's clock (${new Date(now).toISOString()})` };
  }
  if (expect.lastSignedTs && ts <= Date.parse(expect.lastSignedTs)) {
    return { code: "signature_invalid", message: `this heartbeat's ts is not later than the last one's (${expect.lastSignedTs}): a signed heartbeat is used once` };
  }
  return null;
}
