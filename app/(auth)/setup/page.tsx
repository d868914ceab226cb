/** `/setup`: the first visit to a new workspace; the account created here is its admin (POST /api/setup). */
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AccountForm } from "@/components/identity/account-form";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/auth";
import { getClutch } from "@/server/instance";

export const metadata: Metadata = { title: "Set up Clutch" };

export default async function SetupPage() {
  const { identity } = getClutch();
  // With passwords off, the provider's first person is the admin (docs/identity.md "Single sign-on").
  if (!identity.passwordSignIn || !(await identity.needsSetup())) redirect("/sign-in");
  return (
    <>
      <h1 className="mb-1 text-lg font-semibold">Set up your workspace</h1>
      <p className="mb-5 text-sm text-fg-muted">Create the first account. It becomes the workspace&apos;s admin: you invite the rest of your team.</p>
      <AccountForm action="/api/setup" withName submit="Create admin account" busy="Creating…" next="/" minPassword={MIN_PASSWORD_LENGTH} />
    </>
  );
}
