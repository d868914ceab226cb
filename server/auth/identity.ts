/**
 * Identity (docs/identity.md; Clutch Protocol §6): who is speaking, and the admin's changes to
 * who may do what. `authenticate(headers)` turns a request's session cookie or
 * `Authorization: Bearer <key>` into a Principal, or null. People, invites, API keys, disabled
 * agents and channel membership are managed here; every change is an `audit.change` event.
 *
 * Failed sign-ins are limited per account and per address (`signIns`, server/auth/sign-in-limit.ts);
 * an admin lifts an account's lock with `unlockSignIn`.
 *
 * Errors are ClutchErrors: already_set_up (409), invalid_invite (404/410), email_taken (409),
 * invalid_sign_up (400), unknown_user (404), last_admin (409), unknown_key (404), direct_message
 * (409: a direct message stays between its two people), name_taken (409: a name people see is
 * unique across people and agents, `names`, server/auth/names.ts).
 *
 * A deactivated person (`setPersonDeactivated`) proves nobody: their sessions are ended, their
 * keys and any new session authenticate as null, and their open sockets are disconnected by the
 * gateway when it reads the `member.deactivated` audit event (docs/identity.md).
 */
import { createHash, randomBytes } from "node:crypto";
import { APIError } from "better-auth/api";
import { z } from "zod";
import type { AnswerMode } from "@/lib/answers";
import { newId, type AgentCard, type ClutchMessage, type PayloadOf } from "@/lib/protocol";
import type { InviteSummary, PersonSummary } from "@/lib/api/types";
import type { Db } from "../db/client";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import { ReadMarks } from "../events/read-marks";
import { ClutchError } from "../errors";
import { ChannelAccess } from "./access";
import { AppendCache } from "./append-cache";
import { recordAudit } from "./audit";
import { authorizeAppend } from "./authorize-append";
import { MIN_PASSWORD_LENGTH, type Auth, type EndedSession } from "./auth";
import { ApiKeys, type ApiKeySummary } from "./keys";
import { Names, type NamedAgent } from "./names";
import type { OriginSettings } from "./origins";
import { SignInLimit, type SignInLimitPolicy } from "./sign-in-limit";
import { SingleSignOn, type OidcSettings, type ProviderProfile, type RefreshedTokens } from "./sso";
import { isAdmin, isRole, personAgentId, type AgentPrincipal, type PersonPrincipal, type Principal, type Role } from "./principal";

export type { InviteSummary, PersonSummary };

/** How long an invite link works by default, hours (7 days); CLUTCH_INVITE_TTL_HOURS overrides it (docs/limits.md). */
export const DEFAULT_INVITE_TTL_HOURS = 7 * 24;

type UserRow = { id: string; name: string; email: string; role: string; createdAt: Date };
const toPerson = (u: UserRow): PersonSummary => ({
  id: u.id,
  agent_id: personAgentId(u.id),
  name: u.name,
  email: u.email,
  role: isRole(u.role) ? u.role : "guest",
  created_at: u.createdAt.toISOString(),
});

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** A person's sign-up: what the setup page and an invite's page send. */
export const SignUpSchema = z.strictObject({
  name: z.string().trim().min(1, "your name is required").max(80, "a name is at most 80 characters"),
  email: z.email("that is not an email address").max(254),
  password: z.string().min(MIN_PASSWORD_LENGTH, `a password has at least ${MIN_PASSWORD_LENGTH} characters`).max(128, "a password has at most 128 characters"),
});
export type SignUp = z.infer<typeof SignUpSchema>;

/** How long a key's principal is kept (ms), and for how many keys at most. */
const KEY_CACHE_MS = 30_000;
const KEY_CACHE_MAX = 10_000;

export class Identity {
  readonly keys: ApiKeys;
  readonly channels: ChannelAccess;
  /** What the append authorizer reads, kept in memory (server/auth/append-cache.ts); used once `followTail` feeds it. */
  private readonly appendCache: AppendCache;
  private appendCacheFed = false;
  /** How far each person has read each channel (server/events/read-marks.ts). */
  readonly readMarks: ReadMarks;
  /** Failed sign-ins per account and per address. */
  readonly signIns: SignInLimit;
  /** CLUTCH_PUBLIC_URL and the server's port: the origins sign-in trusts (server/auth/origins.ts). */
  readonly origins: OriginSettings;
  /** Names people see are unique across people and agents (server/auth/names.ts). */
  readonly names: Names;
  /** Single sign-on through the company's OpenID Connect provider, when configured (server/auth/sso.ts). */
  readonly sso: SingleSignOn | null;
  /** Whether people may sign in with an email and a password (CLUTCH_PASSWORD_SIGN_IN; always with no provider). */
  readonly passwordSignIn: boolean;
  /** How long a new invite link works, ms. */
  private readonly inviteTtlMs: number;

  /**
   * `cardOf`: an agent's registered AgentCard (the registry), for its signing keys. Unset: no
   * card is known and signatures are not checked (tests of the identity alone). `settings.agents`:
   * every agent the registry knows, whose names people may not take (server/auth/names.ts). `settings`:
   * the origins sign-in trusts, the limits on failed sign-ins (default: the documented ones), and
   * how long a new invite link works, in hours (`inviteTtlHours`, default DEFAULT_INVITE_TTL_HOURS).
   * `settings.sso`: single sign-on's settings, whether passwords stay, and how a refresh token is
   * spent at the provider (better-auth's provider, server/clutch.ts).
   */
  constructor(
    private readonly db: Db,
    private readonly store: EventStore,
    readonly auth: Auth,
    private readonly cardOf: (agent_id: string) => AgentCard | undefined = () => undefined,
    settings: {
      origins?: OriginSettings;
      signInPolicy?: Partial<SignInLimitPolicy>;
      agents?: () => Iterable<NamedAgent>;
      inviteTtlHours?: number;
      sso?: { oidc: OidcSettings; passwordSignIn: boolean; refresh: (refreshToken: string) => Promise<RefreshedTokens>; userInfo: (tokens: RefreshedTokens) => Promise<ProviderProfile | null> };
    } = {},
  ) {
    this.keys = new ApiKeys(db);
    this.channels = new ChannelAccess(db, () => this.appendCache.forgetChannels());
    this.appendCache = new AppendCache(store.queries, this.channels);
    this.readMarks = new ReadMarks(db);
    this.signIns = new SignInLimit(db, settings.signInPolicy);
    this.origins = settings.origins ?? {};
    this.names = new Names(db, settings.agents);
    const sso = settings.sso;
    this.sso = sso ? new SingleSignOn(sso.oidc, { db, names: this.names, people: this, refresh: sso.refresh, userInfo: sso.userInfo }) : null;
    this.passwordSignIn = sso ? sso.passwordSignIn : true;
    this.inviteTtlMs = (settings.inviteTtlHours ?? DEFAULT_INVITE_TTL_HOURS) * 3600 * 1000;
  }

  /**
   * Principals of API keys by the key's SHA-256, for KEY_CACHE_MS: a key's lookup and the
   * disabled check are two queries, on every request an agent makes. Forgotten at every change
   * of who may do what: this node's own (`audit`), and any node's as its audit.change reaches
   * this one through the log (`forgetPrincipals`, server/clutch.ts). A lookup that began before
   * a change is not kept (`generation`).
   */
  private readonly keyPrincipals = new Map<string, { principal: Principal; until: number }>();
  private generation = 0;

  /** Forget every cached principal (a change of keys, roles, people or agents anywhere). */
  forgetPrincipals(): void {
    this.keyPrincipals.clear();
    this.generation++;
  }

  /** Record a change of who may do what (docs/identity.md), after forgetting cached principals. */
  private async audit(by: Principal, change: PayloadOf<"audit.change">, thread_id?: string): Promise<void> {
    this.forgetPrincipals();
    await recordAudit(this.store, by, change, thread_id);
  }

  // -------------------------------------------------------------------------------------------
  // Who is speaking

  /** The principal of a request or socket handshake, or null when it proves nobody. */
  async authenticate(headers: Headers, token?: string): Promise<Principal | null> {
    const bearer = token ?? /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];
    if (bearer) return this.byCachedKey(bearer);
    const session = await this.auth.api.getSession({ headers }).catch(() => null);
    if (!session) return null;
    const user = session.user as UserRow & { role?: string };
    const person: PersonPrincipal = {
      ...this.personOf(toPerson({ ...user, role: user.role ?? "member" })),
      via: "session",
      session: { id: session.session.id, expires: new Date(session.session.expiresAt).getTime() },
    };
    return (await this.isDisabled(person.agent_id)) ? null : person;
  }

  private personOf(p: PersonSummary): PersonPrincipal {
    return { kind: "person", agent_id: p.agent_id, user_id: p.id, role: p.role, name: p.name, email: p.email, via: "session" };
  }

  private async byCachedKey(key: string): Promise<Principal | null> {
    const id = createHash("sha256").update(key).digest("hex");
    const hit = this.keyPrincipals.get(id);
    if (hit && hit.until > Date.now()) return hit.principal;
    const generation = this.generation;
    const principal = await this.byKey(key);
    if (principal && generation === this.generation) {
      if (this.keyPrincipals.size >= KEY_CACHE_MAX) this.keyPrincipals.clear();
      this.keyPrincipals.set(id, { principal, until: Date.now() + KEY_CACHE_MS });
    } else this.keyPrincipals.delete(id);
    return principal;
  }

  private async byKey(key: string): Promise<Principal | null> {
    const k = await this.keys.verify(key);
    if (!k) return null;
    if (k.owner.startsWith("user:")) {
      const user = await this.db.user.findUnique({ where: { id: k.owner.slice(5) } });
      if (!user || (await this.isDisabled(k.owner))) return null;
      return { ...this.personOf(toPerson(user)), via: "key", key_id: k.id };
    }
    if (await this.isDisabled(k.owner)) return null;
    const agent: AgentPrincipal = { kind: "agent", agent_id: k.owner, key_id: k.id };
    return agent;
  }

  /**
   * The channel of run `run_id` when `p` may read it. Throws unknown_run (404) when the run does
   * not exist or its channel is not readable by `p` (the same answer, so nothing leaks).
   */
  async readableRun(p: Principal, run_id: string): Promise<string> {
    const run = await this.store.queries.run(run_id);
    if (!run || !(await this.channels.canRead(p, run.thread_id))) throw new ClutchError("unknown_run", `run ${run_id} does not exist`, 404);
    return run.thread_id;
  }

  /**
   * Keep the append authorizer's cache (server/auth/append-cache.ts) current from `tail`, every
   * committed event of every node, and use it from now on. Returns the function that stops both.
   */
  followTail(tail: Pick<EventTail, "subscribe" | "onOffer">): () => void {
    this.appendCache.clear();
    const unfollow = this.appendCache.follow(tail);
    this.appendCacheFed = true;
    return () => {
      this.appendCacheFed = false;
      unfollow();
      this.appendCache.clear();
    };
  }

  /** The check `store.append` runs for messages `p` sends (server/auth/authorize-append.ts). */
  authorizer(p: Principal): (messages: ClutchMessage[]) => Promise<void> {
    return (messages) => authorizeAppend(p, messages, { channels: this.channels, queries: this.store.queries, cardOf: this.cardOf, names: this.names, ...(this.appendCacheFed ? { cache: this.appendCache } : {}) });
  }

  // -------------------------------------------------------------------------------------------
  // People

  /** True until the first account exists: the app then shows its setup page. */
  async needsSetup(): Promise<boolean> {
    return (await this.db.user.count()) === 0;
  }

  /**
   * Create the workspace's first account, an admin. Returns the person and the Set-Cookie
   * headers of its new session. Throws already_set_up (409) once anyone exists, name_taken (409)
   * for the name of an agent or of Clutch itself (server/auth/names.ts; not for the admin the
   * server starts with, `ensureAdmin`, so a configured name never stops a start),
   * password_sign_in_off (403) when only the identity provider signs people in (not `byConfig`).
   */
  async setUp(input: SignUp, opts: { checkName?: boolean; byConfig?: boolean } = {}): Promise<{ person: PersonSummary; headers: Headers }> {
    if (!opts.byConfig) this.assertPasswordSignIn();
    if (!(await this.needsSetup())) throw new ClutchError("already_set_up", "this workspace already has an admin; sign in instead", 409);
    const out = await this.signUp(input, "admin", opts);
    await this.audit({ ...this.personOf(out.person), via: "session" }, { action: "workspace.set_up", subject: out.person.agent_id, summary: `${out.person.name} set up the workspace as its admin` });
    return out;
  }

  /** CLUTCH_ADMIN_EMAIL / _PASSWORD / _NAME: create that admin on first start (no-op after). */
  async ensureAdmin(admin: { email: string; password: string; name?: string }): Promise<void> {
    if (!(await this.needsSetup())) return;
    await this.setUp({ name: admin.name ?? (admin.email.split("@")[0] || "admin"), email: admin.email, password: admin.password }, { checkName: false, byConfig: true });
  }

  /** Throws ClutchError password_sign_in_off (403) when people sign in only through the identity provider. */
  private assertPasswordSignIn(): void {
    if (this.passwordSignIn) return;
    throw new ClutchError("password_sign_in_off", `this workspace signs people in through ${this.sso?.settings.label ?? "its identity provider"}: accounts are made there, not with a password`, 403);
  }

  /**
   * A new account with `role` and its session. Throws email_taken (409), name_taken (409: the
   * name is another person's or an agent's, server/auth/names.ts; unless `checkName: false`),
   * invalid_sign_up (400); nothing is stored then.
   */
  private async signUp(input: SignUp, role: Role, opts: { checkName?: boolean } = {}): Promise<{ person: PersonSummary; headers: Headers }> {
    const email = input.email.trim().toLowerCase();
    if (await this.db.user.findUnique({ where: { email } })) throw new ClutchError("email_taken", `${email} already has an account; sign in instead`, 409);
    const name = input.name.trim();
    // The name is held for this sign-up until its account exists (or the sign-up failed).
    const release = opts.checkName === false ? () => {} : await this.names.claim([name], { kind: "person", id: `sign-up:${randomBytes(9).toString("base64url")}`, label: name });
    try {
      const { headers, response } = await this.auth.api.signUpEmail({ body: { name, email, password: input.password }, returnHeaders: true });
      const user = await this.db.user.update({ where: { id: response.user.id }, data: { role } });
      return { person: toPerson(user), headers };
    } catch (err) {
      if (err instanceof APIError) throw new ClutchError("invalid_sign_up", err.message || "the sign-up was refused", 400);
      throw err;
    } finally {
      release();
    }
  }

  /**
   * A person's new profile name (better-auth's `/update-user`, server/auth/auth.ts): the name to
   * store, trimmed. Throws ClutchError invalid_body (400: blank, or longer than 80 characters)
   * or name_taken (409: another person's or an agent's name, server/auth/names.ts); keeping
   * one's own name is fine. `user_id` is the account renamed (unknown: checked against everyone).
   */
  async checkProfileName(name: unknown, user_id: string | undefined): Promise<string> {
    const parsed = SignUpSchema.shape.name.safeParse(name);
    if (!parsed.success) throw new ClutchError("invalid_body", `name: ${parsed.error.issues[0]?.message ?? "a name is text"}; nothing was changed`, 400, parsed.error.issues);
    const id = user_id ? `user:${user_id}` : `profile:${randomBytes(9).toString("base64url")}`;
    await this.names.claim([parsed.data], { kind: "person", id, label: parsed.data });
    return parsed.data;
  }

  /**
   * Everyone with an account, oldest first; `deactivated: true` on those who are, and with
   * `withDeactivation` (admins: Admin → People) who deactivated them, when and why.
   */
  async people(opts: { withDeactivation?: boolean } = {}): Promise<PersonSummary[]> {
    const [users, off] = await Promise.all([
      this.db.user.findMany({ orderBy: { createdAt: "asc" } }),
      this.db.disabledAgent.findMany({ where: { agent_id: { startsWith: "user:" } }, select: { agent_id: true, disabled_by: true, disabled_at: true, reason: true } }),
    ]);
    const offBy = new Map(off.map((r) => [r.agent_id, { by: r.disabled_by, at: r.disabled_at.toISOString(), reason: r.reason }]));
    return users.map(toPerson).map((p) => {
      const deactivation = offBy.get(p.agent_id);
      if (!deactivation) return p;
      return opts.withDeactivation ? { ...p, deactivated: true, deactivation } : { ...p, deactivated: true };
    });
  }

  /**
   * Deactivate a person (or activate them again): while deactivated, their sessions and API keys
   * prove nobody (401) and their open sockets are disconnected; their events stay. Their
   * sessions are ended. Records `member.deactivated` / `member.reactivated`. Throws
   * unknown_user (404), last_admin (409: the last active admin stays).
   */
  async setPersonDeactivated(by: Principal, user_id: string, deactivated: boolean, reason = ""): Promise<PersonSummary> {
    const person = await this.person(user_id);
    if (!person) throw new ClutchError("unknown_user", `no person ${user_id}`, 404);
    if (deactivated) {
      if (person.role === "admin") {
        const off = (await this.db.disabledAgent.findMany({ where: { agent_id: { startsWith: "user:" } }, select: { agent_id: true } })).map((r) => r.agent_id.slice(5));
        if ((await this.db.user.count({ where: { role: "admin", id: { notIn: [...off, user_id] } } })) === 0) {
          throw new ClutchError("last_admin", `${person.name} is the only active admin; make someone else admin first`, 409);
        }
      }
      const r = await this.db.disabledAgent.createMany({ data: [{ agent_id: person.agent_id, disabled_by: by.agent_id, reason }], skipDuplicates: true });
      await this.db.session.deleteMany({ where: { userId: user_id } });
      if (r.count) await this.audit(by, { action: "member.deactivated", subject: person.agent_id, summary: `deactivated ${person.name}${reason ? `: ${reason}` : ""}` });
      return { ...person, deactivated: true };
    }
    const r = await this.db.disabledAgent.deleteMany({ where: { agent_id: person.agent_id } });
    if (r.count) await this.audit(by, { action: "member.reactivated", subject: person.agent_id, summary: `activated ${person.name} again` });
    return person;
  }

  /**
   * A session ended (server/auth/auth.ts `onSessionEnded`: signed out, signed out by a password
   * change with `revokeOtherSessions`, revoked): records `session.ended` (subject: the session's
   * id, `detail: { owner: "user:<id>", how }`) from its person, so every node's gateway ends the
   * sockets that authenticated with it (docs/identity.md "Live connections"). An expired session
   * is not recorded: each gateway ends its sockets at their session's expiry itself.
   */
  async sessionEnded(ended: EndedSession): Promise<void> {
    if (ended.how === "expired") return;
    const person = await this.person(ended.user_id);
    if (!person) return;
    const how = { signed_out: "signed out", password_changed: "signed out by a password change", revoked: "revoked", ended: "ended" }[ended.how];
    await this.audit(
      { ...this.personOf(person), via: "session" },
      { action: "session.ended", subject: ended.id, summary: `a session of ${person.name} was ${how}`, detail: { owner: person.agent_id, how: ended.how } },
    );
  }

  /**
   * Every person, with the lock on their sign-in when there is one, and on a deactivated person
   * who deactivated them, when and why (for admins: Admin → People).
   */
  async peopleWithLocks(): Promise<PersonSummary[]> {
    const [people, locks] = await Promise.all([this.people({ withDeactivation: true }), this.signIns.locks()]);
    const byEmail = new Map(locks.map((l) => [l.email, l]));
    return people.map((p) => {
      const lock = byEmail.get(p.email.toLowerCase());
      return lock ? { ...p, sign_in_lock: { failures: lock.failures, locked_until: lock.locked_until } } : p;
    });
  }

  /**
   * Lift the lock on person `user_id`'s sign-in (too many failed passwords) and clear its count;
   * an `audit.change` (`member.sign_in_unlocked`) when there was a lock. Resolves the person.
   * Throws unknown_user (404).
   */
  async unlockSignIn(by: Principal, user_id: string): Promise<PersonSummary> {
    const person = await this.person(user_id);
    if (!person) throw new ClutchError("unknown_user", `no person ${user_id}`, 404);
    if (await this.signIns.unlock(person.email)) {
      await this.audit(by, { action: "member.sign_in_unlocked", subject: person.agent_id, summary: `unlocked the sign-in of ${person.name} (locked after too many failed passwords)` });
    }
    return person;
  }

  async person(user_id: string): Promise<PersonSummary | null> {
    const u = await this.db.user.findUnique({ where: { id: user_id } });
    return u ? toPerson(u) : null;
  }

  /**
   * Change a person's role (`reason`, when given, ends the audit's summary). Throws unknown_user
   * (404) or last_admin (409: someone must stay admin).
   */
  async setRole(by: Principal, user_id: string, role: Role, reason = ""): Promise<PersonSummary> {
    const before = await this.person(user_id);
    if (!before) throw new ClutchError("unknown_user", `no person ${user_id}`, 404);
    if (before.role === role) return before;
    if (before.role === "admin" && (await this.db.user.count({ where: { role: "admin" } })) <= 1) {
      throw new ClutchError("last_admin", `${before.name} is the only admin; make someone else admin first`, 409);
    }
    const after = toPerson(await this.db.user.update({ where: { id: user_id }, data: { role } }));
    await this.audit(by, { action: "member.role_changed", subject: after.agent_id, summary: `${after.name} is now ${role === "admin" ? "an admin" : `a ${role}`} (was ${before.role})${reason ? `: ${reason}` : ""}`, detail: { from: before.role, to: role } });
    return after;
  }

  // -------------------------------------------------------------------------------------------
  // Invites

  /** A new invite link's token (shown once) and summary; the link works for the configured time (CLUTCH_INVITE_TTL_HOURS). */
  async invite(by: Principal, role: Role, note = ""): Promise<{ token: string; invite: InviteSummary }> {
    const token = randomBytes(24).toString("base64url");
    const row = await this.db.invite.create({
      data: { id: newId("invite"), token_hash: sha256(token), role, note, created_by: by.agent_id, expires_at: new Date(Date.now() + this.inviteTtlMs) },
    });
    const invite = this.toInvite(row);
    await this.audit(by, { action: "member.invited", subject: row.id, summary: `invited a new ${role}${note ? ` (${note})` : ""}`, detail: { role, expires_at: invite.expires_at } });
    return { token, invite };
  }

  async invites(): Promise<InviteSummary[]> {
    return (await this.db.invite.findMany({ orderBy: { created_at: "desc" } })).map((r) => this.toInvite(r));
  }

  /** The open invite a token stands for. Throws invalid_invite: 404 unknown, 410 used, expired or revoked. */
  async openInvite(token: string): Promise<InviteSummary> {
    const row = await this.db.invite.findUnique({ where: { token_hash: sha256(token) } });
    if (!row) throw new ClutchError("invalid_invite", "this invite link is not valid; ask an admin for a new one", 404);
    const invite = this.toInvite(row);
    if (invite.state !== "open") throw new ClutchError("invalid_invite", `this invite link was ${invite.state === "accepted" ? "already used" : invite.state}; ask an admin for a new one`, 410);
    return invite;
  }

  /**
   * Sign up through an invite: the account gets the invite's role and a session. Throws
   * invalid_invite (404/410), email_taken (409), name_taken (409: someone else's name, see
   * server/auth/names.ts), invalid_sign_up (400); nothing is stored then and the invite stays open.
   */
  async acceptInvite(token: string, input: SignUp): Promise<{ person: PersonSummary; headers: Headers }> {
    this.assertPasswordSignIn();
    const invite = await this.openInvite(token);
    const out = await this.signUp(input, invite.role);
    const claimed = await this.db.invite.updateMany({ where: { id: invite.id, accepted_at: null, revoked_at: null }, data: { accepted_at: new Date(), accepted_by: out.person.agent_id } });
    if (!claimed.count) {
      await this.db.user.delete({ where: { id: out.person.id } });
      throw new ClutchError("invalid_invite", "this invite link was used a moment ago; ask an admin for a new one", 410);
    }
    const joined: PersonPrincipal = { ...this.personOf(out.person), via: "session" };
    await this.audit(joined, { action: "member.joined", subject: out.person.agent_id, summary: `${out.person.name} joined as ${invite.role}`, detail: { invite_id: invite.id, role: invite.role } });
    await this.startWithHistoryRead(joined);
    return out;
  }

  /** Revoke an invite; false when it was not open. */
  async revokeInvite(by: Principal, id: string): Promise<boolean> {
    const r = await this.db.invite.updateMany({ where: { id, accepted_at: null, revoked_at: null }, data: { revoked_at: new Date() } });
    if (r.count) await this.audit(by, { action: "invite.revoked", subject: id, summary: "revoked an invite link" });
    return r.count > 0;
  }

  private toInvite(r: { id: string; role: string; note: string; created_by: string; created_at: Date; expires_at: Date; accepted_by: string | null; accepted_at: Date | null; revoked_at: Date | null }): InviteSummary {
    const state = r.accepted_at ? "accepted" : r.revoked_at ? "revoked" : r.expires_at.getTime() <= Date.now() ? "expired" : "open";
    return {
      id: r.id,
      role: isRole(r.role) ? r.role : "guest",
      note: r.note,
      created_by: r.created_by,
      created_at: r.created_at.toISOString(),
      expires_at: r.expires_at.toISOString(),
      state,
      accepted_by: r.accepted_by,
    };
  }

  // -------------------------------------------------------------------------------------------
  // API keys

  /** A new key for `owner` (`user:<id>` or `agent:<id>`); the key is in the answer only. */
  async createKey(by: Principal, owner: string, name: string): Promise<{ key: string; summary: ApiKeySummary }> {
    const out = await this.keys.create(owner, name, by.agent_id);
    await this.audit(by, { action: "key.created", subject: out.summary.id, summary: `created the API key "${name}" (${out.summary.prefix}…) for ${owner}`, detail: { owner, prefix: out.summary.prefix } });
    return out;
  }

  /** Revoke a key. Throws unknown_key (404) when there is none or it is not `allowedOwner`'s. */
  async revokeKey(by: Principal, id: string, allowedOwner?: string): Promise<ApiKeySummary> {
    const key = await this.keys.get(id);
    if (!key || (allowedOwner && key.owner !== allowedOwner)) throw new ClutchError("unknown_key", `no API key ${id}`, 404);
    if (await this.keys.revoke(id)) {
      await this.audit(by, { action: "key.revoked", subject: id, summary: `revoked the API key "${key.name}" (${key.prefix}…) of ${key.owner}`, detail: { owner: key.owner } });
    }
    return (await this.keys.get(id))!;
  }

  // -------------------------------------------------------------------------------------------
  // Agents

  /** Whether person `user_id` is deactivated, and by whom (`system`: by the identity provider, server/auth/sso.ts). */
  async deactivation(user_id: string): Promise<{ by: string } | null> {
    const row = await this.db.disabledAgent.findUnique({ where: { agent_id: personAgentId(user_id) }, select: { disabled_by: true } });
    return row ? { by: row.disabled_by } : null;
  }

  /**
   * A person the identity provider brought in on their first sign-in (server/auth/sso.ts): records
   * `member.joined` (`detail.via: "oidc"`) and starts them with their channels' history read.
   */
  async joinedThroughProvider(user_id: string, label: string): Promise<void> {
    const person = await this.person(user_id);
    if (!person) return;
    const joined: PersonPrincipal = { ...this.personOf(person), via: "session" };
    await this.audit(joined, { action: "member.joined", subject: person.agent_id, summary: `${person.name} joined through ${label} as ${person.role}`, detail: { via: "oidc", role: person.role } });
    await this.startWithHistoryRead(joined);
  }

  async isDisabled(agent_id: string): Promise<boolean> {
    return (await this.db.disabledAgent.count({ where: { agent_id } })) > 0;
  }

  async disabledAgents(): Promise<string[]> {
    return (await this.db.disabledAgent.findMany({ select: { agent_id: true } })).map((r) => r.agent_id);
  }

  /** Disable (or enable again) an external agent: its keys stop working while it is disabled. */
  async setAgentDisabled(by: Principal, agent_id: string, disabled: boolean, reason = ""): Promise<void> {
    if (disabled) {
      const r = await this.db.disabledAgent.createMany({ data: [{ agent_id, disabled_by: by.agent_id, reason }], skipDuplicates: true });
      if (r.count) await this.audit(by, { action: "agent.disabled", subject: agent_id, summary: `disabled ${agent_id}${reason ? `: ${reason}` : ""}` });
    } else {
      const r = await this.db.disabledAgent.deleteMany({ where: { agent_id } });
      if (r.count) await this.audit(by, { action: "agent.enabled", subject: agent_id, summary: `enabled ${agent_id} again` });
    }
  }

  // -------------------------------------------------------------------------------------------
  // Channel membership (reads are in ChannelAccess)

  /**
   * A person who joins the workspace starts with the history of every channel they may read
   * marked read (docs/channels.md "Welcome, drafts and reading"): the backlog is not unread.
   */
  private async startWithHistoryRead(person: PersonPrincipal): Promise<void> {
    const readable = await this.channels.readable(person);
    if (!readable.all) await this.readMarks.startAtEnd(person.agent_id, [...readable.ids]);
  }

  /**
   * A direct message stays between its two people (docs/channels.md "Direct messages"): nobody
   * but them is added to it, nobody is removed from it (there is no leaving a DM), and it stays
   * private, whoever asks, admins too. Throws ClutchError direct_message (409) for such a change
   * of a DM; any change of a channel passes.
   */
  private async assertDmKept(thread_id: string, change: { add: string } | { remove: string } | { visibility: "public" | "private" }): Promise<void> {
    const between = (await this.db.thread.findUnique({ where: { id: thread_id }, select: { dm_between: true } }))?.dm_between ?? [];
    if (!between.length) return;
    if ("add" in change && between.includes(change.add)) return;
    if ("visibility" in change && change.visibility === "private") return;
    const message =
      "remove" in change
        ? "a direct message stays between its two people: nobody can be removed from it or leave it"
        : "add" in change
          ? "a direct message stays between its two people, so nobody can be added to it; start a channel to include others"
          : "a direct message stays between its two people, so it cannot be made public; start a channel to include others";
    throw new ClutchError("direct_message", message, 409);
  }

  /**
   * Adds `member` to the channel (an audit.change); a person added starts with its history read.
   * Throws direct_message (409) for anyone but its two people when the thread is a DM.
   */
  async addMember(by: Principal, thread_id: string, member: string): Promise<void> {
    await this.assertDmKept(thread_id, { add: member });
    if (await this.channels.add(thread_id, member, by.agent_id)) {
      await this.audit(by, { action: "channel.member_added", subject: member, summary: `added ${await this.nameOf(member)} to the channel`, detail: { thread_id } }, thread_id);
      if (member.startsWith("user:")) await this.readMarks.startAtEnd(member, [thread_id]);
    }
  }

  /** Removes `member` from the channel (an audit.change). Throws direct_message (409) for a DM. */
  async removeMember(by: Principal, thread_id: string, member: string): Promise<void> {
    await this.assertDmKept(thread_id, { remove: member });
    if (await this.channels.remove(thread_id, member)) {
      await this.audit(by, { action: "channel.member_removed", subject: member, summary: `removed ${await this.nameOf(member)} from the channel`, detail: { thread_id } }, thread_id);
    }
  }

  /** Makes the channel public or private (an audit.change). Throws direct_message (409) to make a DM public. */
  async setVisibility(by: Principal, thread_id: string, visibility: "public" | "private"): Promise<void> {
    await this.assertDmKept(thread_id, { visibility });
    await this.channels.setVisibility(thread_id, visibility);
    await this.audit(by, { action: "channel.visibility_changed", subject: thread_id, summary: `made the channel ${visibility}`, detail: { visibility } }, thread_id);
  }

  /**
   * Who answers a new top-level message in channel `thread_id` (docs/channels.md "Who answers"):
   * an admin's choice, recorded in the channel as an audit.change everyone there reads.
   * `entryName` names the channel's entry agent for the notice; `fallback` is the workspace's
   * setting, in force while no admin chose. Nothing changes (and no notice) when the setting is
   * already `answers`. Throws ClutchError forbidden (403) for anyone but an admin,
   * direct_message (409) for a DM (every message there is for the other party).
   */
  async setAnswers(by: Principal, thread_id: string, answers: AnswerMode, opts: { entryName: string; fallback: AnswerMode }): Promise<void> {
    if (!isAdmin(by)) throw new ClutchError("forbidden", "only an admin can change who answers in a channel", 403);
    const row = await this.db.thread.findUnique({ where: { id: thread_id }, select: { dm_between: true, answers: true } });
    if (row?.dm_between.length) throw new ClutchError("direct_message", "in a direct message every message is for the other party: there is nothing to choose", 409);
    if ((row?.answers ?? opts.fallback) === answers) return;
    const entryName = opts.entryName;
    await this.db.thread.update({ where: { id: thread_id }, data: { answers } });
    const summary = answers === "every_message" ? `set the channel so that ${entryName} answers every new message` : "set the channel so that agents answer only when @mentioned";
    await this.audit(by, { action: "channel.answers_changed", subject: thread_id, summary, detail: { answers } }, thread_id);
  }

  /** A member's display name: the person's name, or the agent id. */
  async nameOf(member: string): Promise<string> {
    if (!member.startsWith("user:")) return member;
    return (await this.person(member.slice(5)))?.name ?? member;
  }
}
