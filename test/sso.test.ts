/**
 * Single sign-on's rules against real PostgreSQL (server/auth/sso.ts, docs/identity.md "Single
 * sign-on"): who may come in and with which role, what a sign-in through the provider does to a
 * person who exists, the session refresh that deactivates someone the provider refuses, and
 * passwords turned off. The whole flow through a real provider in Chromium is e2e/sso.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as authRoute from "@/app/api/auth/[...all]/route";
import { isEvent, newId } from "@/lib/protocol";
import { fromRow } from "@/server/events/codec";
import type { Clutch } from "@/server/clutch";
import { databaseOf } from "@/server/events/testing";
import { SYSTEM } from "@/server/auth/principal";
import { SingleSignOn, verdictOf, type OidcSettings, type ProviderProfile, type RefreshedTokens, type UserInfoCheck } from "@/server/auth/sso";
import { testClutch, testPerson } from "./helpers";
import { signInErrorMessage } from "@/lib/sign-in-errors";

const SETTINGS: OidcSettings = {
  issuer: "http://localhost:1/unused",
  clientId: "clutch",
  clientSecret: "secret",
  label: "Acme SSO",
  groupsClaim: "groups",
  adminGroup: "clutch-admins",
  guestGroup: "clutch-guests",
  domains: ["acme.test"],
  scopes: ["openid"],
  recheckSec: 60,
};

describe("who may come in, with which role", () => {
  it("reads the groups claim: admins, guests, members; Keycloak's full paths count", () => {
    expect(verdictOf(SETTINGS, { email: "a@acme.test", groups: ["x", "clutch-admins"] })).toEqual({ ok: true, email: "a@acme.test", role: "admin" });
    expect(verdictOf(SETTINGS, { email: "a@acme.test", groups: ["/clutch-guests"] })).toMatchObject({ role: "guest" });
    expect(verdictOf(SETTINGS, { email: "a@acme.test", groups: "clutch-admins" })).toMatchObject({ role: "admin" });
    expect(verdictOf(SETTINGS, { email: "A@Acme.Test" })).toEqual({ ok: true, email: "a@acme.test", role: "member" });
    expect(verdictOf({ ...SETTINGS, adminGroup: undefined, guestGroup: undefined }, { email: "a@acme.test", groups: ["clutch-admins"] })).toMatchObject({ role: null });
  });

  it("refuses an email outside the allowed domains, or none, saying why", () => {
    expect(verdictOf(SETTINGS, { email: "eve@evil.test" })).toEqual({ ok: false, code: "domain_not_allowed", message: "your email eve@evil.test is not in a domain this workspace admits (acme.test); ask your admin" });
    expect(verdictOf(SETTINGS, {})).toMatchObject({ ok: false, code: "email_missing" });
    expect(verdictOf({ ...SETTINGS, domains: [] }, { email: "eve@evil.test" })).toMatchObject({ ok: true });
  });

  it("the sign-in page's messages name the provider and what to do", () => {
    expect(signInErrorMessage("state_mismatch", undefined, "Acme SSO")).toMatch(/could not be matched to one started here.*Start again/);
    expect(signInErrorMessage("domain_not_allowed", "your email e@x.test is not in a domain this workspace admits (acme.test); ask your admin", "Acme SSO")).toBe("Your email e@x.test is not in a domain this workspace admits (acme.test); ask your admin.");
    expect(signInErrorMessage("something_new", "odd", "Acme SSO")).toBe("Signing in with Acme SSO did not work (something_new: odd). Try again, or ask your admin.");
  });
});

describe("a sign-in through the provider, and the session refresh", () => {
  /** The test's people have emails at test.local (test/helpers.ts `testPerson`). */
  const NODE: OidcSettings = { ...SETTINGS, domains: ["acme.test", "test.local"] };
  let rt: Clutch;
  /** What the provider answers a refresh token with, per test. */
  let refresh: (token: string) => Promise<RefreshedTokens>;
  /** What the provider says of the person for fresh tokens, per test (none by default). */
  let userInfo: (tokens: RefreshedTokens) => Promise<ProviderProfile | null> = async () => null;
  /** Single sign-on of a node of `clutch` whose provider answers refreshes with `refresh`. */
  const ssoOf = (clutch: Clutch) => new SingleSignOn(NODE, { db: databaseOf(clutch.store), names: clutch.identity.names, people: clutch.identity, refresh: (t) => refresh(t), userInfo: (t) => userInfo(t) });
  let sso: SingleSignOn;
  beforeAll(async () => {
    rt = await testClutch({ sso: { oidc: NODE, passwordSignIn: true } });
    sso = ssoOf(rt);
  });
  afterAll(() => rt.stop());

  /** The audit.change summaries about `agent_id`, oldest first. */
  const auditsOf = async (agent_id: string) =>
    (await databaseOf(rt.store).event.findMany({ where: { type: "audit.change", payload: { path: ["subject"], equals: agent_id } }, orderBy: { seq: "asc" } }))
      .map(fromRow)
      .flatMap((e) => (isEvent(e, "audit.change") ? [e.payload.summary] : []));

  const signIn = (user_id: string, email: string, groups: string[]): UserInfoCheck => ({
    user: { id: user_id, email },
    source: { method: "oauth", action: "sign-in", oauth: { providerId: "oidc", profile: { email, groups } } },
  });

  it("a person's role follows their groups at each sign-in, with an audit.change saying so", async () => {
    await testPerson(rt, "admin", "Another Admin"); // so Rolf is not the last admin when the directory demotes him
    const p = await testPerson(rt, "member", "Rolf Role");
    expect(await sso.validate(signIn(p.person!.id, p.person!.email, ["clutch-admins"]), {})).toBeUndefined();
    expect((await rt.identity.person(p.person!.id))?.role).toBe("admin");
    expect((await auditsOf(p.agent_id)).at(-1)).toMatch(/^Rolf Role .* is now an admin \(was member\): from their groups at Acme SSO$/);
    expect(await sso.validate(signIn(p.person!.id, p.person!.email, []), {})).toBeUndefined();
    expect((await rt.identity.person(p.person!.id))?.role).toBe("member");
  });

  it("password and other sign-ups pass untouched; a refusal of a linked person deactivates them", async () => {
    expect(await sso.validate({ user: { email: "x@evil.test" }, source: { method: "email-password", action: "create-user" } }, {})).toBeUndefined();
    const p = await testPerson(rt, "member", "Moved Away");
    const refusal = await sso.validate(signIn(p.person!.id, "moved@elsewhere.test", []), {});
    expect(refusal).toMatchObject({ error: "domain_not_allowed" });
    expect(await rt.identity.deactivation(p.person!.id)).toEqual({ by: "system" });
  });

  it("an admin's deactivation refuses the provider's sign-in; the directory's is lifted when the provider lets them in", async () => {
    const p = await testPerson(rt, "member", "Paused Person");
    await rt.identity.setPersonDeactivated(SYSTEM, p.person!.id, true, "test");
    expect(await sso.validate(signIn(p.person!.id, p.person!.email, []), {})).toBeUndefined();
    expect(await rt.identity.deactivation(p.person!.id)).toBeNull();

    const admin = await testPerson(rt, "admin", "Admin Who Decides");
    await rt.identity.setPersonDeactivated({ kind: "person", agent_id: admin.agent_id, user_id: admin.person!.id, role: "admin", name: "a", email: "a@x", via: "session" }, p.person!.id, true, "left the team");
    expect(await sso.validate(signIn(p.person!.id, p.person!.email, []), {})).toMatchObject({ error: "account_deactivated" });
    expect(await rt.identity.deactivation(p.person!.id)).toEqual({ by: admin.agent_id });
  });

  /** A person signed in through the provider: an account with a refresh token due for its check, and a live session. */
  async function signedInThroughProvider(name: string) {
    const p = await testPerson(rt, "member", name);
    const db = databaseOf(rt.store);
    await db.account.create({ data: { id: newId("task"), accountId: `sub-${p.person!.id}`, providerId: "oidc", userId: p.person!.id, refreshToken: `rt-${p.person!.id}`, accessTokenExpiresAt: new Date(Date.now() - 1000) } });
    await db.session.create({ data: { id: newId("task"), token: newId("task"), userId: p.person!.id, expiresAt: new Date(Date.now() + 3_600_000) } });
    return p;
  }

  it("the provider refusing a refresh token deactivates the person and ends their sessions; a provider that is down deactivates nobody", async () => {
    const db = databaseOf(rt.store);
    const down = await signedInThroughProvider("Down Day");
    refresh = async () => {
      throw new TypeError("fetch failed");
    };
    const first = await sso.recheck();
    expect(first.deactivated).toBe(0);
    expect(await rt.identity.deactivation(down.person!.id)).toBeNull();
    // Checked once: the next check waits recheckSec.
    expect((await sso.recheck()).checked).toBe(0);

    const gone = await signedInThroughProvider("Gone Person");
    refresh = async (token) => {
      if (token === `rt-${gone.person!.id}`) throw Object.assign(new Error("refused"), { error: "invalid_grant", status: 400 });
      return { accessToken: "fresh" };
    };
    // (Accounts other runs of this file left in the shared database may be checked too.)
    const second = await sso.recheck();
    expect(second.deactivated).toBeGreaterThanOrEqual(1);
    expect(await rt.identity.deactivation(gone.person!.id)).toEqual({ by: "system" });
    expect(await db.session.count({ where: { userId: gone.person!.id } })).toBe(0);
  });

  it("at a session refresh, the person's role follows their groups, and a domain no longer admitted deactivates them", async () => {
    const promoted = await signedInThroughProvider("Refreshed Role");
    const moved = await signedInThroughProvider("Refreshed Away");
    refresh = async (token) => ({ accessToken: `at-${token}` });
    userInfo = async (tokens) => {
      if (tokens.accessToken === `at-rt-${promoted.person!.id}`) return { user: { email: promoted.person!.email }, data: { groups: ["clutch-admins"] } };
      if (tokens.accessToken === `at-rt-${moved.person!.id}`) return { user: { email: "moved@elsewhere.test" }, data: {} };
      return null;
    };
    try {
      await sso.recheck();
    } finally {
      userInfo = async () => null;
    }
    expect((await rt.identity.person(promoted.person!.id))?.role).toBe("admin");
    expect((await auditsOf(promoted.agent_id)).at(-1)).toMatch(/is now an admin \(was member\): from their groups at Acme SSO$/);
    expect(await rt.identity.deactivation(moved.person!.id)).toEqual({ by: "system" });
    expect(await databaseOf(rt.store).session.count({ where: { userId: moved.person!.id } })).toBe(0);
  });

  it("two nodes checking at once spend one refresh token once", async () => {
    const p = await signedInThroughProvider("Once Only");
    let spent = 0;
    refresh = async (token) => {
      if (token === `rt-${p.person!.id}`) spent++;
      await new Promise((r) => setTimeout(r, 50));
      return { accessToken: "fresh", refreshToken: "rotated" };
    };
    const other = await testClutch({ sso: { oidc: NODE, passwordSignIn: true } });
    try {
      await Promise.all([sso.recheck(), ssoOf(other).recheck()]);
    } finally {
      await other.stop();
    }
    expect(spent).toBe(1);
    expect((await databaseOf(rt.store).account.findFirst({ where: { userId: p.person!.id, providerId: "oidc" } }))?.refreshToken).toBe("rotated");
  });
});

describe("passwords off", () => {
  let rt: Clutch;
  beforeAll(async () => {
    rt = await testClutch({ sso: { oidc: SETTINGS, passwordSignIn: false } });
  });
  afterAll(() => rt.stop());

  it("email and password sign-in, invites and setup are refused, saying where people sign in", async () => {
    const res = await authRoute.POST(new Request("http://t/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "a@acme.test", password: "x".repeat(12) }) }));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: "password_sign_in_off", message: "this workspace signs in through Acme SSO, not with a password" } });
    await expect(rt.identity.setUp({ name: "N", email: "n@acme.test", password: "x".repeat(12) })).rejects.toMatchObject({ code: "password_sign_in_off", status: 403 });
    const { token } = await rt.identity.invite(SYSTEM, "member");
    await expect(rt.identity.acceptInvite(token, { name: "N", email: "n@acme.test", password: "x".repeat(12) })).rejects.toMatchObject({ code: "password_sign_in_off" });
  });
});
