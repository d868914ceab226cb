/**
 * The HTTP server's time limits (docs/limits.md, "The server"): a request's headers must arrive
 * within `headersMs` (default 10 s) and the whole request, body included, within `requestMs`
 * (default 60 s) of its first byte; past either, Node answers `408 Request Timeout` and closes
 * the connection. Once a request has been received, answering it may take as long as it needs
 * (A2A streams, Socket.IO long-polling).
 *
 * Node enforces both limits from a timer that checks every connection every
 * `connectionsCheckingInterval` ms (30 s by default), so a limit of 10 s closed a slow client
 * after up to 40 s. The interval here is a tenth of the headers limit, at most 1 s, so each
 * limit holds to within that.
 */
import { createServer, type Server, type ServerOptions } from "node:http";

/** The documented limits (docs/limits.md), in ms. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface HttpTimeouts {
  /** Time for a request's headers (ms), from its first byte. */
  headersMs: number;
  /** Time for the whole request, headers and body (ms), from its first byte; at least `headersMs`. */
  requestMs: number;
}

/**
 * Node's server options that enforce `t`. Throws a RangeError when a limit is not a positive
 * number of ms or `requestMs < headersMs` (Node itself refuses that).
 */
export function httpServerOptions(t: HttpTimeouts = { headersMs: DEFAULT_HEADERS_TIMEOUT_MS, requestMs: DEFAULT_REQUEST_TIMEOUT_MS }): ServerOptions {
  if (!(t.headersMs > 0) || !(t.requestMs > 0)) throw new RangeError("the headers and request time limits must be positive numbers of ms");
  if (t.requestMs < t.headersMs) throw new RangeError(`the request time limit (${t.requestMs} ms) must be at least the headers limit (${t.headersMs} ms)`);
  return {
    headersTimeout: Math.round(t.headersMs),
    requestTimeout: Math.round(t.requestMs),
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.round(t.headersMs / 10))),
  };
}

/** A `node:http` server with the limits of `t` (no request listener: add one with `on("request")`). */
export function createClutchHttpServer(t?: HttpTimeouts): Server {
  return createServer(httpServerOptions(t));
}
