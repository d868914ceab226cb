/**
 * The address a request came from (docs/deploy.md, "Behind a reverse proxy"), for sign-in's
 * limits (docs/identity.md, "Signing in"). It is the TCP peer (`req.socket.remoteAddress`)
 * unless that peer is a proxy the operator declared in CLUTCH_TRUSTED_PROXIES; then it is the
 * right-most X-Forwarded-For hop that is not a trusted proxy. Any client can send
 * X-Forwarded-For, so without a trusted proxy it is never read.
 *
 * The front door (server/http/front-door.ts) writes the result into CLIENT_ADDRESS_HEADER,
 * replacing whatever a client sent under that name, and the routes read it from there.
 */
import { BlockList, isIP } from "node:net";

/** Request header carrying the client's address (set by the front door, never trusted from outside). */
export const CLIENT_ADDRESS_HEADER = "x-clutch-client-address";

/** The parsed CLUTCH_TRUSTED_PROXIES: `entries` as written, `has(ip)` to test an address. */
export interface TrustedProxies {
  entries: string[];
  has(ip: string): boolean;
}

/** `::ffff:10.0.0.1` → `10.0.0.1`; `[::1]:443` → `::1`; `10.0.0.1:443` → `10.0.0.1`; else trimmed as is. */
export function normalizeAddress(raw: string): string {
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(":"));
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1]!;
  return a.toLowerCase();
}

/**
 * Parse CLUTCH_TRUSTED_PROXIES: comma-separated IPv4/IPv6 addresses and CIDRs
 * (`10.0.0.5, 10.1.0.0/16, fd00::/8`). Unset or empty: no proxy is trusted. Throws an Error
 * naming the first entry that is neither.
 */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const entries = (value ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const list = new BlockList();
  for (const entry of entries) {
    const [addr, prefix, extra] = entry.split("/");
    const ip = normalizeAddress(addr ?? "");
    const family = isIP(ip);
    const bits = family === 6 ? 128 : 32;
    if (!family || extra !== undefined || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= bits))) {
      throw new Error(`"${entry}" is not an IP address or a CIDR such as 10.0.0.0/8`);
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(prefix), type);
  }
  return {
    entries,
    has(raw: string) {
      const ip = normalizeAddress(raw);
      const family = isIP(ip);
      return family !== 0 && list.check(ip, family === 6 ? "ipv6" : "ipv4");
    },
  };
}

/**
 * The client's address: `remote` (the socket's peer) when it is not a trusted proxy, else the
 * right-most hop of `forwardedFor` (every X-Forwarded-For header, in order) that is not one.
 * When every hop is trusted, the left-most; a hop that is not an IP address ends the walk and is
 * the answer (at most 100 characters). Returns "unknown" when the socket has no peer address.
 */
export function clientAddress(remote: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  if (!remote) return "unknown";
  let address = normalizeAddress(remote);
  if (!trusted.has(address)) return address;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "")).split(",").map((h) => h.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    address = normalizeAddress(hops[i]!);
    if (!isIP(address)) return address.slice(0, 100);
    if (!trusted.has(address)) return address;
  }
  return address;
}
