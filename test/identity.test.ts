/**
 * Identity against real PostgreSQL (docs/identity.md): first-run setup, sign-in with better-auth's
 * route and its session cookie, invites (working for CLUTCH_INVITE_TTL_HOURS), API keys (shown once,
 * revocable), and that every write is attributed to its principal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clutch } from "@/server/clutch";
import * as authRoute from "@/app/api/auth/[...all]/route";
import * as meRoute from "@/app/api/me/route";
import * as invitesRoute from "@/app/api/invites/route";
import * as joinRoute from "@/app/api/join/[token]/route";
import * as keysRoute from "@/app/api/keys/route";
import * as keyRoute from "@/app/api/keys/[key_id]/route";
import * as eventsRoute from "@/app/api/events/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import { chat, newThread, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { newId } from "@/lib/protocol";
import { loadConfig } from "@/server/config";
import { DEFAULT_INVITE_TTL_HOURS } from "@/server/auth/identity";
import { SYSTEM } from "@/server/auth/principal";

let rt: Clutch;
let admin: TestPrincipal;
beforeAll(async () => {
  rt = await testClutch();
  admin = await testPerson(rt, "admin", "Ada Admin");
});
afterAll(() => rt.stop());

const params = <T>(p: T) => ({ params: Promise.resolve(p) });
const jsonBody = (body: unknown, headers: Record<string, string> = {}) => ({ method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("people", () => {
  it("an invite link signs a person up with its role; they sign in with email and password and the cookie names them", async () => {
    const created = await invitesRoute.POST(requestAs(admin, "http://t/api/invites", jsonBody({ role: "member", note: "for Lee" })));
    expect(created.status).toBe(201);
    const { token, path } = (await created.json()) as { token: string; path: string };
    expect(path).toBe(`/join/${token}`);

    const peek = await joinRoute.GET(new Request(`http://t/api/join/${token}`), params({ token }));
    expect(((await peek.json()) as { invite: { role: string } }).invite.role).toBe("member");

    const email = `lee-${newId("user").slice(-8).toLowerCase()}@test.local`;
    // A name of this test's own: names people see are unique, and test files share the database.
    const name = `Lee ${newId("user").slice(-6).toLowerCase()}`;
    const joined = await joinRoute.POST(new Request(`http://t/api/join/${token}`, jsonBody({ name, email, password: "a long enough password" })), params({ token }));
    expect(joined.status).toBe(201);
    expect(joined.headers.getSetCookie().some((c) => /HttpOnly/i.test(c))).toBe(true);

    const again = await joinRoute.POST(new Request(`http://t/api/join/${token}`, jsonBody({ name: "Eve", email: `x${email}`, password: "a long enough password" })), params({ token }));
    expect(again.status).toBe(410);

    const signIn = await authRoute.POST(new Request("http://localhost:3000/api/auth/sign-in/email", jsonBody({ email, password: "a long enough password" }, { origin: "http://localhost:3000" })));
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const me = await meRoute.GET(new Request("http://t/api/me", { headers: { cookie } }));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { principal: { name: string; role: string } }).principal).toMatchObject({ name, role: "member" });

    const wrong = await authRoute.POST(new Request("http://localhost:3000/api/auth/sign-in/email", jsonBody({ email, password: "not the password" }, { origin: "http://localhost:3000" })));
    expect(wrong.status).toBe(401);
  });

  it("public sign-up is closed, and nobody is anyone without credentials", async () => {
    const res = await authRoute.POST(new Request("http://localhost:3000/api/auth/sign-up/email", jsonBody({ name: "M", email: "m@test.local", password: "a long enough password" })));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invite_only");
    const me = await meRoute.GET(new Request("http://t/api/me"));
    expect(me.status).toBe(401);
    expect(await me.json()).toEqual({ error: { code: "unauthenticated", message: expect.stringMatching(/sign in/) } });
  });
});

describe("API keys", () => {
  it("a personal key is shown once, works as Bearer, and stops working once revoked", async () => {
    const res = await keysRoute.POST(requestAs(admin, "http://t/api/keys", jsonBody({ name: "my script" })));
    expect(res.status).toBe(201);
    const { id, key } = (await res.json()) as { id: string; key: string };
    const mine: TestPrincipal = { key, agent_id: admin.agent_id, headers: { authorization: `Bearer ${key}` } };
    expect((await meRoute.GET(requestAs(mine, "http://t/api/me"))).status).toBe(200);
    const listed = (await (await keysRoute.GET(requestAs(admin, "http://t/api/keys"))).json()) as { keys: { id: string; prefix: string }[] };
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(listed.keys.find((k) => k.id === id)?.prefix).toBe(key.slice(0, 12));
    expect((await keyRoute.DELETE(requestAs(admin, `http://t/api/keys/${id}`, { method: "DELETE" }), params({ key_id: id }))).status).toBe(200);
    expect((await meRoute.GET(requestAs(mine, "http://t/api/me"))).status).toBe(401);
  });
});

describe("attribution", () => {
  it("a person's message is from user:<id> with their profile name, whatever the body says", async () => {
    const thread_id = await newThread(rt, "who");
    const res = await messagesRoute.POST(requestAs(admin, `http://t/api/threads/${thread_id}/messages`, jsonBody({ text: "hello" })), params({ thread_id }));
    expect(res.status).toBe(201);
    const { event } = (await res.json()) as { event: { from: { agent_id: string; display_name: string } } };
    expect(event.from).toMatchObject({ agent_id: admin.agent_id, display_name: admin.person!.name });
  });

  it("an agent key posts only as its agent: a forged from is refused with 403 and nothing is stored", async () => {
    const thread_id = await newThread(rt, "forge");
    const tester = await testAgent(rt, `agent:tester-${newId("user").slice(-6).toLowerCase()}`);
    const run_id = newId("run");
    const own = chat("mine", { thread_id, run_id, from: { agent_id: tester.agent_id, role: "worker" } });
    expect((await eventsRoute.POST(requestAs(tester, "http://t/api/events", jsonBody(own)))).status).toBe(201);
    const forged = chat("as pm-1", { thread_id, run_id, from: { agent_id: "agent:pm-1", role: "worker" } });
    const res = await eventsRoute.POST(requestAs(tester, "http://t/api/events", jsonBody(forged)));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "from_mismatch", message: expect.stringContaining("agent:pm-1") });
    expect((await rt.store.read({ run_id })).events.map((e) => e.id)).toEqual([own.id]);
  });
});

describe("CLUTCH_INVITE_TTL_HOURS", () => {
  const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...vars });
  const hoursLeft = (expires_at: string) => (Date.parse(expires_at) - Date.now()) / 3_600_000;

  it("is 168 hours (7 days) by default, a whole number of hours from 1 to 2160 when set; anything else stops the start with a message naming it", () => {
    expect(DEFAULT_INVITE_TTL_HOURS).toBe(7 * 24);
    expect(loadConfig(env({})).inviteTtlHours).toBe(DEFAULT_INVITE_TTL_HOURS);
    expect(loadConfig(env({ CLUTCH_INVITE_TTL_HOURS: "48" })).inviteTtlHours).toBe(48);
    expect(() => loadConfig(env({ CLUTCH_INVITE_TTL_HOURS: "7d" }))).toThrow(/CLUTCH_INVITE_TTL_HOURS must be a whole number of hours, e.g. 168 for 7 days/);
    expect(() => loadConfig(env({ CLUTCH_INVITE_TTL_HOURS: "1.5" }))).toThrow(/CLUTCH_INVITE_TTL_HOURS must be a whole number of hours/);
    expect(() => loadConfig(env({ CLUTCH_INVITE_TTL_HOURS: "0" }))).toThrow(/CLUTCH_INVITE_TTL_HOURS must be at least 1 \(hour\)/);
    expect(() => loadConfig(env({ CLUTCH_INVITE_TTL_HOURS: "2161" }))).toThrow(/CLUTCH_INVITE_TTL_HOURS is at most 2160 \(90 days\)/);
  });

  it("a new invite link works for the configured time: 7 days by default, 2 hours on a Clutch set so", async () => {
    const created = await invitesRoute.POST(requestAs(admin, "http://t/api/invites", jsonBody({ role: "member" })));
    expect(created.status).toBe(201);
    const { invite } = (await created.json()) as { invite: { expires_at: string } };
    expect(hoursLeft(invite.expires_at)).toBeCloseTo(168, 1);

    const short = await testClutch({ inviteTtlHours: 2 });
    try {
      const { token, invite: brief } = await short.identity.invite(SYSTEM, "member");
      expect(hoursLeft(brief.expires_at)).toBeCloseTo(2, 1);
      // Still open within its time: the person can join.
      const { person } = await short.identity.acceptInvite(token, { name: `Brief ${newId("user").slice(-5).toLowerCase()}`, email: `brief-${newId("user").slice(-12).toLowerCase()}@test.local`, password: "correct horse battery" });
      expect(person.role).toBe("member");
    } finally {
      await short.stop();
    }
  });
});
