/**
 * The one wrapper every API route goes through (docs/identity.md, "Every door is closed by
 * default"): it authenticates, authorizes, guards against cross-site and too-frequent writes,
 * validates the path parameters, the query and the body with zod, and maps errors to the JSON
 * error shape `{ error: { code, message, issues? } }`, so a new route cannot forget any of them.
 *
 *   export const POST = route({ auth: "admin", params: z.object({ id: z.string() }), body: Body },
 *     async ({ principal, params, body }) => json(...));
 *
 * `auth`: "public" (no principal needed; `principal` may be null), "signed-in" (a person or an
 * agent key), "person" (a signed-in person), "admin" (a person with the admin role). Failures:
 * 401 unauthenticated, 403 forbidden, 403 cross_site_request, 429 rate_limited (Retry-After),
 * 400 invalid_params / invalid_query / invalid_body naming the field, and the handler's
 * ClutchErrors; an unreachable database is a 503 database_unavailable; anything else a logged 500.
 */
import { z } from "zod";
import { countWrite } from "@/server/http/write-limit";
import { ClutchError, isClutchError } from "@/server/errors";
import { isDatabaseUnavailable } from "@/server/db/availability";
import type { Principal } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";
import { log } from "@/server/log";
import { json, MAX_JSON_BODY_BYTES, pathParam, readJson } from "./http";

export type Access = "public" | "signed-in" | "person" | "admin";

type PrincipalFor<A extends Access> = A extends "public" ? Principal | null : A extends "signed-in" ? Principal : Extract<Principal, { kind: "person" }>;

export interface RouteSpec<A extends Access, P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  auth: A;
  params?: P;
  query?: Q;
  /** The JSON body's schema; its input has passed readJson's checks (size, depth, NUL, ...). */
  body?: B;
  /** Largest body in bytes (default MAX_JSON_BODY_BYTES). */
  maxBytes?: number;
  /** An empty body is read as `{}` (a body whose fields are all optional). */
  emptyBody?: boolean;
}

export interface RouteContext<A extends Access, P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  req: Request;
  principal: PrincipalFor<A>;
  params: z.infer<P>;
  query: z.infer<Q>;
  body: z.infer<B>;
}

/** Seconds a client is asked to wait before retrying while the database is unreachable. */
const RETRY_AFTER_SEC = 5;

const isWrite = (req: Request) => req.method !== "GET" && req.method !== "HEAD";

/**
 * A write made with a session cookie must come from a page of this origin (the cookie alone would
 * let any site make a signed-in person's browser write). Browsers send Sec-Fetch-Site; older ones
 * an Origin to compare with the Host.
 */
function assertSameSite(req: Request): void {
  const site = req.headers.get("sec-fetch-site");
  if (site) {
    if (site === "same-origin" || site === "none") return;
  } else {
    const origin = req.headers.get("origin");
    const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
    if (!origin) return;
    try {
      if (new URL(origin).host === host) return;
    } catch {
      /* an unreadable Origin is refused below */
    }
  }
  throw new ClutchError("cross_site_request", "this write came from another site; use Clutch's own pages or an API key", 403);
}

function authorize(access: Access, principal: Principal | null): void {
  if (access === "public") return;
  if (!principal) throw new ClutchError("unauthenticated", "sign in, or send an API key as Authorization: Bearer <key>", 401);
  if (access === "signed-in") return;
  if (principal.kind !== "person") throw new ClutchError("forbidden", "only a signed-in person may do this, not an agent key", 403);
  if (access === "admin" && principal.role !== "admin") throw new ClutchError("forbidden", "only an admin may do this", 403);
}

function parseWith<S extends z.ZodType>(schema: S | undefined, value: unknown, code: string, what: string): z.infer<S> {
  if (!schema) return value as z.infer<S>;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  throw new ClutchError(code, `${first.path.join(".") || what}: ${first.message}`, 400, r.error.issues);
}

function errorResponse(err: unknown, req: Request): Response {
  if (isClutchError(err)) {
    const res = json({ error: err.issues ? { code: err.code, message: err.message, issues: err.issues } : { code: err.code, message: err.message } }, err.status);
    if (err.retryAfterSec) res.headers.set("retry-after", String(err.retryAfterSec));
    return res;
  }
  if (isDatabaseUnavailable(err)) {
    log.warn({ url: req.url }, "database unavailable");
    const res = json({ error: { code: "database_unavailable", message: `the database cannot be reached right now; nothing was stored; retry in ${RETRY_AFTER_SEC} seconds` } }, 503);
    res.headers.set("retry-after", String(RETRY_AFTER_SEC));
    return res;
  }
  log.error({ err, url: req.url }, "request failed");
  return json({ error: { code: "internal", message: "something went wrong on the server; nothing was stored" } }, 500);
}

/** Wrap a route handler (see the module doc). */
export function route<A extends Access, P extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown, B extends z.ZodType = z.ZodUnknown>(
  spec: RouteSpec<A, P, Q, B>,
  fn: (ctx: RouteContext<A, P, Q, B>) => Promise<Response>,
) {
  return async (req: Request, ctx: { params?: Promise<Record<string, string | string[]>> } = {}): Promise<Response> => {
    try {
      const principal = await getClutch().identity.authenticate(req.headers);
      authorize(spec.auth, principal);
      if (principal && isWrite(req)) {
        if (principal.kind === "person" && principal.via === "session") assertSameSite(req);
        const limited = await countWrite(principal.agent_id);
        if (limited) throw new ClutchError("rate_limited", `too many writes: at most ${limited.per_minute} a minute; nothing was stored; retry in ${limited.wait_sec} s`, 429, undefined, limited.wait_sec);
      }
      const rawParams = ctx.params ? await ctx.params : {};
      const decoded = Object.fromEntries(Object.entries(rawParams).map(([k, v]) => [k, typeof v === "string" ? pathParam(v) : v]));
      const params = parseWith(spec.params, decoded, "invalid_params", "path");
      const query = parseWith(spec.query, Object.fromEntries(new URL(req.url).searchParams), "invalid_query", "query");
      const body = spec.body ? parseWith(spec.body, await readJson(req, { maxBytes: spec.maxBytes ?? MAX_JSON_BODY_BYTES, ...(spec.emptyBody ? { empty: {} } : {}) }), "invalid_body", "body") : (undefined as z.infer<B>);
      return await fn({ req, principal: principal as PrincipalFor<A>, params, query, body });
    } catch (err) {
      return errorResponse(err, req);
    }
  };
}
