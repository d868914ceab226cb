/**
 * Signing a script in (docs/identity.md): the admin a script's server was started with
 * (CLUTCH_ADMIN_EMAIL / CLUTCH_ADMIN_PASSWORD) signs in through better-auth's route, and the
 * session cookie is handed to `fetch` calls and to a Playwright browser context.
 */

/** The admin scripts start their throwaway servers with. */
export const SCRIPT_ADMIN = { email: "dana@clutch.local", password: "clutch-script-admin", name: "Dana Whitfield" } as const;

/** The server env that creates SCRIPT_ADMIN on first start. */
export const scriptAdminEnv = { CLUTCH_ADMIN_EMAIL: SCRIPT_ADMIN.email, CLUTCH_ADMIN_PASSWORD: SCRIPT_ADMIN.password, CLUTCH_ADMIN_NAME: SCRIPT_ADMIN.name };

export interface Session {
  /** `name=value; …` for a Cookie header. */
  header: string;
  /** The cookies, for Playwright's `context.addCookies`. */
  cookies: { name: string; value: string; url: string; secure?: boolean }[];
}

/** Sign in at `baseUrl` (e.g. http://localhost:3300). Throws with the server's answer when refused. */
export async function signIn(baseUrl: string, who: { email: string; password: string } = SCRIPT_ADMIN): Promise<Session> {
  const res = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email: who.email, password: who.password }),
  });
  if (!res.ok) throw new Error(`sign-in as ${who.email} failed: ${res.status} ${await res.text()}`);
  const pairs = res.headers.getSetCookie().map((c) => c.split(";")[0]!);
  return {
    header: pairs.join("; "),
    cookies: pairs.map((p) => {
      const i = p.indexOf("=");
      const name = p.slice(0, i);
      return { name, value: p.slice(i + 1), url: baseUrl, ...(name.startsWith("__Secure-") ? { secure: true } : {}) };
    }),
  };
}
