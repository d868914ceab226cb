/**
 * better-auth's routes (server/auth/auth.ts): POST /api/auth/sign-in/email { email, password }
 * (sets the session cookie), POST /api/auth/sign-out, GET /api/auth/get-session,
 * POST /api/auth/change-password { currentPassword, newPassword, revokeOtherSessions? }, ….
 * Public sign-up is closed: accounts come from the first-run setup (POST /api/setup) and invite
 * links (POST /api/join/:token), so /api/auth/sign-up/* answers 403 invite_only.
 *
 * Before better-auth sees a POST (docs/identity.md, "Signing in"):
 * - a browser's `Origin` must be one sign-in trusts (server/auth/origins.ts), else
 *   403 invalid_origin with a message naming CLUTCH_PUBLIC_URL;
 * - a sign-in must not be locked or backing off for its account or its client address
 *   (server/auth/sign-in-limit.ts), else 429 sign_in_locked / rate_limited with Retry-After. The
 *   attempt is counted as a failure before better-auth checks the password; a success (200)
 *   clears the account's count, an answer that checked no password takes it back. A sign-in
 *   whose body is not JSON with an email is refused here (400 invalid_body, 413 body_too_large
 *   past 16 KiB), so better-auth never checks a password these limits did not see.
 *
 * Single sign-on (server/auth/sso.ts, docs/identity.md "Single sign-on"): POST
 * /api/auth/sign-in/social { provider: "oidc", callbackURL, errorCallbackURL } answers the
 * provider's authorization URL, once the provider's discovery document answers within
 * PROVIDER_PROBE_MS (else 503 provider_unreachable, so nobody is sent to a page that will not
 * load); GET /api/auth/callback/oidc is the redirect URL registered with the provider. With
 * CLUTCH_PASSWORD_SIGN_IN=off, POST /api/auth/sign-in/email answers 403 password_sign_in_off.
 *
 * POST /api/auth/update-user { name } renames the signed-in person: the name must be nobody
 * else's, person or agent (server/auth/names.ts, docs/identity.md "Names are unique"), else 409
 * name_taken saying whose it is (400 invalid_body for a blank or too long name); nothing changes
 * then. These refusals are answered as every Clutch error is, `{ error: { code, message } }`.
 */
import { toNextJsHandler } from "better-auth/next-js";
import { z } from "zod";
import { CLIENT_ADDRESS_HEADER } from "@/server/http/client-address";
import { originProblem } from "@/server/auth/origins";
import type { Refusal } from "@/server/auth/sign-in-limit";
import { isClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { log } from "@/server/log";
import { json, readText } from "../../_lib/http";

export const dynamic = "force-dynamic";

/** What a sign-in body must hold for its limits to be checked; better-auth checks the rest. */
const SignInBody = z.object({ email: z.string().min(1).max(254) });
/** Largest sign-in body read here (bytes): an email and a password fit many times over. */
const MAX_SIGN_IN_BYTES = 16 * 1024;

const error = (code: string, message: string, status: number, retryAfterSec?: number) => {
  const res = json({ error: { code, message } }, status);
  if (retryAfterSec) res.headers.set("retry-after", String(retryAfterSec));
  return res;
};

/** "14 min" / "40 s": how long a refusal lasts, for its message. */
const duration = (ms: number) => (ms >= 90_000 ? `${Math.ceil(ms / 60_000)} min` : `${Math.max(1, Math.ceil(ms / 1000))} s`);

function refused(r: Refusal): Response {
  const whose = r.scope === "account" ? "this account" : "your address";
  const message =
    r.code === "sign_in_locked"
      ? `sign-in for ${whose} is locked for ${duration(r.retry_ms)} after ${r.failures} failed attempts${r.scope === "account" ? "; an admin can unlock it (Admin → People)" : ""}`
      : `too many failed sign-ins for ${whose}: wait ${duration(r.retry_ms)} before trying again`;
  return error(r.code, message, 429, Math.max(1, Math.ceil(r.retry_ms / 1000)));
}

async function signIn(req: Request, post: (req: Request) => Promise<Response>): Promise<Response> {
  const { identity } = getClutch();
  let text: string;
  try {
    text = await readText(req.clone(), MAX_SIGN_IN_BYTES);
  } catch (err) {
    if (isClutchError(err)) return error(err.code, err.code === "body_too_large" ? `a sign-in body is at most ${MAX_SIGN_IN_BYTES / 1024} KiB` : err.message, err.status);
    throw err;
  }
  // Only a body read here goes on, so no password is checked outside the limits.
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* refused below */
  }
  const body = SignInBody.safeParse(parsed);
  if (!body.success) return error("invalid_body", "sign in with a JSON body { \"email\": \"…\", \"password\": \"…\" } (content-type: application/json)", 400);
  const email = body.data.email.trim().toLowerCase();
  const address = req.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  const refusal = await identity.signIns.begin(email, address);
  if (refusal) return refused(refusal);
  let res: Response;
  try {
    res = await post(req);
  } catch (err) {
    await identity.signIns.voided(email, address);
    throw err;
  }
  // begin() counted the attempt as a failure; a success or an answer that checked no password takes it back.
  if (res.ok) await identity.signIns.succeeded(email, address);
  else if (res.status !== 401) await identity.signIns.voided(email, address);
  else if (await identity.signIns.isLocked(email)) log.warn({ email, address }, "sign-in locked after too many failed attempts");
  return res;
}

/** Clutch's own refusals of a profile change (server/auth/auth.ts `checkProfileName`), as better-auth answers them. */
const PROFILE_REFUSALS = new Set(["name_taken", "invalid_body"]);

/** better-auth's answer to /update-user, with Clutch's refusals in Clutch's error shape. */
async function updateUser(req: Request, post: (req: Request) => Promise<Response>): Promise<Response> {
  const res = await post(req);
  if (res.ok) return res;
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown; message?: unknown } | null;
  if (typeof body?.code === "string" && PROFILE_REFUSALS.has(body.code)) return error(body.code, String(body.message ?? body.code), res.status);
  return res;
}

/** How long the provider's discovery document may take to answer before a sign-in through it is refused (ms). */
const PROVIDER_PROBE_MS = 5_000;

/**
 * Whether the identity provider answers at `issuer` (its discovery document, within
 * PROVIDER_PROBE_MS). Asked twice: a kept-alive connection the provider has just closed fails
 * the first ask without saying anything about the provider.
 */
async function providerAnswers(issuer: string): Promise<boolean> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(PROVIDER_PROBE_MS), redirect: "manual" });
      await res.body?.cancel();
      return res.ok;
    } catch {
      /* asked again, once */
    }
  }
  return false;
}

/** A sign-in through the identity provider starts only while the provider answers. */
async function signInThroughProvider(req: Request, post: (req: Request) => Promise<Response>): Promise<Response> {
  const sso = getClutch().identity.sso;
  if (sso && !(await providerAnswers(sso.settings.issuer))) {
    return error("provider_unreachable", `${sso.settings.label} cannot be reached right now, so Clutch cannot send you there to sign in; try again in a minute, or ask your admin if it goes on`, 503);
  }
  return post(req);
}

const handler = async (req: Request): Promise<Response> => {
  const path = new URL(req.url).pathname;
  if (path.startsWith("/api/auth/sign-up")) {
    return error("invite_only", "accounts are by invitation: ask an admin for an invite link", 403);
  }
  const { identity } = getClutch();
  const h = toNextJsHandler(identity.auth);
  if (req.method === "GET") return h.GET(req);
  const problem = originProblem(req, identity.origins);
  if (problem) return error("invalid_origin", problem, 403);
  if (path === "/api/auth/update-user") return updateUser(req, h.POST);
  if (path === "/api/auth/sign-in/social") return signInThroughProvider(req, h.POST);
  if (path !== "/api/auth/sign-in/email") return h.POST(req);
  if (!identity.passwordSignIn) return error("password_sign_in_off", `this workspace signs in through ${identity.sso?.settings.label ?? "its identity provider"}, not with a password`, 403);
  return signIn(req, h.POST);
};

export const GET = handler;
export const POST = handler;
