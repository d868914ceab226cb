/**
 * better-auth for people's accounts (docs/identity.md): email and password, sessions in an
 * httpOnly cookie, password change, sign-out. Its routes are served at `/api/auth/*`
 * (app/api/auth/[...all]/route.ts); Clutch calls `auth.api` for the first admin and for invite
 * sign-ups, so the public sign-up route is closed there.
 *
 * `secret` signs the session cookie: CLUTCH_AUTH_SECRET when set (every node of a deployment
 * needs the same one), else one generated on first start and kept in `<dataDir>/auth-secret`,
 * else (no data folder: tests) a random one per process.
 *
 * Every session better-auth deletes (sign-out, a password change with `revokeOtherSessions`, the
 * `revoke-session(s)` routes, an expired one found by `getSession`) is handed to
 * `onSessionEnded` after its delete commits, so Clutch can end the sockets that authenticated
 * with it on every node (docs/identity.md "Live connections").
 *
 * A person's new name (`/update-user`) passes `checkProfileName` before it is stored: names people
 * see are unique across people and agents (server/auth/names.ts).
 *
 * With `oidc`, people also sign in through the company's OpenID Connect provider (server/auth/sso.ts,
 * docs/identity.md "Single sign-on"): better-auth's generic OAuth plugin, whose sign-ins pass
 * `SingleSignOn.validate` and whose new people get their name and role from
 * `SingleSignOn.userCreating`. A person with the same email is linked when the provider says the
 * email is verified. A failed sign-in through the provider ends on `/sign-in?error=…`.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError } from "better-auth/api";
import { newId } from "@/lib/protocol";
import type { Db } from "../db/client";
import { isClutchError } from "../errors";
import { CLIENT_ADDRESS_HEADER } from "../http/client-address";
import { log } from "../log";
import { trustedOrigins, type OriginSettings } from "./origins";
import { oidcPlugin, type OidcSettings, type SingleSignOn } from "./sso";

/** Shortest password people may choose (docs/identity.md). */
export const MIN_PASSWORD_LENGTH = 10;

/** The session lasts this long (s), renewed when used after a day. */
const SESSION_SEC = 30 * 24 * 3600;

export function authSecret(dataDir: string): string {
  const given = process.env.CLUTCH_AUTH_SECRET ?? process.env.BETTER_AUTH_SECRET;
  if (given) return given;
  if (!dataDir) return randomBytes(32).toString("base64url");
  const file = path.join(dataDir, "auth-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString("base64url");
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

/** How a session ended: which better-auth route deleted it, or its expiry. */
export type SessionEnd = "signed_out" | "password_changed" | "revoked" | "expired" | "ended";

/**
 * A session better-auth deleted: its id (`sessions.id`, never the cookie's token), the account
 * (`users.id`) it was of, and how it ended.
 */
export interface EndedSession {
  id: string;
  user_id: string;
  how: SessionEnd;
}

/** How session `expiresAt` ended when better-auth route `path` deleted it (undefined: not from a route). */
export function sessionEnd(expiresAt: Date, path: string | undefined, now = Date.now()): SessionEnd {
  if (expiresAt.getTime() <= now) return "expired";
  if (path === "/sign-out") return "signed_out";
  if (path === "/change-password") return "password_changed";
  if (path?.startsWith("/revoke-")) return "revoked";
  return "ended";
}

/**
 * A profile's new name (better-auth's `/update-user`, `user_id` its account when known): resolves
 * the name to store, or throws a ClutchError (server/auth/names.ts: `name_taken` 409,
 * `invalid_body` 400), which the update answers with that status, code and message.
 */
export type CheckProfileName = (name: unknown, user_id: string | undefined) => Promise<string>;

/** A ClutchError thrown inside better-auth, as better-auth answers it: the same status, code and message. */
function asApiError(err: unknown): unknown {
  if (!isClutchError(err)) return err;
  const status = err.status === 409 ? "CONFLICT" : err.status === 403 ? "FORBIDDEN" : "BAD_REQUEST";
  return new APIError(status, { code: err.code, message: err.message });
}

/**
 * The better-auth instance over Clutch's database. `oidc`: single sign-on's settings, when
 * configured; `sso`: its rules (server/auth/sso.ts), read at each sign-in. `origins`:
 * CLUTCH_PUBLIC_URL and the server's port, for the origins sign-in trusts (server/auth/origins.ts). `onSessionEnded`: called once
 * per session deleted, after the delete commits; an error it throws is logged, never answered
 * (the sign-out or password change has happened). `checkProfileName`: every change of a
 * person's name passes it before it is stored (docs/identity.md "Names are unique").
 */
export function createAuth(
  db: Db,
  opts: { secret: string; origins?: OriginSettings; onSessionEnded?: (session: EndedSession) => Promise<void>; checkProfileName?: CheckProfileName; oidc?: OidcSettings; sso?: () => SingleSignOn | null },
) {
  const origins = opts.origins ?? {};
  const onSessionEnded = opts.onSessionEnded;
  const checkProfileName = opts.checkProfileName;
  const sso = opts.sso ?? (() => null);
  const settings = opts.oidc;
  return betterAuth({
    appName: "Clutch",
    secret: opts.secret,
    baseURL: origins.publicUrl,
    trustedOrigins: (request) => trustedOrigins(request, origins),
    database: prismaAdapter(db, { provider: "postgresql" }),
    emailAndPassword: { enabled: true, minPasswordLength: MIN_PASSWORD_LENGTH, autoSignIn: true },
    user: {
      additionalFields: { role: { type: "string", required: false, defaultValue: "member", input: false } },
      // The provider's sign-ins pass Clutch's rules (server/auth/sso.ts); every other sign-up passes.
      validateUserInfo: async (data, ctx) => sso()?.validate(data, ctx),
    },
    ...(settings
      ? {
          plugins: [oidcPlugin(settings)],
          // Linked to the person with the same email when the provider says it is verified; a
          // password account's email is not verified by mail here, so that is not asked of it.
          account: { accountLinking: { enabled: true, requireLocalEmailVerified: false } },
          // A failed sign-in through the provider (a wrong state, a refused code or token) ends on the sign-in page.
          onAPIError: { errorURL: `${origins.publicUrl ?? ""}/sign-in` },
        }
      : {}),
    session: { expiresIn: SESSION_SEC, updateAge: 24 * 3600 },
    databaseHooks: {
      user: {
        create: {
          // A person the provider brings gets a name nobody has and the directory's role.
          before: async (user, ctx) => {
            const data = await sso()?.userCreating(user, ctx ?? undefined);
            return data ? { data: { ...user, ...data.data } } : undefined;
          },
          after: async (user, ctx) => {
            await sso()?.userCreated(user, ctx ?? undefined);
          },
        },
        update: {
          // A new name is checked before it is stored; a refusal stores nothing.
          before: async (data, ctx) => {
            if (!checkProfileName || data.name === undefined) return;
            const session = (ctx?.context as { session?: { user?: { id?: string } } | null } | undefined)?.session;
            try {
              return { data: { ...data, name: await checkProfileName(data.name, session?.user?.id) } };
            } catch (err) {
              throw asApiError(err);
            }
          },
        },
      },
      session: {
        delete: {
          after: async (session, ctx) => {
            if (!onSessionEnded) return;
            const ended: EndedSession = { id: session.id, user_id: session.userId, how: sessionEnd(new Date(session.expiresAt), ctx?.path) };
            await onSessionEnded(ended).catch((err: unknown) => log.error({ err, session: ended.id }, "ending a session's sockets failed"));
          },
        },
      },
    },
    // Sign-in has limits of its own, per account and per address, shared by every node
    // (server/auth/sign-in-limit.ts); the rest of better-auth's routes 100 per minute per address.
    // Starting a sign-in through the identity provider checks no secret (the provider limits its own
    // sign-ins), and a whole office may start theirs from one address in the same minute.
    rateLimit: { enabled: true, window: 60, max: 100, customRules: { "/sign-in/email": false, "/sign-in/social": false } },
    advanced: {
      database: { generateId: ({ model }) => (model === "user" ? newId("user") : randomBytes(18).toString("base64url")) },
      cookiePrefix: "clutch",
      // The client's address as the front door worked it out (never a client's X-Forwarded-For).
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
      // Secure cookies only when the app is served over https (CLUTCH_PUBLIC_URL): a browser drops
      // them on plain http, so people reaching `npm start` at http://<host>:3000 could not sign in.
      useSecureCookies: origins.publicUrl?.startsWith("https://") ?? false,
    },
    telemetry: { enabled: false },
    // Failed sign-ins are answered (401) and rate-limited; Clutch's own log says what matters.
    logger: { level: "error" },
  });
}

export type Auth = ReturnType<typeof createAuth>;
