/**
 * Which page origins may sign in (docs/identity.md, "Signing in"; docs/deploy.md). A browser
 * sends `Origin` with every POST to `/api/auth/*`; better-auth refuses one it does not trust.
 *
 * - With CLUTCH_PUBLIC_URL set, only its origin is trusted.
 * - Without it, the address the request came to (its Host header: `127.0.0.1:3000`,
 *   `localhost:3000`, a host name or IP on the LAN) over http, when that address is on the
 *   server's own port: so the app works at whichever address people open it. Behind a proxy the
 *   Host is the proxy's address (another port, or https): then CLUTCH_PUBLIC_URL must be set.
 */

/** Where the server is and how it is reached: CLUTCH_PUBLIC_URL, and its own port (unset: any). */
export interface OriginSettings {
  publicUrl?: string;
  port?: number;
}

/** The host (and port) a request came to: its Host header, else its URL's. */
function hostOf(request: Request): string | null {
  const host = request.headers.get("host");
  if (host) return host;
  try {
    return new URL(request.url).host;
  } catch {
    return null;
  }
}

/**
 * The origins trusted for `request` (no request: CLUTCH_PUBLIC_URL's, or none). Origins are
 * `scheme://host[:port]` as a browser writes them.
 */
export function trustedOrigins(request: Request | undefined, s: OriginSettings): string[] {
  if (s.publicUrl) return [new URL(s.publicUrl).origin];
  const host = request && hostOf(request);
  if (!host) return [];
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return [];
  }
  const port = Number(url.port || 80);
  return s.port === undefined || port === s.port ? [url.origin] : [];
}

/**
 * Why `request`'s Origin may not sign in, as a message naming the setting to change, or null when
 * it may (or sends no Origin: scripts and curl, which better-auth lets through).
 */
export function originProblem(request: Request, s: OriginSettings): string | null {
  const origin = request.headers.get("origin");
  if (!origin) return null;
  const trusted = trustedOrigins(request, s);
  if (trusted.includes(origin)) return null;
  if (s.publicUrl) {
    return `this page's address (${origin}) is not Clutch's public URL (CLUTCH_PUBLIC_URL=${s.publicUrl}): open Clutch at ${trusted[0]}, or set CLUTCH_PUBLIC_URL to the address people open`;
  }
  return `this sign-in comes from a page at ${origin}, but the request came to ${hostOf(request) ?? "another address"}; without CLUTCH_PUBLIC_URL Clutch trusts only the address it is reached at${s.port ? ` on its port ${s.port}` : ""}. If people open Clutch at ${origin} (through a proxy, say), set CLUTCH_PUBLIC_URL=${origin}`;
}
