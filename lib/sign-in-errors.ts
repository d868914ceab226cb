/**
 * What the sign-in page says when a sign-in through the identity provider did not end signed in
 * (docs/identity.md "Single sign-on"): the callback sends the browser back to
 * `/sign-in?error=<code>&error_description=<text>`. Codes are better-auth's (its OAuth callback
 * and state checks), the provider's own (RFC 6749 §4.1.2.1, e.g. `access_denied`), or Clutch's
 * directory rules (server/auth/sso.ts: `domain_not_allowed`, `email_missing`,
 * `account_deactivated`), whose description is already written for a person and is shown as is.
 */

/** Clutch's refusals: their `error_description` is the message. */
const CLUTCH_CODES = new Set(["domain_not_allowed", "email_missing", "account_deactivated"]);

/**
 * The message for a failed sign-in through provider `label` (the button's text), from the
 * callback's `error` and `error_description` query parameters. Unknown codes get a general
 * message naming the code, so a person can pass it on to an admin.
 */
export function signInErrorMessage(code: string, description: string | undefined, label: string): string {
  if (CLUTCH_CODES.has(code) && description) return capitalize(description) + ".";
  switch (code) {
    case "state_mismatch":
    case "state_not_found":
    case "please_restart_the_process":
    case "invalid_callback_request":
    case "no_code":
      return `That sign-in with ${label} could not be matched to one started here (it may have been started in another tab, or taken too long). Start again with the button below.`;
    case "invalid_code":
      return `${label} did not accept the sign-in code (it may have expired, or ${label} could not be reached). Try again.`;
    case "unable_to_get_user_info":
    case "issuer_mismatch":
    case "issuer_missing":
    case "nonce_binding_missing":
      return `Clutch could not verify who ${label} says you are: its identity token was not for this workspace, or not valid. Ask your admin to check Clutch's single sign-on settings (client id and issuer).`;
    case "account_not_linked":
    case "email_not_verified":
      return `An account with your email already exists here, but ${label} did not confirm that the email is verified, so Clutch will not link them. Sign in with your password, or ask your admin.`;
    case "email_not_found":
      return `${label} did not share your email address, which Clutch needs. Ask your admin to release the email claim to Clutch.`;
    case "access_denied":
      return `${label} did not let you in${description ? `: ${description}` : ""}. If you think you should have access, ask your admin.`;
    case "oauth_provider_not_found":
      return `${label} cannot be reached right now. Try again in a minute, or ask your admin if it goes on.`;
    default:
      return `Signing in with ${label} did not work (${code}${description ? `: ${description}` : ""}). Try again, or ask your admin.`;
  }
}

const capitalize = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);
