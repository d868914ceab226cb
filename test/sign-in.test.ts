/**
 * Signing in (docs/identity.md, "Signing in"; docs/limits.md) against real PostgreSQL:
 * - password guessing is limited per account and per client address, with a back-off and then a
 *   lock, whatever X-Forwarded-For a client sends (the address is the socket's peer unless it is
 *   a proxy named in CLUTCH_TRUSTED_PROXIES); an admin sees a locked account in Admin → People
 *   (GET /api/people) and unlocks it;
 * - a page opened at http://127.0.0.1:<port> signs in as well as one at localhost; an origin that
 *   is not the address the request came to is refused with a message naming CLUTCH_PUBLIC_URL.
 *
 * The limits here are shorter than the documented ones, so the test takes seconds.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { CLIENT_ADDRESS_HEADER, clientAddress, parseTrustedProxies } from "@/server/http/client-address";
import { frontDoor } from "@/server/http/front-door";
import { loadConfig } from "@/server/config";
import { originProblem, trustedOrigins } from "@/server/auth/origins";
import { SYSTEM } from "@/server/auth/principal";
import * as authRoute from "@/app/api/auth/[...all]/route";
import * as peopleRoute from "@/app/api/people/route";
import * as unlockRoute from "@/app/api/people/[user_id]/sign-in-lock/route";
import { requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";

/** An environment of just `vars` (NODE_ENV test). */
const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...vars });
const PORT = 3000;
const BACKOFF_MS = 1_500;
const POLICY = {
  windowMs: 15 * 60_000,
  lockMs: 60_000,
  backoffMs: BACKOFF_MS,
  maxBackoffMs: BACKOFF_MS,
  account: { backoffAfter: 3, lockAfter: 5 },
  address: { backoffAfter: 6, lockAfter: 8 },
};
const PASSWORD = "correct horse battery";

let rt: Clutch;
let admin: TestPrincipal;
let member: TestPrincipal;
let http: Server;
let base: string;
beforeAll(async () => {
  rt = await testClutch({ port: PORT, signInPolicy: POLICY });
  admin = await testPerson(rt, "admin", "Ada Admin");
  member = await testPerson(rt, "member", "Mo Member");
  // The front door and the sign-in route over a real socket, as server.ts wires them.
  http = createServer((req, res) => {
    if (frontDoor(req, res, "img-src 'self'")) return;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const answer = await authRoute.POST(new Request(`http://localhost:${PORT}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }));
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => http.close(r));
  await rt.stop();
});

/** A new person who can sign in with PASSWORD; returns their id and email. */
async function newPerson(name = "Sam"): Promise<{ id: string; email: string }> {
  const { token } = await rt.identity.invite(SYSTEM, "member");
  const email = `${name.toLowerCase()}-${newId("user").slice(-10).toLowerCase()}@test.local`;
  const { person } = await rt.identity.acceptInvite(token, { name, email, password: PASSWORD });
  return { id: person.id, email };
}

/** POST /api/auth/sign-in/email straight to the route, from client `address`. */
function signIn(email: string, password: string, address: string, headers: Record<string, string> = {}): Promise<Response> {
  return authRoute.POST(
    new Request(`http://localhost:${PORT}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: `http://localhost:${PORT}`, [CLIENT_ADDRESS_HEADER]: address, ...headers },
      body: JSON.stringify({ email, password }),
    }),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;
/** A documentation address of its own per call (TEST-NET-2). */
let nextHost = 1;
const freshAddress = () => `198.51.100.${nextHost++}`;

describe("password guessing", () => {
  it("a new X-Forwarded-For per request does not escape the limit: after 3 failures the account backs off (429)", async () => {
    const { email } = await newPerson("Xff");
    const statuses: number[] = [];
    let backedOff: Response | undefined;
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${base}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${i + 1}`, [CLIENT_ADDRESS_HEADER]: `192.0.2.${i + 1}` },
        body: JSON.stringify({ email, password: `wrong password ${i}` }),
      });
      statuses.push(res.status);
      if (res.status === 429) backedOff ??= res;
      else await res.arrayBuffer();
    }
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 429]);
    expect(statuses.filter((s) => s === 401).length).toBeLessThan(15);
    expect(Number(backedOff!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await errorOf(backedOff!)).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/this account/) });
  });

  it("the account locks after 5 failures from any addresses; a correct password is refused too until an admin unlocks it", async () => {
    const { id, email } = await newPerson("Lock");
    for (let i = 0; i < POLICY.account.lockAfter; i++) {
      if (i >= POLICY.account.backoffAfter) await sleep(BACKOFF_MS + 100);
      expect((await signIn(email, "not the password", freshAddress())).status).toBe(401);
    }
    const locked = await signIn(email, PASSWORD, freshAddress());
    expect(locked.status).toBe(429);
    expect(await errorOf(locked)).toEqual({ code: "sign_in_locked", message: expect.stringMatching(/locked for \d+ s after 5 failed attempts; an admin can unlock it/) });
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(50);

    // Admin → People shows the lock to admins only.
    const listed = (await (await peopleRoute.GET(requestAs(admin, "http://t/api/people"))).json()) as { people: { id: string; sign_in_lock?: { failures: number; locked_until: string } }[] };
    const row = listed.people.find((p) => p.id === id)!;
    expect(row.sign_in_lock?.failures).toBe(5);
    expect(Date.parse(row.sign_in_lock!.locked_until)).toBeGreaterThan(Date.now());
    const asMember = (await (await peopleRoute.GET(requestAs(member, "http://t/api/people"))).json()) as { people: Record<string, unknown>[] };
    expect(asMember.people.find((p) => p.id === id)).not.toHaveProperty("sign_in_lock");

    // Only an admin may unlock; then the right password works at once.
    const params = { params: Promise.resolve({ user_id: id }) };
    expect((await unlockRoute.DELETE(requestAs(member, `http://t/api/people/${id}/sign-in-lock`, { method: "DELETE" }), params)).status).toBe(403);
    const unlocked = await unlockRoute.DELETE(requestAs(admin, `http://t/api/people/${id}/sign-in-lock`, { method: "DELETE" }), { params: Promise.resolve({ user_id: id }) });
    expect(unlocked.status).toBe(200);
    expect((await signIn(email, PASSWORD, freshAddress())).status).toBe(200);
    const after = (await (await peopleRoute.GET(requestAs(admin, "http://t/api/people"))).json()) as { people: { id: string; sign_in_lock?: unknown }[] };
    expect(after.people.find((p) => p.id === id)?.sign_in_lock).toBeUndefined();
  });

  it("one address guessing across many accounts backs off and then locks, while other addresses sign in", async () => {
    const address = freshAddress();
    const { email } = await newPerson("Bystander");
    for (let i = 0; i < POLICY.address.lockAfter; i++) {
      if (i >= POLICY.address.backoffAfter) await sleep(BACKOFF_MS + 100);
      expect((await signIn(`nobody-${i}-${newId("user").slice(-6).toLowerCase()}@test.local`, "a guessed password", address)).status).toBe(401);
    }
    const refused = await signIn(email, PASSWORD, address);
    expect(refused.status).toBe(429);
    expect(await errorOf(refused)).toMatchObject({ code: "sign_in_locked", message: expect.stringMatching(/your address/) });
    expect((await signIn(email, PASSWORD, freshAddress())).status).toBe(200);
  });

  it("a burst of parallel guesses meets the limit too: each attempt is counted before its password is checked", async () => {
    const { email } = await newPerson("Burst");
    const statuses = (await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(email, `parallel guess ${i}`, freshAddress())))).map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBe(POLICY.account.backoffAfter);
    expect(statuses.filter((s) => s === 429).length).toBe(20 - POLICY.account.backoffAfter);
  });

  it("a successful sign-in starts the account's count again", async () => {
    const { email } = await newPerson("Typo");
    const address = freshAddress();
    expect((await signIn(email, "typo 1", address)).status).toBe(401);
    expect((await signIn(email, "typo 2", address)).status).toBe(401);
    expect((await signIn(email, PASSWORD, address)).status).toBe(200);
    for (const p of ["typo 3", "typo 4", "typo 5"]) expect((await signIn(email, p, address)).status).toBe(401);
  });

  it("a body that is not JSON with an email is refused before any password is checked", async () => {
    const form = await authRoute.POST(
      new Request(`http://localhost:${PORT}/api/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin: `http://localhost:${PORT}` }, body: "email=a%40b.c&password=x" }),
    );
    expect(form.status).toBe(400);
    expect((await errorOf(form)).code).toBe("invalid_body");
  });
});

describe("the client's address", () => {
  it("is the socket's peer, whatever X-Forwarded-For or our own header a client sends", () => {
    const none = parseTrustedProxies(undefined);
    expect(clientAddress("::ffff:203.0.113.9", "1.2.3.4", none)).toBe("203.0.113.9");
    const req = { url: "/api/auth/sign-in/email", headers: { "x-forwarded-for": "1.2.3.4", [CLIENT_ADDRESS_HEADER]: "9.9.9.9" }, socket: { remoteAddress: "203.0.113.9" } };
    const res = { setHeader: () => {} };
    expect(frontDoor(req as never, res as never, "")).toBe(false);
    expect(req.headers[CLIENT_ADDRESS_HEADER]).toBe("203.0.113.9");
  });

  it("behind a trusted proxy is the right-most X-Forwarded-For hop that is not a trusted proxy", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8, 192.0.2.1, fd00::/8");
    expect(clientAddress("10.1.2.3", "6.6.6.6, 198.51.100.7, 10.0.0.3", trusted)).toBe("198.51.100.7");
    expect(clientAddress("192.0.2.1", ["6.6.6.6", "198.51.100.7:5555"], trusted)).toBe("198.51.100.7");
    expect(clientAddress("fd00::1", "[2001:db8::5]:443", trusted)).toBe("2001:db8::5");
    expect(clientAddress("10.1.2.3", undefined, trusted)).toBe("10.1.2.3");
    expect(clientAddress("203.0.113.9", "6.6.6.6", trusted)).toBe("203.0.113.9");
    expect(() => parseTrustedProxies("10.0.0.0/8, proxy.local")).toThrow(/"proxy.local" is not an IP address or a CIDR/);
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/not an IP address or a CIDR/);
  });

  it("CLUTCH_TRUSTED_PROXIES is read at start; a bad entry stops the server naming it", () => {
    expect(loadConfig(env({ CLUTCH_TRUSTED_PROXIES: "10.0.0.5, 10.1.0.0/16" })).trustedProxies.has("10.1.200.3")).toBe(true);
    expect(loadConfig(env({})).trustedProxies.entries).toEqual([]);
    expect(() => loadConfig(env({ CLUTCH_TRUSTED_PROXIES: "10.0.0.5, my-proxy" }))).toThrow(/CLUTCH_TRUSTED_PROXIES: "my-proxy" is not an IP address/);
  });
});

describe("trusted origins", () => {
  const signInFrom = (origin: string, host: string) => signIn(member.person!.email, PASSWORD, freshAddress(), { origin, host });

  it("a page at http://127.0.0.1:<port> signs in, as one at localhost does", async () => {
    // Next hands the route a URL on localhost whatever address the browser used; the Host header says which.
    expect((await signInFrom(`http://127.0.0.1:${PORT}`, `127.0.0.1:${PORT}`)).status).toBe(200);
    expect((await signInFrom(`http://localhost:${PORT}`, `localhost:${PORT}`)).status).toBe(200);
    expect((await signInFrom(`http://clutch-box.lan:${PORT}`, `clutch-box.lan:${PORT}`)).status).toBe(200);
  });

  it("another origin, or an address on another port (a proxy), is refused naming CLUTCH_PUBLIC_URL", async () => {
    const other = await signInFrom("http://evil.example", `127.0.0.1:${PORT}`);
    expect(other.status).toBe(403);
    expect(await errorOf(other)).toEqual({ code: "invalid_origin", message: expect.stringMatching(/set CLUTCH_PUBLIC_URL/) });
    const proxied = await signInFrom("https://clutch.example.com", "clutch.example.com");
    expect(proxied.status).toBe(403);
    expect((await errorOf(proxied)).message).toMatch(/CLUTCH_PUBLIC_URL=https:\/\/clutch\.example\.com/);
  });

  it("with CLUTCH_PUBLIC_URL, only its origin", () => {
    const req = (origin: string) => new Request("http://localhost:3000/api/auth/sign-in/email", { method: "POST", headers: { origin, host: "127.0.0.1:3000" } });
    const s = { publicUrl: "https://clutch.example.com/", port: 3000 };
    expect(trustedOrigins(undefined, s)).toEqual(["https://clutch.example.com"]);
    expect(originProblem(req("https://clutch.example.com"), s)).toBeNull();
    expect(originProblem(req("http://127.0.0.1:3000"), s)).toMatch(/CLUTCH_PUBLIC_URL=https:\/\/clutch\.example\.com/);
  });
});
