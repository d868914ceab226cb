/**
 * The server's time limits hold (docs/limits.md, "The server"): a client that trickles its
 * headers, trickles its body, or declares a Content-Length it never sends is answered
 * `408 Request Timeout` and disconnected within about a second of the limit, not after Node's
 * default 30 s check interval. The server is the one server.ts makes (createClutchHttpServer),
 * with short limits so the test takes seconds.
 */
import net from "node:net";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/server/config";
import { createClutchHttpServer, httpServerOptions } from "@/server/http/timeouts";

/** An environment of just `vars` (NODE_ENV test). */
const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...vars });
const LIMITS = { headersMs: 1_000, requestMs: 2_500 };
/** How far past a limit the connection may still be open. */
const SLACK_MS = 1_200;

let server: Server;
let port: number;
beforeAll(async () => {
  server = createClutchHttpServer(LIMITS);
  server.on("request", (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => res.end(`got ${Buffer.concat(chunks).length} bytes`));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/**
 * Open a raw connection, write `first`, then `drip` every 200 ms until the server closes it.
 * Resolves with what the server sent and how long the connection lived (ms).
 */
function trickle(first: string, drip: string | null): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (answer += d));
    socket.on("error", () => {}); // a write racing the close: the close below still reports
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ ms: Date.now() - started, answer });
    });
    socket.on("connect", () => {
      socket.write(first);
      if (drip !== null) timer = setInterval(() => socket.writable && socket.write(drip), 200);
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error("the server kept the connection open for 20 s"));
    }, 20_000).unref();
  });
}

describe("HTTP time limits", () => {
  it("serves an ordinary request", async () => {
    const { answer } = await trickle("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", null);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain("got 5 bytes");
  });

  it("closes a connection whose headers trickle in, at the headers limit", async () => {
    const { ms, answer } = await trickle("GET / HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(LIMITS.headersMs - 100);
    expect(ms).toBeLessThan(LIMITS.headersMs + SLACK_MS);
  });

  it("closes a connection whose body trickles in, at the request limit", async () => {
    const { ms, answer } = await trickle("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n", "x");
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(LIMITS.requestMs - 100);
    expect(ms).toBeLessThan(LIMITS.requestMs + SLACK_MS);
  });

  it("answers a request whose Content-Length is a lie, at the request limit", async () => {
    const { ms, answer } = await trickle("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b", null);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(LIMITS.requestMs - 100);
    expect(ms).toBeLessThan(LIMITS.requestMs + SLACK_MS);
  });

  it("checks connections often enough for the documented limits to hold within a second", () => {
    const defaults = httpServerOptions();
    expect(defaults).toMatchObject({ headersTimeout: 10_000, requestTimeout: 60_000 });
    expect(defaults.connectionsCheckingInterval).toBeLessThanOrEqual(1_000);
    expect(() => httpServerOptions({ headersMs: 5_000, requestMs: 1_000 })).toThrow(/at least the headers limit/);
  });

  it("the limits come from CLUTCH_HEADERS_TIMEOUT_SEC and CLUTCH_REQUEST_TIMEOUT_SEC", () => {
    expect(loadConfig(env({})).timeouts).toEqual({ headersMs: 10_000, requestMs: 60_000 });
    expect(loadConfig(env({ CLUTCH_HEADERS_TIMEOUT_SEC: "2", CLUTCH_REQUEST_TIMEOUT_SEC: "5.5" })).timeouts).toEqual({ headersMs: 2_000, requestMs: 5_500 });
    expect(() => loadConfig(env({ CLUTCH_HEADERS_TIMEOUT_SEC: "30", CLUTCH_REQUEST_TIMEOUT_SEC: "10" }))).toThrow(/CLUTCH_REQUEST_TIMEOUT_SEC must be at least CLUTCH_HEADERS_TIMEOUT_SEC/);
  });
});
