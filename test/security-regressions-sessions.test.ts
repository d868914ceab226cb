/**
 * Security regressions from the authorization drill (docs/identity.md "Live connections"): ending
 * a session ends the sockets that authenticated with it, at once, on another node too (the
 * sockets are served by a second Clutch on the same database; the sessions end on the first).
 * Each test failed before its fix, when such a socket kept receiving events long after:
 *
 * - signing out ends that session's socket, which is told why and receives nothing written after;
 *   the same person's other session (another browser) keeps receiving;
 * - changing the password with `revokeOtherSessions` ends the other sessions' sockets; the browser
 *   that changed it goes on with the new session its answer set;
 * - a session that expires ends its socket, while the person's other session keeps its own.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { RealtimeGateway } from "@/server/realtime/gateway";
import { setClutch } from "@/server/instance";
import type { AccessEnded, Ack, ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import * as authRoute from "@/app/api/auth/[...all]/route";
import { chat, testClutch, testPerson } from "./helpers";

const PASSWORD = "correct horse battery";
const ORIGIN = "http://localhost:3000";

// Node A (rt) signs people in and out; node B serves their sockets and learns of it from its tail.
// Both check the same signed cookies, so they share the deployment's secret (docs/identity.md).
const secretBefore = process.env.CLUTCH_AUTH_SECRET;
let rt: Clutch;
let nodeB: Clutch;
let server: http.Server;
let gateway: RealtimeGateway;
let url: string;
let db: pg.Client;

beforeAll(async () => {
  process.env.CLUTCH_AUTH_SECRET = `sessions-drill-${newId("task")}`;
  rt = await testClutch();
  setClutch(rt); // better-auth's route below is node A's
  nodeB = await testClutch();
  server = http.createServer();
  gateway = new RealtimeGateway(server, nodeB.store, nodeB.tail, nodeB.identity);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = new pg.Client({ connectionString: inject("databaseUrl") });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await gateway?.close();
  await nodeB?.stop();
  await rt?.stop();
  if (secretBefore === undefined) delete process.env.CLUTCH_AUTH_SECRET;
  else process.env.CLUTCH_AUTH_SECRET = secretBefore;
});

/** A `Cookie` header made of an answer's Set-Cookie headers. */
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

/** POST `path` of better-auth's route on node A, as a browser on the app's origin sends it. */
const authPost = (path: string, body: unknown, cookie?: string) =>
  authRoute.POST(
    new Request(`${ORIGIN}/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    }),
  );

/** A new session of `email` (a browser signing in): its cookie and its token. */
async function signIn(email: string, extra: Record<string, unknown> = {}): Promise<{ cookie: string; token: string }> {
  const res = await authPost("/sign-in/email", { email, password: PASSWORD, ...extra });
  expect(res.status).toBe(200);
  const { token } = (await res.json()) as { token: string };
  return { cookie: cookieOf(res), token };
}

type Client = Socket<ServerEvents, ClientEvents>;
/** A socket to node B that proves itself with `cookie`, as a browser's does. */
function client(cookie: string) {
  const socket: Client = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, extraHeaders: { cookie }, auth: { frames: true } });
  const received: StoredEvent[] = [];
  const closed: string[] = [];
  const ended: AccessEnded[] = [];
  const refused: string[] = [];
  socket.on("events", (evs) => received.push(...evs));
  socket.on("access.ended", (why) => ended.push(why));
  socket.on("disconnect", (reason) => closed.push(reason));
  socket.on("connect_error", (err) => refused.push(err.message));
  return { socket, received, closed, ended, refused, texts: () => received.map((e) => e.payload.text) };
}
const subscribe = (s: Client, sub: Parameters<ClientEvents["subscribe"]>[0]) => new Promise<Ack>((resolve) => s.emit("subscribe", sub, resolve));
const channel = async () => (await rt.store.createThread({ name: `sessions-${newId("thread").slice(-10).toLowerCase()}` }, { agent_id: "user:test" })).id;
const say = (thread: string, text: string) => rt.store.append(chat(text, { thread_id: thread, run_id: newId("run") }));
const settle = () => new Promise((r) => setTimeout(r, 600));

/** Two sockets in channel `open`, one per session (`first`, `second` cookies), both subscribed and past a first message. */
async function twoSockets(open: string, first: string, second: string) {
  const c1 = client(first);
  const c2 = client(second);
  expect(await subscribe(c1.socket, { thread_id: open })).toEqual({ ok: true });
  expect(await subscribe(c2.socket, { thread_id: open })).toEqual({ ok: true });
  await say(open, "before");
  await expect.poll(() => c1.texts()).toContain("before");
  await expect.poll(() => c2.texts()).toContain("before");
  return { c1, c2, close: () => [c1, c2].forEach((c) => c.socket.disconnect()) };
}

describe("ending a session ends its sockets, on every node", () => {
  it("signing out ends that session's socket, which is told why and gets nothing after; the person's other session keeps receiving", async () => {
    const open = await channel();
    const sam = await testPerson(rt, "member", "Sam");
    const laptop = await signIn(sam.person!.email);
    const phone = await signIn(sam.person!.email);
    const { c1, c2, close } = await twoSockets(open, laptop.cookie, phone.cookie);
    try {
      expect((await authPost("/sign-out", {}, laptop.cookie)).status).toBe(200);
      await say(open, "after sign-out");

      await expect.poll(() => c1.closed, { timeout: 5000 }).toEqual(["io server disconnect"]);
      expect(c1.ended).toEqual([{ code: "session_ended", message: "this session was signed out: sign in again" }]);
      await expect.poll(() => c2.texts()).toContain("after sign-out");
      await settle();
      expect(c1.texts()).not.toContain("after sign-out");
      expect(c2.socket.connected).toBe(true);
      expect(c2.ended).toEqual([]);

      // The signed-out cookie opens no new socket either.
      const again = client(laptop.cookie);
      try {
        await expect.poll(() => again.refused, { timeout: 5000 }).toEqual([expect.stringContaining("unauthenticated")]);
      } finally {
        again.socket.disconnect();
      }
    } finally {
      close();
    }
  });

  it("a password change with revokeOtherSessions ends the other sessions' sockets; the browser that changed it goes on with its new session", async () => {
    const open = await channel();
    const kim = await testPerson(rt, "member", "Kim");
    const laptop = await signIn(kim.person!.email);
    const phone = await signIn(kim.person!.email);
    const { c1, c2, close } = await twoSockets(open, laptop.cookie, phone.cookie);
    try {
      const changed = await authPost("/change-password", { currentPassword: PASSWORD, newPassword: "a new long password", revokeOtherSessions: true }, phone.cookie);
      expect(changed.status).toBe(200);
      await say(open, "after the password change");

      // The laptop's session ended: its socket is cut, told why, and gets nothing written after.
      await expect.poll(() => c1.closed, { timeout: 5000 }).toEqual(["io server disconnect"]);
      expect(c1.ended).toEqual([{ code: "session_ended", message: "the password was changed and this session signed out: sign in again" }]);
      await settle();
      expect(c1.texts()).not.toContain("after the password change");

      // better-auth replaced the phone's session with a new one (the answer's cookie): the old
      // socket ends too, and the phone connects again with its new cookie, from where it was.
      await expect.poll(() => c2.closed, { timeout: 5000 }).toEqual(["io server disconnect"]);
      const lastSeen = c2.received.at(-1)!.seq;
      const phoneAgain = client(cookieOf(changed));
      try {
        expect(await subscribe(phoneAgain.socket, { thread_id: open, after: lastSeen })).toEqual({ ok: true });
        await expect.poll(() => phoneAgain.texts()).toContain("after the password change");
        expect(phoneAgain.socket.connected).toBe(true);
      } finally {
        phoneAgain.socket.disconnect();
      }
    } finally {
      close();
    }
  });

  it("a session that expires ends its socket; the person's other session keeps receiving", async () => {
    const open = await channel();
    const lou = await testPerson(rt, "member", "Lou");
    // Not remembered: better-auth does not renew such a session when it is used, so it expires.
    const kiosk = await signIn(lou.person!.email, { rememberMe: false });
    const laptop = await signIn(lou.person!.email);
    await db.query(`UPDATE sessions SET expires_at = now() + interval '2 seconds' WHERE token = $1`, [kiosk.token]);
    const { c1, c2, close } = await twoSockets(open, kiosk.cookie, laptop.cookie);
    try {
      await expect.poll(() => c1.closed, { timeout: 6000 }).toEqual(["io server disconnect"]);
      expect(c1.ended).toEqual([{ code: "session_ended", message: "this session expired: sign in again" }]);
      await say(open, "after expiry");
      await expect.poll(() => c2.texts()).toContain("after expiry");
      await settle();
      expect(c1.texts()).not.toContain("after expiry");
      expect(c2.socket.connected).toBe(true);
    } finally {
      close();
    }
  });
});
