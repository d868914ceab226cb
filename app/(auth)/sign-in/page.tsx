/**
 * `/sign-in?next=<path>`: "Sign in with <provider>" first when single sign-on is configured
 * (docs/identity.md "Single sign-on"), then email and password (better-auth's POST
 * /api/auth/sign-in/email) unless CLUTCH_PASSWORD_SIGN_IN=off. A sign-in through the provider
 * that failed comes back here with `?error=<code>&error_description=<text>`, said above the
 * button (lib/sign-in-errors.ts). A workspace with no account yet goes to /setup, unless only
 * the provider signs people in (its first person is then the admin).
 */
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AccountForm } from "@/components/identity/account-form";
import { SsoButton } from "@/components/identity/sso-button";
import { signInErrorMessage } from "@/lib/sign-in-errors";
import { getClutch } from "@/server/instance";

export const metadata: Metadata = { title: "Sign in · Clutch" };

type Search = { next?: string; error?: string; error_description?: string };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { identity } = getClutch();
  if (identity.passwordSignIn && (await identity.needsSetup())) redirect("/setup");
  const { next, error, error_description } = await searchParams;
  const label = identity.sso?.settings.label;
  const problem = label && error ? signInErrorMessage(error, error_description, label) : null;
  return (
    <>
      <h1 className="mb-1 text-lg font-semibold">Sign in</h1>
      <p className="mb-5 text-sm text-fg-muted">
        {label ? `Welcome back. Use your ${label} account${identity.passwordSignIn ? ", or your email and password" : ""}.` : "Welcome back. New here? Ask an admin of this workspace for an invite link."}
      </p>
      {problem && (
        <p role="alert" className="mb-4 rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger">
          {problem}
        </p>
      )}
      {label && <SsoButton label={label} next={next ?? "/"} />}
      {label && identity.passwordSignIn && (
        <div className="my-4 flex items-center gap-3 text-xs text-fg-muted" aria-hidden="true">
          <span className="h-px flex-1 bg-line" />
          or
          <span className="h-px flex-1 bg-line" />
        </div>
      )}
      {identity.passwordSignIn && <AccountForm action="/api/auth/sign-in/email" withName={false} submit="Sign in" busy="Signing in…" next={next ?? "/"} primary={!label} />}
    </>
  );
}
