/**
 * better-auth for people's accounts (docs/identity.md): email and password, sessions in an
 * httpOnly cookie, password change, sign-out. Its routes are served at `/api/auth/*`
 * (app/api/auth/[...all]/route.ts); Clutch calls `auth.api` for the first admin and for invite
 * sign-ups, so the public sign-up route is closed there.
 *
 * `secret` signs the session cookie: CLUTCH_AUTH_SECRET when set (every node of a deployment
 * needs the same one), else one generated on first start and kept in `<dataDir>/auth-secret`,
 * else (no data folder: tests) a random one per process.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { newId } from "@/lib/protocol";
import type { Db } from "../db/client";
import { CLIENT_ADDRESS_HEADER } from "../http/client-address";
import { trustedOrigins, type OriginSettings } from "./origins";

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

/**
 * The better-auth instance over Clutch's database. `origins`: CLUTCH_PUBLIC_URL and the server's
 * port, for the origins sign-in trusts (server/auth/origins.ts).
 */
export function createAuth(db: Db, opts: { secret: string; origins?: OriginSettings }) {
  const origins = opts.origins ?? {};
  return betterAuth({
    appName: "Clutch",
    secret: opts.secret,
    baseURL: origins.publicUrl,
    trustedOrigins: (request) => trustedOrigins(request, origins),
    database: prismaAdapter(db, { provider: "postgresql" }),
    emailAndPassword: { enabled: true, minPasswordLength: MIN_PASSWORD_LENGTH, autoSignIn: true },
    user: {
      additionalFields: { role: { type: "string", required: false, defaultValue: "member", input: false } },
    },
    session: { expiresIn: SESSION_SEC, updateAge: 24 * 3600 },
    // Sign-in has limits of its own, per account and per address, shared by every node
    // (server/auth/sign-in-limit.ts); the rest of better-auth's routes 100 per minute per address.
    rateLimit: { enabled: true, window: 60, max: 100, customRules: { "/sign-in/email": false } },
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
