/**
 * Single sign-on in Chromium (docs/identity.md "Single sign-on"): a real OpenID Connect provider
 * (`oidc-provider`, test/fixtures/oidc-provider.ts) and a Clutch server of the spec's own
 * configured for it. A person clicks "Sign in with Acme SSO", signs in on the provider's own page
 * and lands in the workspace with the role their groups give; each failure ends on the sign-in
 * page with a message a person can act on; someone the provider stops letting in is deactivated.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startOidcProvider, type TestOidcProvider } from "../test/fixtures/oidc-provider";
import { E2E_ADMIN } from "../playwright.config";
import { ownServer, seriousViolations, type OwnServer } from "./helpers";

const OFFSET = 21;
const APP = `http://localhost:${Number(process.env.E2E_PORT ?? 3100) + OFFSET}`;

let provider: TestOidcProvider;
let server: OwnServer;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(150_000);
  provider = await startOidcProvider({ appUrl: APP, accessTokenTtlSec: 1 });
  server = await ownServer("sso", OFFSET, {
    CLUTCH_WORKSPACE: "none",
    CLUTCH_ADMIN_EMAIL: E2E_ADMIN.email,
    CLUTCH_ADMIN_PASSWORD: E2E_ADMIN.password,
    CLUTCH_ADMIN_NAME: E2E_ADMIN.name,
    CLUTCH_OIDC_ISSUER: provider.issuer,
    CLUTCH_OIDC_CLIENT_ID: provider.clientId,
    CLUTCH_OIDC_CLIENT_SECRET: provider.clientSecret,
    CLUTCH_OIDC_LABEL: "Acme SSO",
    CLUTCH_OIDC_ADMIN_GROUP: "clutch-admins",
    CLUTCH_OIDC_GUEST_GROUP: "clutch-guests",
    CLUTCH_OIDC_DOMAINS: "acme.test",
    CLUTCH_OIDC_RECHECK_SEC: "1",
  });
});

test.afterAll(async () => {
  await server?.stop();
  await provider?.stop().catch(() => {});
});

/** A person at the provider, with a unique id and email. */
function person(name: string, groups: string[], domain = "acme.test") {
  const id = `${name.split(" ")[0]!.toLowerCase()}-${Date.now().toString(36)}`;
  const p = { id, email: `${id}@${domain}`, name, groups };
  provider.people.set(id, p);
  return p;
}

/** A signed-out browser page on the spec's server. */
async function signedOut(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] }, baseURL: APP });
  return context.newPage();
}

/** Click "Sign in with Acme SSO" and sign in on the provider's own page as `login`. */
async function throughProvider(page: Page, login: string): Promise<void> {
  await page.getByRole("button", { name: "Sign in with Acme SSO" }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.locator('button[type="submit"]').click();
}

async function roleOf(page: Page): Promise<string> {
  const res = await page.request.get("/api/me");
  expect(res.status()).toBe(200);
  return ((await res.json()) as { principal: { role: string } }).principal.role;
}

test("a person signs in through the company's provider and lands in the workspace with the role their groups give", async ({ browser }) => {
  const ines = person("Ines Okafor", ["staff", "clutch-admins"]);
  const page = await signedOut(browser);
  await page.goto("/sign-in");
  // The provider's button comes first, and passwords stay below it.
  const button = page.getByRole("button", { name: "Sign in with Acme SSO" });
  await expect(button).toBeFocused();
  await expect(page.getByLabel("Email")).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await throughProvider(page, ines.id);
  await expect(page).toHaveURL(`${APP}/`);
  await expect(page.getByRole("navigation", { name: /channels|workspace/i }).first()).toBeVisible();
  expect(await roleOf(page)).toBe("admin");

  // The admin sees who joined, and how.
  const admin = await signedOut(browser);
  await admin.request.post("/api/auth/sign-in/email", { data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password }, headers: { origin: APP } });
  const people = (await (await admin.request.get("/api/people")).json()) as { people: { email: string; name: string; role: string }[] };
  expect(people.people.find((p) => p.email === ines.email)).toMatchObject({ name: "Ines Okafor", role: "admin" });

  // A guest, by their groups; when the groups change at the provider, the next session refresh
  // (every second here) makes them a member, without a new sign-in.
  const gus = person("Gus Guest", ["clutch-guests"]);
  const guest = await signedOut(browser);
  await guest.goto("/sign-in");
  await throughProvider(guest, gus.id);
  await expect(guest).toHaveURL(`${APP}/`);
  expect(await roleOf(guest)).toBe("guest");
  provider.people.set(gus.id, { ...gus, groups: [] });
  await expect.poll(() => roleOf(guest), { timeout: 20_000 }).toBe("member");
});

test("the person with the same email is linked, and a name someone has gets their email's first part", async ({ browser }) => {
  // Dana (the admin, a password account at clutch.test) is not in an allowed domain: refused with the reason.
  provider.people.set("dana", { id: "dana", email: E2E_ADMIN.email, name: "Dana Whitfield", groups: ["clutch-admins"] });
  const page = await signedOut(browser);
  await page.goto("/sign-in");
  await throughProvider(page, "dana");
  await expect(page).toHaveURL(/\/sign-in\?/);
  await expect(page.getByRole("main").getByRole("alert")).toContainText(`Your email ${E2E_ADMIN.email} is not in a domain this workspace admits (acme.test)`);

  // Someone who joined with a password, at an allowed domain: their provider account is linked to them.
  const admin = await signedOut(browser);
  await admin.request.post("/api/auth/sign-in/email", { data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password }, headers: { origin: APP } });
  const { token } = (await (await admin.request.post("/api/invites", { data: { role: "member" }, headers: { origin: APP } })).json()) as { token: string };
  const ana = person("Ana Ruiz", []);
  const joined = await admin.request.fetch(`/api/join/${token}`, { method: "POST", data: { name: "Ana Ruiz", email: ana.email, password: "ana-password-1" }, headers: { origin: APP } });
  expect(joined.status()).toBe(201);
  const anaId = ((await joined.json()) as { person: { id: string } }).person.id;
  const linked = await signedOut(browser);
  await linked.goto("/sign-in");
  await throughProvider(linked, ana.id);
  await expect(linked).toHaveURL(`${APP}/`);
  expect(((await (await linked.request.get("/api/me")).json()) as { principal: { user_id: string } }).principal.user_id).toBe(anaId);

  // Two people called the same at the provider: the second gets their email's first part after the name.
  const a = person("Sam Lee", []);
  const first = await signedOut(browser);
  await first.goto("/sign-in");
  await throughProvider(first, a.id);
  await expect(first).toHaveURL(`${APP}/`);
  const b = person("Sam Lee", []);
  b.id = `sam2-${Date.now().toString(36)}`;
  b.email = `${b.id}@acme.test`;
  provider.people.set(b.id, b);
  const second = await signedOut(browser);
  await second.goto("/sign-in");
  await throughProvider(second, b.id);
  await expect(second).toHaveURL(`${APP}/`);
  const me = (await (await second.request.get("/api/me")).json()) as { principal: { name: string } };
  expect(me.principal.name).toBe(`Sam Lee (${b.id})`);
});

test("each failure ends on the sign-in page with a message a person can act on", async ({ browser }) => {
  const kim = person("Kim Park", []);
  const page = await signedOut(browser);

  // A wrong state: a callback this browser never started.
  await page.goto("/api/auth/callback/oidc?code=made-up&state=not-ours");
  await expect(page).toHaveURL(/\/sign-in\?/);
  await expect(page.getByRole("main").getByRole("alert")).toContainText("could not be matched to one started here");
  await expect(page.getByRole("button", { name: "Sign in with Acme SSO" })).toBeVisible();

  // An expired code: the provider's codes live 1 s, and the way back takes 2.5 s.
  provider.codeTtlSec = 1;
  provider.returnDelayMs = 2_500;
  try {
    await throughProvider(page, kim.id);
    await expect(page).toHaveURL(/\/sign-in\?/, { timeout: 15_000 });
    await expect(page.getByRole("main").getByRole("alert")).toContainText("did not accept the sign-in code");
  } finally {
    provider.codeTtlSec = 60;
    provider.returnDelayMs = 0;
  }

  // An ID token for another audience (signed by the provider's own key). Cookies cleared: the
  // provider's own session would otherwise skip its login page.
  provider.audience = "another-app";
  await page.context().clearCookies();
  await page.goto("/sign-in");
  await throughProvider(page, kim.id);
  await expect(page).toHaveURL(/\/sign-in\?/);
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Clutch could not verify who Acme SSO says you are");
  provider.audience = null;
  expect((await page.request.get("/api/me")).status()).toBe(401);

  // The provider is down: nobody is sent to a page that will not load.
  await provider.stop();
  try {
    await page.goto("/sign-in");
    await page.getByRole("button", { name: "Sign in with Acme SSO" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("Acme SSO cannot be reached right now");
    await expect(page).toHaveURL(/\/sign-in/);
  } finally {
    await provider.start();
  }
  // Back up: the same person signs in.
  await page.context().clearCookies();
  await page.goto("/sign-in");
  await throughProvider(page, kim.id);
  await expect(page).toHaveURL(`${APP}/`);
});

test("someone the provider no longer lets in is deactivated, and comes back when it lets them in again", async ({ browser }) => {
  const lou = person("Lou Byrne", []);
  const page = await signedOut(browser);
  await page.goto("/sign-in");
  await throughProvider(page, lou.id);
  await expect(page).toHaveURL(`${APP}/`);
  expect(await roleOf(page)).toBe("member");

  // They leave the company: the provider refuses their refresh token at the next check (every second here).
  provider.people.delete(lou.id);
  await expect.poll(async () => (await page.request.get("/api/me")).status(), { timeout: 20_000 }).toBe(401);
  const admin = await signedOut(browser);
  await admin.request.post("/api/auth/sign-in/email", { data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password }, headers: { origin: APP } });
  const people = (await (await admin.request.get("/api/people")).json()) as { people: { email: string; deactivated?: boolean }[] };
  expect(people.people.find((p) => p.email === lou.email)?.deactivated).toBe(true);

  // They come back: the provider lets them in, and so does Clutch.
  provider.people.set(lou.id, lou);
  await page.context().clearCookies();
  await page.goto("/sign-in");
  await throughProvider(page, lou.id);
  await expect(page).toHaveURL(`${APP}/`);
  expect(await roleOf(page)).toBe("member");
});
