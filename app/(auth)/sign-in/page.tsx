/** `/sign-in?next=<path>`: email and password (better-auth's POST /api/auth/sign-in/email). A workspace with no account yet goes to /setup. */
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AccountForm } from "@/components/identity/account-form";
import { getClutch } from "@/server/instance";

export const metadata: Metadata = { title: "Sign in · Clutch" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  if (await getClutch().identity.needsSetup()) redirect("/setup");
  const { next } = await searchParams;
  return (
    <>
      <h1 className="mb-1 text-lg font-semibold">Sign in</h1>
      <p className="mb-5 text-sm text-fg-muted">Welcome back. New here? Ask an admin of this workspace for an invite link.</p>
      <AccountForm action="/api/auth/sign-in/email" withName={false} submit="Sign in" busy="Signing in…" next={next ?? "/"} />
    </>
  );
}
