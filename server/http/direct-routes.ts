/**
 * API routes served from the server's own `node:http` handler, beside Next.js: the same route
 * modules (app/api/**), whose wrapper authenticates, limits writes, validates and shapes errors
 * (app/api/_lib/route.ts), called with a Web `Request` made here, without Next's per-request
 * machinery (its request adaptation, tracing spans and web-stream responses took 18 % of the
 * server's CPU when agents post one event per request; docs/benchmarks.md "Where the HTTP
 * single-event time goes").
 *
 * Only the write path agents use at volume goes here (`POST /api/events`); every other request,
 * and every other method on these paths, goes to Next as before. The front door
 * (server/http/front-door.ts) has run first, so the client's address and the CSP are set.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { log } from "../log";

/** A route module's handler: a Web Request in, a Web Response out (it never throws: route() maps errors). */
export type WebHandler = (req: Request) => Promise<Response>;

/** `"<METHOD> <path>"` → its handler, e.g. `{ "POST /api/events": POST }`. */
export type DirectRoutes = Record<string, WebHandler>;

/**
 * A request listener for `routes`: answers a request whose method and path (query ignored) name
 * one of them and returns true; else returns false and leaves the request to the caller.
 */
export function directRoutes(routes: DirectRoutes): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const handler = routes[`${req.method} ${q === -1 ? url : url.slice(0, q)}`];
    if (!handler) return false;
    void serve(handler, req, res);
    return true;
  };
}

/** The Web Request for a Node request: its URL on this host, its headers, its body as a stream. */
function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

async function serve(handler: WebHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const response = await handler(webRequest(req));
    const body = Buffer.from(await response.arrayBuffer());
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) headers["set-cookie"] = cookies;
    headers["content-length"] = String(body.length);
    res.writeHead(response.status, headers);
    res.end(body);
  } catch (err) {
    // route() answers every error itself; this is a broken connection or a bug in the adapter.
    log.error({ err, url: req.url }, "direct route failed");
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify({ error: { code: "internal", message: "something went wrong on the server; nothing was stored" } }));
    } else res.destroy();
  }
}
