/**
 * Server configuration from the environment, validated once at start.
 *
 *   PORT            HTTP port for Next and Socket.IO (default 3000)
 *   HOST            interface to bind (default 0.0.0.0)
 *   DATABASE_URL    PostgreSQL to use; unset → the embedded PGlite database
 *   CLUTCH_DATA_DIR where the embedded database keeps its files (default ./.clutch)
 *   LOG_LEVEL       pino level (default info)
 *   CLUTCH_WORKSPACE folder of the agents' workspace.json (default examples/sales-analysis;
 *                   "none" starts no agents)
 *   CLUTCH_HEARTBEAT_INTERVAL_SEC  seconds between agents' heartbeats (Clutch Protocol §2.4;
 *                   default: the workspace's registry.heartbeat_interval_sec, else 30)
 *   CLUTCH_OFFLINE_AFTER_MISSED    missed heartbeats before an agent is offline (default 3)
 *   CLUTCH_ADMIN_EMAIL, CLUTCH_ADMIN_PASSWORD  create this admin on first start, when nobody
 *                   has an account yet (scripted setups; docs/identity.md). Both or neither.
 *   CLUTCH_ADMIN_NAME  that admin's name (default: the email's local part)
 *   CLUTCH_PUBLIC_URL  the URL people open (https://clutch.example.com), for sign-in's origin
 *                   checks behind a proxy; unset: taken from each request
 *   CLUTCH_AUTH_SECRET  signs session cookies; unset: generated once into <data dir>/auth-secret
 *   CLUTCH_REALTIME  where Socket.IO runs: "inline" (in the server's process, the default, and
 *                   the only choice on the embedded database) or "process" (a process of its own,
 *                   PostgreSQL only; server/realtime/process.ts)
 *   CLUTCH_HEADERS_TIMEOUT_SEC, CLUTCH_REQUEST_TIMEOUT_SEC  time for a request's headers
 *                   (default 10) and for the whole request (default 60); docs/limits.md
 *   CLUTCH_TRUSTED_PROXIES  comma-separated IPs or CIDRs of the reverse proxies in front of
 *                   Clutch, whose X-Forwarded-For is believed (docs/deploy.md); unset: none
 *   CLUTCH_ARTIFACT_MAX_BYTES  largest artifact in bytes (default 104857600, 100 MiB; at most
 *                   1 GiB); a larger one is refused with 413 artifact_too_large (docs/limits.md)
 *   CLUTCH_IMAGE_HOSTS  comma-separated host names images in messages may load from (checked
 *                   here; read by server.ts's CSP and the root layout, lib/image-hosts.ts)
 *   CLUTCH_A2A_BLOCKING_SEC  the longest a blocking A2A message/send waits for its task, seconds
 *                   (default 30, at most 3600; docs/limits.md)
 *   CLUTCH_WRITES_PER_MIN, CLUTCH_AGENT_WRITES_PER_MIN  writes a person, and an agent's key, may
 *                   make a minute (default 3000 and 60000; whole numbers from 1 to 10,000,000;
 *                   server/http/write-limit.ts reads them at each write, docs/limits.md)
 *   CLUTCH_INVITE_TTL_HOURS  how long a new invite link works, whole hours (default 168, 7 days;
 *                   1 to 2160, 90 days); docs/limits.md, docs/identity.md
 *   CLUTCH_NODE_NAME  this node's name, on every event of the agents' work here (`meta.node`)
 *                   and in traces as `host.name` (docs/deploy.md); default: host name and port
 *   CLUTCH_AGENT_CONCURRENCY  agents' passes this node runs at once, of every run of the
 *                   deployment (default 4; PostgreSQL only; docs/deploy.md "Where agents run")
 *   CLUTCH_OIDC_ISSUER, CLUTCH_OIDC_CLIENT_ID, CLUTCH_OIDC_CLIENT_SECRET  single sign-on through
 *                   the company's OpenID Connect provider (all three, or none; docs/identity.md
 *                   "Single sign-on"); its redirect URL is <public URL>/api/auth/callback/oidc
 *   CLUTCH_OIDC_LABEL  the button's text after "Sign in with" (default "single sign-on")
 *   CLUTCH_OIDC_ADMIN_GROUP, CLUTCH_OIDC_GUEST_GROUP  values of the groups claim that make an
 *                   admin or a guest (others are members); unset: roles are Clutch's
 *   CLUTCH_OIDC_GROUPS_CLAIM  the claim holding groups (default "groups")
 *   CLUTCH_OIDC_DOMAINS  comma-separated email domains allowed in; unset: any
 *   CLUTCH_OIDC_SCOPES  space- or comma-separated scopes (default "openid email profile
 *                   offline_access", and "groups" when a group is set)
 *   CLUTCH_OIDC_RECHECK_SEC  how often a signed-in person is asked about of the provider (default
 *                   300); a refusal deactivates them
 *   CLUTCH_PASSWORD_SIGN_IN  "off" hides email and password sign-in (needs CLUTCH_OIDC_*); default on
 *   CLUTCH_TRACE_PRIVATE_CONTENT  1: exported traces carry the titles, summaries and messages of
 *                   runs in private channels and DMs too; unset or 0 (the default): those are
 *                   "(private)" (docs/observability.md "What a trace carries")
 *
 * Throws a ZodError-derived Error with a readable message when a value is invalid.
 */
import path from "node:path";
import { z } from "zod";
import { DEFAULT_ARTIFACT_MAX_BYTES } from "./artifacts/store";
import type { OidcSettings } from "./auth/sso";
import { DEFAULT_INVITE_TTL_HOURS } from "./auth/identity";
import { imageHostsProblem } from "@/lib/image-hosts";
import { parseTrustedProxies, type TrustedProxies } from "./http/client-address";
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, type HttpTimeouts } from "./http/timeouts";
import { AGENT_WRITES_PER_MIN, PERSON_WRITES_PER_MIN, writesPerMinuteSetting } from "./http/write-limit";

/** An optional setting's text, trimmed; blank is unset. */
const optionalText = z.string().trim().optional().transform((v) => v || undefined);
/** A writes-a-minute setting, checked by write-limit.ts's own parser (the one each write reads it with). */
const writesPerMinute = (name: string, fallback: number) =>
  z.string().optional().transform((v, ctx) => {
    try {
      return writesPerMinuteSetting(name, v, fallback);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
      return z.NEVER;
    }
  });

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  CLUTCH_DATA_DIR: z.string().min(1).default(".clutch"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  CLUTCH_WORKSPACE: z.string().min(1).default("examples/sales-analysis"),
  CLUTCH_HEARTBEAT_INTERVAL_SEC: z.coerce.number().positive().max(3600).optional(),
  CLUTCH_OFFLINE_AFTER_MISSED: z.coerce.number().int().min(1).max(100).optional(),
  CLUTCH_ADMIN_EMAIL: z.email("CLUTCH_ADMIN_EMAIL must be an email address").optional().or(z.literal("").transform(() => undefined)),
  CLUTCH_ADMIN_PASSWORD: z.string().min(10, "CLUTCH_ADMIN_PASSWORD must be at least 10 characters").optional().or(z.literal("").transform(() => undefined)),
  CLUTCH_ADMIN_NAME: z.string().trim().max(80, "CLUTCH_ADMIN_NAME is at most 80 characters").optional().transform((v) => v || undefined),
  CLUTCH_PUBLIC_URL: z.url("CLUTCH_PUBLIC_URL must be a URL").optional().or(z.literal("").transform(() => undefined)),
  CLUTCH_NODE_NAME: z.string().trim().max(120, "CLUTCH_NODE_NAME is at most 120 characters").optional().transform((v) => v || undefined),
  CLUTCH_AGENT_CONCURRENCY: z.coerce
    .number()
    .int("CLUTCH_AGENT_CONCURRENCY must be a whole number of passes")
    .min(1, "CLUTCH_AGENT_CONCURRENCY must be at least 1")
    .max(256, "CLUTCH_AGENT_CONCURRENCY is at most 256")
    .optional(),
  CLUTCH_REALTIME: z.enum(["process", "inline"], "CLUTCH_REALTIME must be process or inline").optional(),
  CLUTCH_HEADERS_TIMEOUT_SEC: z.coerce.number().positive("CLUTCH_HEADERS_TIMEOUT_SEC must be a positive number of seconds").max(3600).default(DEFAULT_HEADERS_TIMEOUT_MS / 1000),
  CLUTCH_REQUEST_TIMEOUT_SEC: z.coerce.number().positive("CLUTCH_REQUEST_TIMEOUT_SEC must be a positive number of seconds").max(3600).default(DEFAULT_REQUEST_TIMEOUT_MS / 1000),
  CLUTCH_ARTIFACT_MAX_BYTES: z.coerce
    .number()
    .int("CLUTCH_ARTIFACT_MAX_BYTES must be a whole number of bytes")
    .positive("CLUTCH_ARTIFACT_MAX_BYTES must be a positive number of bytes")
    .max(1024 ** 3, "CLUTCH_ARTIFACT_MAX_BYTES is at most 1073741824 (1 GiB)")
    .default(DEFAULT_ARTIFACT_MAX_BYTES),
  CLUTCH_INVITE_TTL_HOURS: z.coerce
    .number("CLUTCH_INVITE_TTL_HOURS must be a whole number of hours, e.g. 168 for 7 days")
    .int("CLUTCH_INVITE_TTL_HOURS must be a whole number of hours, e.g. 168 for 7 days")
    .min(1, "CLUTCH_INVITE_TTL_HOURS must be at least 1 (hour)")
    .max(2160, "CLUTCH_INVITE_TTL_HOURS is at most 2160 (90 days)")
    .default(DEFAULT_INVITE_TTL_HOURS),
  CLUTCH_IMAGE_HOSTS: z.string().optional().superRefine((v, ctx) => {
    const problem = imageHostsProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
  CLUTCH_A2A_BLOCKING_SEC: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce
      .number("CLUTCH_A2A_BLOCKING_SEC must be a number of seconds, e.g. 30")
      .positive("CLUTCH_A2A_BLOCKING_SEC must be a positive number of seconds, e.g. 30")
      .max(3600, "CLUTCH_A2A_BLOCKING_SEC is at most 3600 (an hour)")
      .optional(),
  ),
  CLUTCH_WRITES_PER_MIN: writesPerMinute("CLUTCH_WRITES_PER_MIN", PERSON_WRITES_PER_MIN),
  CLUTCH_AGENT_WRITES_PER_MIN: writesPerMinute("CLUTCH_AGENT_WRITES_PER_MIN", AGENT_WRITES_PER_MIN),
  CLUTCH_TRACE_PRIVATE_CONTENT: z
    .enum(["0", "1", "false", "true", ""], "CLUTCH_TRACE_PRIVATE_CONTENT must be 1 (send private channels' content in traces) or 0")
    .optional()
    .transform((v) => v === "1" || v === "true"),
  CLUTCH_OIDC_ISSUER: z.url("CLUTCH_OIDC_ISSUER must be the provider's issuer URL, e.g. https://keycloak.example.com/realms/acme").optional().or(z.literal("").transform(() => undefined)),
  CLUTCH_OIDC_CLIENT_ID: optionalText,
  CLUTCH_OIDC_CLIENT_SECRET: optionalText,
  CLUTCH_OIDC_LABEL: z.string().trim().max(40, "CLUTCH_OIDC_LABEL is at most 40 characters").optional().transform((v) => v || "single sign-on"),
  CLUTCH_OIDC_ADMIN_GROUP: optionalText,
  CLUTCH_OIDC_GUEST_GROUP: optionalText,
  CLUTCH_OIDC_GROUPS_CLAIM: z.string().trim().optional().transform((v) => v || "groups"),
  CLUTCH_OIDC_DOMAINS: z.string().optional().transform((v, ctx) => {
    const domains = listOf(v).map((d) => d.toLowerCase().replace(/^@/, ""));
    const bad = domains.find((d) => !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(d));
    if (bad) ctx.addIssue({ code: "custom", message: `"${bad}" is not an email domain (e.g. acme.com)` });
    return domains;
  }),
  CLUTCH_OIDC_SCOPES: z.string().optional().transform((v) => listOf(v)),
  CLUTCH_OIDC_RECHECK_SEC: z.coerce.number().min(1, "CLUTCH_OIDC_RECHECK_SEC must be at least 1 second").max(86_400).default(300),
  CLUTCH_PASSWORD_SIGN_IN: z.enum(["on", "off", ""], "CLUTCH_PASSWORD_SIGN_IN must be on or off").optional().transform((v) => v !== "off"),
  CLUTCH_TRUSTED_PROXIES: z.string().optional().transform((v, ctx) => {
    try {
      return parseTrustedProxies(v);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: `CLUTCH_TRUSTED_PROXIES: ${(err as Error).message}` });
      return z.NEVER;
    }
  }),
}).refine((c) => c.CLUTCH_REQUEST_TIMEOUT_SEC >= c.CLUTCH_HEADERS_TIMEOUT_SEC, {
  path: ["CLUTCH_REQUEST_TIMEOUT_SEC"],
  message: "CLUTCH_REQUEST_TIMEOUT_SEC must be at least CLUTCH_HEADERS_TIMEOUT_SEC",
}).refine((c) => Boolean(c.CLUTCH_ADMIN_EMAIL) === Boolean(c.CLUTCH_ADMIN_PASSWORD), {
  path: ["CLUTCH_ADMIN_PASSWORD"],
  message: "set both CLUTCH_ADMIN_EMAIL and CLUTCH_ADMIN_PASSWORD, or neither",
}).refine((c) => [c.CLUTCH_OIDC_ISSUER, c.CLUTCH_OIDC_CLIENT_ID, c.CLUTCH_OIDC_CLIENT_SECRET].every(Boolean) || ![c.CLUTCH_OIDC_ISSUER, c.CLUTCH_OIDC_CLIENT_ID, c.CLUTCH_OIDC_CLIENT_SECRET].some(Boolean), {
  path: ["CLUTCH_OIDC_ISSUER"],
  message: "single sign-on needs all of CLUTCH_OIDC_ISSUER, CLUTCH_OIDC_CLIENT_ID and CLUTCH_OIDC_CLIENT_SECRET, or none",
}).refine((c) => c.CLUTCH_PASSWORD_SIGN_IN || Boolean(c.CLUTCH_OIDC_ISSUER), {
  path: ["CLUTCH_PASSWORD_SIGN_IN"],
  message: "CLUTCH_PASSWORD_SIGN_IN=off needs single sign-on (CLUTCH_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET), or nobody could sign in",
});

/** "a, b c" → ["a", "b", "c"]: a list setting, split on commas and spaces. */
function listOf(v: string | undefined): string[] {
  return (v ?? "").split(/[\s,]+/).filter(Boolean);
}

/** Single sign-on's settings from the parsed environment, or undefined when it is not configured. */
function oidcOf(c: z.infer<typeof ConfigSchema>): OidcSettings | undefined {
  if (!c.CLUTCH_OIDC_ISSUER || !c.CLUTCH_OIDC_CLIENT_ID || !c.CLUTCH_OIDC_CLIENT_SECRET) return undefined;
  const groups = Boolean(c.CLUTCH_OIDC_ADMIN_GROUP || c.CLUTCH_OIDC_GUEST_GROUP);
  return {
    issuer: c.CLUTCH_OIDC_ISSUER,
    clientId: c.CLUTCH_OIDC_CLIENT_ID,
    clientSecret: c.CLUTCH_OIDC_CLIENT_SECRET,
    label: c.CLUTCH_OIDC_LABEL,
    groupsClaim: c.CLUTCH_OIDC_GROUPS_CLAIM,
    ...(c.CLUTCH_OIDC_ADMIN_GROUP ? { adminGroup: c.CLUTCH_OIDC_ADMIN_GROUP } : {}),
    ...(c.CLUTCH_OIDC_GUEST_GROUP ? { guestGroup: c.CLUTCH_OIDC_GUEST_GROUP } : {}),
    domains: c.CLUTCH_OIDC_DOMAINS,
    scopes: c.CLUTCH_OIDC_SCOPES.length ? c.CLUTCH_OIDC_SCOPES : ["openid", "email", "profile", "offline_access", ...(groups ? ["groups"] : [])],
    recheckSec: c.CLUTCH_OIDC_RECHECK_SEC,
  };
}

export interface ClutchConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: string;
  dev: boolean;
  /** Absolute folder of workspace.json, or null for no agents. */
  workspaceDir: string | null;
  /** Registry settings from the environment; unset ones come from the workspace or defaults. */
  registry: { heartbeat_interval_sec?: number; offline_after_missed?: number };
  /** The admin to create on first start, if any. */
  admin: { email: string; password: string; name?: string } | undefined;
  publicUrl: string | undefined;
  /** CLUTCH_NODE_NAME: this node's name in `meta.node` and traces; unset: the host's name and the port. */
  nodeName: string | undefined;
  /** CLUTCH_AGENT_CONCURRENCY: agents' passes this node runs at once; unset: 4 (server/dispatch/turns.ts). */
  agentConcurrency: number | undefined;
  /** Socket.IO in a process of its own (PostgreSQL only) or in the server's. */
  realtime: "process" | "inline";
  /** The HTTP server's time limits (server/http/timeouts.ts). */
  timeouts: HttpTimeouts;
  /** CLUTCH_TRUSTED_PROXIES, parsed (server/http/client-address.ts). */
  trustedProxies: TrustedProxies;
  /** Largest artifact, bytes (CLUTCH_ARTIFACT_MAX_BYTES). */
  artifactMaxBytes: number;
  /** How long a new invite link works, hours (CLUTCH_INVITE_TTL_HOURS). */
  inviteTtlHours: number;
  /** CLUTCH_A2A_BLOCKING_SEC: the bound of a blocking A2A message/send, seconds; unset: the A2A server's default (30). */
  a2aBlockingSec: number | undefined;
  /** CLUTCH_TRACE_PRIVATE_CONTENT: traces carry private channels' and DMs' content too (default false). */
  tracePrivateContent: boolean;
  /** Single sign-on (CLUTCH_OIDC_*) and whether passwords stay (CLUTCH_PASSWORD_SIGN_IN); unset: passwords only. */
  sso: { oidc: OidcSettings; passwordSignIn: boolean } | undefined;
}

/** The configuration read from `env` (defaults to process.env). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ClutchConfig {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const c = parsed.data;
  return {
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    dataDir: path.resolve(c.CLUTCH_DATA_DIR),
    logLevel: c.LOG_LEVEL,
    dev: c.NODE_ENV !== "production",
    workspaceDir: c.CLUTCH_WORKSPACE === "none" ? null : path.resolve(c.CLUTCH_WORKSPACE),
    registry: {
      ...(c.CLUTCH_HEARTBEAT_INTERVAL_SEC ? { heartbeat_interval_sec: c.CLUTCH_HEARTBEAT_INTERVAL_SEC } : {}),
      ...(c.CLUTCH_OFFLINE_AFTER_MISSED ? { offline_after_missed: c.CLUTCH_OFFLINE_AFTER_MISSED } : {}),
    },
    admin: c.CLUTCH_ADMIN_EMAIL && c.CLUTCH_ADMIN_PASSWORD ? { email: c.CLUTCH_ADMIN_EMAIL, password: c.CLUTCH_ADMIN_PASSWORD, ...(c.CLUTCH_ADMIN_NAME ? { name: c.CLUTCH_ADMIN_NAME } : {}) } : undefined,
    publicUrl: c.CLUTCH_PUBLIC_URL,
    nodeName: c.CLUTCH_NODE_NAME,
    agentConcurrency: c.CLUTCH_AGENT_CONCURRENCY,
    // The embedded database serves one process.
    realtime: c.DATABASE_URL ? (c.CLUTCH_REALTIME ?? "inline") : "inline",
    timeouts: { headersMs: c.CLUTCH_HEADERS_TIMEOUT_SEC * 1000, requestMs: c.CLUTCH_REQUEST_TIMEOUT_SEC * 1000 },
    trustedProxies: c.CLUTCH_TRUSTED_PROXIES,
    artifactMaxBytes: c.CLUTCH_ARTIFACT_MAX_BYTES,
    inviteTtlHours: c.CLUTCH_INVITE_TTL_HOURS,
    a2aBlockingSec: c.CLUTCH_A2A_BLOCKING_SEC,
    tracePrivateContent: c.CLUTCH_TRACE_PRIVATE_CONTENT,
    sso: ((oidc) => (oidc ? { oidc, passwordSignIn: c.CLUTCH_PASSWORD_SIGN_IN } : undefined))(oidcOf(c)),
  };
}
