/**
 * Single sign-on through the company's OpenID Connect provider (docs/identity.md "Single sign-on";
 * Clutch Protocol §6: who is speaking). The protocol itself is better-auth's generic OAuth plugin
 * (`oidcPlugin`): discovery, the authorization code flow with PKCE, `state` and `nonce`, the ID
 * token's signature, issuer, audience and expiry checked against the provider's published keys.
 * What is Clutch's own is the directory's say over people:
 *
 * - **Who may come in** (`verdictOf`): an email the provider vouches for, in an allowed domain
 *   (CLUTCH_OIDC_DOMAINS). A refusal ends on the sign-in page with its message.
 * - **Roles follow groups**: the `groups` claim (CLUTCH_OIDC_GROUPS_CLAIM) holding
 *   CLUTCH_OIDC_ADMIN_GROUP makes an admin, CLUTCH_OIDC_GUEST_GROUP a guest, else a member;
 *   applied at every sign-in, with an `audit.change` (member.role_changed) when it changes. With
 *   neither group set, roles are Clutch's (the first person in an empty workspace is its admin).
 * - **First sign-in** creates the person (name and email from the provider; a name someone else
 *   has gets the email's local part after it, server/auth/names.ts) or links the provider to the
 *   person with the same email, when the provider says the email is verified.
 * - **Leaving the company**: a person the provider no longer lets in is deactivated, as an admin's
 *   deactivation does (sessions and sockets end on every node): refused at their next sign-in
 *   here, or at a session refresh (`recheck`), when the provider refuses their refresh token
 *   (`invalid_grant`). A provider that cannot be reached deactivates nobody. The provider letting
 *   them in again activates them again; an admin's deactivation stays until an admin lifts it.
 */
import { randomBytes } from "node:crypto";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import type { Db } from "../db/client";
import { isClutchError } from "../errors";
import { log } from "../log";
import type { Names } from "./names";
import { SYSTEM, type Role } from "./principal";

/** The provider's id in Clutch: better-auth's routes `/api/auth/sign-in/social` `{ provider: "oidc" }` and `/api/auth/callback/oidc`. */
export const OIDC_PROVIDER_ID = "oidc";

/** The redirect URL to register with the provider, for Clutch served at `base` (CLUTCH_PUBLIC_URL). */
export const oidcRedirectUrl = (base: string) => `${base.replace(/\/+$/, "")}/api/auth/callback/${OIDC_PROVIDER_ID}`;

/** Single sign-on's settings (server/config.ts reads them from CLUTCH_OIDC_*; docs/identity.md). */
export interface OidcSettings {
  /** The provider's issuer URL; its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The sign-in button's text after "Sign in with" (e.g. "Okta"). */
  label: string;
  /** The claim holding the person's groups (default `groups`): an array of strings, or one string. */
  groupsClaim: string;
  /** A value of the groups claim that makes an admin; unset: no group makes admins. */
  adminGroup?: string;
  /** A value of the groups claim that makes a guest; unset: no group makes guests. */
  guestGroup?: string;
  /** Email domains allowed in, lower case; empty: any. */
  domains: string[];
  /** Scopes asked for (default `openid email profile offline_access`, and `groups` when a group is set). */
  scopes: string[];
  /** How often a signed-in person's standing is asked of the provider (s): their refresh token is used then. */
  recheckSec: number;
}

/** The provider's answer about a person, as Clutch's rules read it. */
export type Verdict = { ok: true; email: string; role: Role | null } | { ok: false; code: string; message: string };

/** The values of claim `claim` in `profile`: an array of strings, one string, or none. Keycloak's full paths (`/clutch-admins`) count as their name. */
function groupsOf(profile: Record<string, unknown>, claim: string): Set<string> {
  const raw = profile[claim];
  const list = Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : [];
  return new Set(list.filter((g): g is string => typeof g === "string").flatMap((g) => [g, g.replace(/^\//, "")]));
}

/**
 * May the person of `profile` (the ID token's and userinfo's claims) come in, and with which role?
 * `role` is null when no group is configured (roles are then Clutch's). Refusals: `email_missing`
 * (the provider shared no email), `domain_not_allowed` (CLUTCH_OIDC_DOMAINS).
 */
export function verdictOf(settings: OidcSettings, profile: Record<string, unknown>): Verdict {
  const email = typeof profile.email === "string" ? profile.email.trim().toLowerCase() : "";
  if (!email.includes("@")) {
    return { ok: false, code: "email_missing", message: `${settings.label} did not share your email address, which Clutch needs; ask your admin to release the email claim (scope "email") to Clutch` };
  }
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (settings.domains.length && !settings.domains.includes(domain)) {
    return { ok: false, code: "domain_not_allowed", message: `your email ${email} is not in a domain this workspace admits (${settings.domains.join(", ")}); ask your admin` };
  }
  if (!settings.adminGroup && !settings.guestGroup) return { ok: true, email, role: null };
  const groups = groupsOf(profile, settings.groupsClaim);
  const role: Role = settings.adminGroup && groups.has(settings.adminGroup) ? "admin" : settings.guestGroup && groups.has(settings.guestGroup) ? "guest" : "member";
  return { ok: true, email, role };
}

/**
 * better-auth's generic OAuth plugin for the provider: discovery from the issuer, PKCE, and ID
 * tokens verified against the discovery's JWKS (a provider without one is refused), the client
 * authenticated with HTTP Basic (`client_secret_basic`). A provider down at start is looked up
 * again at the next sign-in.
 */
export function oidcPlugin(settings: OidcSettings) {
  return genericOAuth({
    config: [
      {
        providerId: OIDC_PROVIDER_ID,
        name: settings.label,
        discoveryUrl: `${settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
        clientId: settings.clientId,
        clientSecret: settings.clientSecret,
        scopes: settings.scopes,
        // The client authentication every provider must support (RFC 6749 §2.3.1).
        authentication: "basic",
        pkce: true,
        requireIdTokenVerification: true,
      },
    ],
  });
}

/** What single sign-on changes about people, done by Identity (server/auth/identity.ts) with its audit trail. */
export interface DirectoryPeople {
  /** Whether the person is deactivated, and by whom (`system`: by the directory). */
  deactivation(user_id: string): Promise<{ by: string } | null>;
  setRole(by: typeof SYSTEM, user_id: string, role: Role, reason: string): Promise<unknown>;
  setPersonDeactivated(by: typeof SYSTEM, user_id: string, deactivated: boolean, reason: string): Promise<unknown>;
  /** A person the provider created: `member.joined` and their channels' history read. */
  joinedThroughProvider(user_id: string, label: string): Promise<void>;
}

/** better-auth's `validateUserInfo` input, the parts read here. */
export interface UserInfoCheck {
  user: { id?: string; email?: string; name?: string };
  source: { method: string; action: string; oauth?: { providerId: string; profile?: Record<string, unknown> } };
}

/** What a provider's sign-in decided, per better-auth request (its endpoint context). */
interface Admission {
  verdict: Extract<Verdict, { ok: true }>;
  release?: () => void;
}

/** A refusal better-auth answers the callback with: the sign-in page shows `errorDescription`. */
export type Refusal = { error: string; errorDescription: string };

/**
 * Single sign-on's rules, called by better-auth's hooks (server/auth/auth.ts) and by the
 * server's timer (`recheck`). One per node; nodes share nothing but the database.
 */
export class SingleSignOn {
  /** Each callback's admission, by better-auth's endpoint context: `validate` decides, the user hooks read it. */
  private readonly admissions = new WeakMap<object, Admission>();

  constructor(
    readonly settings: OidcSettings,
    private readonly deps: {
      db: Db;
      names: Names;
      people: DirectoryPeople;
      refresh: (refreshToken: string) => Promise<RefreshedTokens>;
      /** The person's claims for fresh tokens (the ID token verified, then userinfo); null when the provider gave none. */
      userInfo: (tokens: RefreshedTokens) => Promise<ProviderProfile | null>;
    },
  ) {}

  /**
   * better-auth's `user.validateUserInfo` (create-user, link-account, sign-in): the provider's
   * sign-ins pass `verdictOf`; others pass untouched. For a person who exists, their role follows
   * their groups, a deactivation by the directory is lifted, and an admin's refuses
   * (`account_deactivated`). A linked person refused by the rules is deactivated.
   */
  async validate(data: UserInfoCheck, ctx: object | undefined): Promise<Refusal | undefined> {
    const oauth = data.source.oauth;
    if (data.source.method !== "oauth" || oauth?.providerId !== OIDC_PROVIDER_ID) return undefined;
    const verdict = verdictOf(this.settings, { ...oauth.profile, email: data.user.email ?? oauth.profile?.email });
    const user_id = data.source.action === "create-user" ? undefined : data.user.id;
    if (!verdict.ok) {
      if (user_id && data.source.action === "sign-in") await this.deps.people.setPersonDeactivated(SYSTEM, user_id, true, `${this.settings.label} no longer lets them in (${verdict.code})`).catch((err) => log.warn({ err, user_id }, "a person refused by the directory could not be deactivated"));
      return { error: verdict.code, errorDescription: verdict.message };
    }
    if (ctx) this.admissions.set(ctx, { verdict });
    return user_id ? this.admit(user_id, verdict) : undefined;
  }

  /** A person who exists signs in through the provider: activation and role as the directory says. */
  private async admit(user_id: string, verdict: Extract<Verdict, { ok: true }>): Promise<Refusal | undefined> {
    const off = await this.deps.people.deactivation(user_id);
    if (off && off.by !== SYSTEM.agent_id) {
      return { error: "account_deactivated", errorDescription: "your Clutch account was deactivated by an admin of this workspace; ask them to activate it again" };
    }
    if (off) await this.deps.people.setPersonDeactivated(SYSTEM, user_id, false, `${this.settings.label} lets them in again`);
    if (verdict.role) {
      await this.deps.people.setRole(SYSTEM, user_id, verdict.role, `from their groups at ${this.settings.label}`).catch((err) => {
        if (isClutchError(err) && err.code === "last_admin") log.warn({ user_id }, "the directory would remove the last admin; their role stays");
        else throw err;
      });
    }
    return undefined;
  }

  /**
   * better-auth's `user.create.before` for a person the provider brings: a name nobody else has
   * and the role (the directory's; else admin for the workspace's first person, member after).
   * Undefined for any other account (the setup and invites set theirs).
   */
  async userCreating(user: { name?: string; email?: string }, ctx: object | undefined): Promise<{ data: { name: string; role: Role } } | undefined> {
    const admission = ctx ? this.admissions.get(ctx) : undefined;
    if (!admission) return undefined;
    const { name, release } = await this.freeName(user.name ?? "", admission.verdict.email);
    admission.release = release;
    const role = admission.verdict.role ?? ((await this.deps.db.user.count()) === 0 ? "admin" : "member");
    return { data: { name, role } };
  }

  /** better-auth's `user.create.after`: the person the provider brought has joined. */
  async userCreated(user: { id: string }, ctx: object | undefined): Promise<void> {
    const admission = ctx ? this.admissions.get(ctx) : undefined;
    if (!admission) return;
    admission.release?.();
    await this.deps.people.joinedThroughProvider(user.id, this.settings.label);
  }

  /**
   * `name`, or when it is someone else's, `name (local part)`, then `name 2` … `name 9`: the
   * first nobody has, reserved until `release`. A blank name is the email's local part.
   */
  private async freeName(name: string, email: string): Promise<{ name: string; release: () => void }> {
    const local = email.slice(0, email.indexOf("@"));
    const given = name.trim().slice(0, 80) || local;
    const candidates = [given, `${given} (${local})`, ...Array.from({ length: 8 }, (_, i) => `${given} ${i + 2}`)];
    const id = `sign-up:${randomBytes(9).toString("base64url")}`;
    for (const candidate of candidates) {
      try {
        return { name: candidate, release: await this.deps.names.claim([candidate], { kind: "person", id, label: candidate }) };
      } catch (err) {
        if (!isClutchError(err) || err.code !== "name_taken") throw err;
      }
    }
    const fallback = `${given} ${randomBytes(2).toString("hex")}`;
    return { name: fallback, release: () => {} };
  }

  /**
   * A session refresh for everyone signed in through the provider whose check is due: each
   * account's refresh token is used once (claimed first, so two nodes never spend one token
   * twice). The provider refusing it (`invalid_grant`) deactivates the person; a provider that
   * cannot be reached is asked again at the next check. With fresh tokens, the person's claims
   * (`deps.userInfo`) pass `verdictOf` as at a sign-in: their role follows their groups, and a
   * refusal (a domain no longer admitted) deactivates them. The account's `accessTokenExpiresAt`
   * holds when the next check is due (Clutch uses the provider's tokens for nothing else).
   * Resolves how many were checked and deactivated.
   */
  async recheck(now = new Date()): Promise<{ checked: number; deactivated: number }> {
    const due = await this.deps.db.account.findMany({
      where: {
        providerId: OIDC_PROVIDER_ID,
        refreshToken: { not: null },
        OR: [{ accessTokenExpiresAt: null }, { accessTokenExpiresAt: { lte: now } }],
        user: { sessions: { some: { expiresAt: { gt: now } } } },
      },
      select: { id: true, userId: true, refreshToken: true, accessTokenExpiresAt: true },
      take: 100,
    });
    const next = new Date(now.getTime() + this.settings.recheckSec * 1000);
    let checked = 0;
    let deactivated = 0;
    for (const account of due) {
      const claimed = await this.deps.db.account.updateMany({ where: { id: account.id, accessTokenExpiresAt: account.accessTokenExpiresAt }, data: { accessTokenExpiresAt: next } });
      if (!claimed.count) continue;
      checked++;
      let profile: ProviderProfile | null;
      try {
        const tokens = await this.deps.refresh(account.refreshToken!);
        await this.deps.db.account.update({
          where: { id: account.id },
          data: { accessToken: tokens.accessToken, ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}), ...(tokens.idToken ? { idToken: tokens.idToken } : {}), accessTokenExpiresAt: next },
        });
        profile = await this.deps.userInfo(tokens).catch((err) => {
          log.warn({ err: describe(err), user_id: account.userId }, `${this.settings.label} gave fresh tokens but not the person's claims; their role stays until the next check`);
          return null;
        });
      } catch (err) {
        if (!isRefusal(err)) {
          log.warn({ err: describe(err), user_id: account.userId }, `${this.settings.label} could not be asked about a signed-in person; asking again at the next check`);
          continue;
        }
        try {
          if (await this.deps.people.deactivation(account.userId)) continue;
          await this.deps.people.setPersonDeactivated(SYSTEM, account.userId, true, `${this.settings.label} no longer lets them in`);
          deactivated++;
        } catch (e) {
          log.warn({ err: describe(e), user_id: account.userId }, "a person the identity provider refused could not be deactivated");
        }
        continue;
      }
      if (profile && (await this.followDirectory(account.userId, profile))) deactivated++;
    }
    return { checked, deactivated };
  }

  /**
   * At a refresh, what the directory says of a signed-in person now (`verdictOf` on `profile`):
   * a refusal deactivates them (true when it did), else their role follows their groups.
   */
  private async followDirectory(user_id: string, profile: ProviderProfile): Promise<boolean> {
    const verdict = verdictOf(this.settings, { ...profile.data, email: profile.user.email ?? profile.data.email });
    try {
      if (verdict.ok) {
        await this.admit(user_id, verdict);
        return false;
      }
      if (await this.deps.people.deactivation(user_id)) return false;
      await this.deps.people.setPersonDeactivated(SYSTEM, user_id, true, `${this.settings.label} no longer lets them in (${verdict.code})`);
      return true;
    } catch (err) {
      log.warn({ err: describe(err), user_id }, "what the identity provider says of a signed-in person could not be applied");
      return false;
    }
  }
}

/** A person's claims as the provider gives them (better-auth's `getUserInfo`): the mapped user and the raw claims (groups among them). */
export interface ProviderProfile {
  user: { email?: string | null };
  data: Record<string, unknown>;
}

/** The tokens a refresh gives back (better-auth's OAuth2Tokens, the parts kept). */
export interface RefreshedTokens {
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
}

/** A token endpoint's refusal of a refresh token (RFC 6749 §5.2 `invalid_grant`), as better-auth's fetch reports it. */
function isRefusal(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { error?: unknown }).error === "invalid_grant";
}

function describe(err: unknown): unknown {
  return err instanceof Error ? err.message : err;
}
