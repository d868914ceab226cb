/**
 * `/join/<token>`: an invite link. Shows the role it grants and signs the person up (POST
 * /api/join/:token), or says why the link no longer works. With CLUTCH_PASSWORD_SIGN_IN=off people
 * join through the identity provider instead (docs/identity.md "Single sign-on").
 */
import type { Metadata } from "next";
import Link from "next/link";
import { AccountForm } from "@/components/identity/account-form";
import { SsoButton } from "@/components/identity/sso-button";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/auth";
import type { InviteSummary } from "@/server/auth/identity";
import { isClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";

export const metadata: Metadata = { title: "Join Clutch" };

const ROLE_TEXT = { admin: "an admin", member: "a member", guest: "a guest (you see the channels you are added to)" } as const;

/** The open invite behind `token`, or why the link does not work. */
async function inviteOf(token: string): Promise<{ invite: InviteSummary } | { problem: string }> {
  try {
    return { invite: await getClutch().identity.openInvite(token) };
  } catch (err) {
    if (!isClutchError(err)) throw err;
    return { problem: err.message };
  }
}

export default async function JoinPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const found = await inviteOf(token);
  if ("problem" in found) {
    return (
      <>
        <h1 className="mb-1 text-lg font-semibold">This invite link does not work</h1>
        <p className="mb-5 text-sm text-fg-muted" role="alert">
          {found.problem}
        </p>
        <Link href="/sign-in" className="text-sm font-medium text-accent hover:underline">
          Sign in instead
        </Link>
      </>
    );
  }
  const { invite } = found;
  const { identity } = getClutch();
  if (!identity.passwordSignIn && identity.sso) {
    const label = identity.sso.settings.label;
    return (
      <>
        <h1 className="mb-1 text-lg font-semibold">Join the workspace</h1>
        <p className="mb-5 text-sm text-fg-muted">This workspace signs people in through {label}: your account is made the first time you sign in there, with the role your groups at {label} give.</p>
        <SsoButton label={label} next="/" />
      </>
    );
  }
  const expires = new Date(invite.expires_at).toLocaleDateString("en-US", { month: "long", day: "numeric" });
  return (
    <>
      <h1 className="mb-1 text-lg font-semibold">Join the workspace</h1>
      <p className="mb-5 text-sm text-fg-muted">
        You are invited as {ROLE_TEXT[invite.role]}
        {invite.note ? ` (${invite.note})` : ""}. The link works until {expires}.
      </p>
      <AccountForm action={`/api/join/${encodeURIComponent(token)}`} withName submit="Create account" busy="Creating…" next="/" minPassword={MIN_PASSWORD_LENGTH} />
    </>
  );
}
