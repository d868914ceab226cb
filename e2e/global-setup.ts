/**
 * Signs the test server's admin in once (better-auth's POST /api/auth/sign-in/email) and keeps
 * the session cookie in ADMIN_STATE, which every test's browser context and `request` start with
 * (playwright.config.ts). The server was started with that admin (CLUTCH_ADMIN_*); on a database
 * that already has accounts, the admin must exist there with the same password.
 */
import { request } from "@playwright/test";
import { ADMIN_STATE, BASE_URL, E2E_ADMIN } from "../playwright.config";

export default async function globalSetup(): Promise<void> {
  const ctx = await request.newContext({ baseURL: BASE_URL });
  const res = await ctx.post("/api/auth/sign-in/email", { data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password }, headers: { origin: BASE_URL } });
  if (!res.ok()) throw new Error(`the e2e admin ${E2E_ADMIN.email} could not sign in (${res.status()}): ${await res.text()}`);
  await ctx.storageState({ path: ADMIN_STATE });
  await ctx.dispose();
}
