/**
 * What every HTTP request meets before Next.js: a URL that cannot be decoded (`%ZZ`, an overlong
 * UTF-8 sequence like `%C0%AE`) or that carries a NUL (`%00`) in its path or query is refused with
 * a 400 in the API's error shape, instead of reaching Next (whose answer is a text/plain 500) or
 * the database (which cannot store a NUL). Every response carries a Content-Security-Policy that
 * lets images load only from the app's origin, `data:` and the hosts in CLUTCH_IMAGE_HOSTS
 * (docs/limits.md, "Message images"). The client's address (server/http/client-address.ts) is
 * put in CLIENT_ADDRESS_HEADER for the routes, replacing any value a client sent.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { CLIENT_ADDRESS_HEADER, clientAddress, parseTrustedProxies, type TrustedProxies } from "./client-address";

/** The reason `url` (a request target such as `/api/x?y=z`) cannot be served, or null. */
export function unreadableUrl(url: string): string | null {
  const q = url.indexOf("?");
  const parts: [string, string][] = [["path", q === -1 ? url : url.slice(0, q)]];
  if (q !== -1) for (const pair of url.slice(q + 1).split("&")) parts.push(["query", pair.replace(/\+/g, " ")]);
  for (const [where, raw] of parts) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return `the ${where} has an invalid percent-encoding (${raw.slice(0, 80)}); encode it with encodeURIComponent`;
    }
    if (decoded.includes("\u0000")) return `the ${where} contains a NUL character (%00), which no id or name can hold`;
  }
  return null;
}

/** `img-src` of the Content-Security-Policy for the configured extra image hosts (https only). */
export function contentSecurityPolicy(imageHosts: readonly string[]): string {
  return ["img-src 'self' data: blob:", ...imageHosts.map((h) => `https://${h}`)].join(" ");
}

/** Request header carrying the path and query the browser asked for (set here, never trusted from outside). */
export const PATH_HEADER = "x-clutch-path";

const NO_PROXIES = parseTrustedProxies(undefined);

/**
 * Apply the front door to one request: set the CSP header, note the client's address (the
 * socket's peer, or behind `trustedProxies` the right-most untrusted X-Forwarded-For hop), and
 * answer a 400 for an unreadable URL. Returns true when the request was answered here (the
 * caller must not pass it on).
 */
export function frontDoor(req: IncomingMessage, res: ServerResponse, csp: string, trustedProxies: TrustedProxies = NO_PROXIES): boolean {
  res.setHeader("content-security-policy", csp);
  req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustedProxies);
  // The page asked for, so the sign-in door can send a person back to it (app/(app)/layout.tsx).
  req.headers[PATH_HEADER] = req.url ?? "/";
  const problem = unreadableUrl(req.url ?? "/");
  if (!problem) return false;
  res.writeHead(400, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify({ error: { code: "invalid_url", message: problem } }));
  return true;
}
