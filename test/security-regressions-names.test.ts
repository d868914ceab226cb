/**
 * Security regressions from the authorization drill: names people see are unique across people
 * and agents (docs/identity.md "Names are unique"). Each test failed before its fix:
 *
 * - a member cannot rename their profile (better-auth's /api/auth/update-user) to a workspace
 *   agent's display name or handle, in any case or spacing, nor to another person's name: 409
 *   name_taken says whose it is, and their name stays; keeping their own name is fine;
 * - nobody joins through an invite under a taken name: 409 name_taken, nothing is stored and the
 *   invite still works;
 * - an external agent cannot register a person's or another agent's name, through POST
 *   /api/agents or an agent.register event; re-registering with its own name is fine;
 * - an AutoGen stream's `source: "pm-1"` and its team "Project Manager" are shown as
 *   "AutoGen · pm-1" and "AutoGen · Project Manager", never as the workspace's pm-1.
 *
 * The workspace's own agents (pm-1 "Project Manager", …) run on the built-in model. Real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, PROTOCOL_VERSION, makeMessage, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { SYSTEM } from "@/server/auth/principal";
import { setClutch } from "@/server/instance";
import { nameKey } from "@/server/auth/names";
import { REGISTRY_THREAD } from "@/server/router/registration";
import { conversationIds } from "@/server/events/threads";
import { displayName, isAutogen } from "@/components/events/participant";
import * as authRoute from "@/app/api/auth/[...all]/route";
import * as joinRoute from "@/app/api/join/[token]/route";
import * as meRoute from "@/app/api/me/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as eventsRoute from "@/app/api/events/route";
import * as autogenRunsRoute from "@/app/api/autogen/runs/route";
import * as autogenMessagesRoute from "@/app/api/autogen/runs/[run_id]/messages/route";
import { scratchWorkspace, startAgents } from "./agents";
import { requestAs, testAgent, testPerson, type TestPrincipal } from "./helpers";

const PASSWORD = "correct horse battery";
/** A name of this file's own (the test database is shared by every test file of the run). */
const own = (name: string) => `${name} ${newId("user").slice(-6).toLowerCase()}`;

let rt: Clutch;
let channel: string;
/** The workspace's pm-1 and its card's name ("Project Manager"). */
let pmName: string;

beforeAll(async () => {
  const ws = scratchWorkspace();
  channel = ws.channel;
  rt = await startAgents(ws.dir);
  setClutch(rt);
  pmName = rt.registry.get("agent:pm-1")!.card.display.name;
});
afterAll(async () => {
  await rt?.stop();
});

const params = <T>(p: T) => ({ params: Promise.resolve(p) }) as never;
const jsonInit = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const postJson = (as: TestPrincipal, url: string, body: unknown) => requestAs(as, `http://localhost:3000${url}`, jsonInit(body));
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/** A member who signed in with a session cookie (as the browser does), and a way to rename them. */
async function signedInMember(name: string) {
  const member = await testPerson(rt, "member", name, { exactName: true });
  const signIn = await authRoute.POST(new Request("http://localhost:3000/api/auth/sign-in/email", jsonInit({ email: member.person!.email, password: PASSWORD }, { origin: "http://localhost:3000" })));
  expect(signIn.status).toBe(200);
  const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const rename = (to: string) => authRoute.POST(new Request("http://localhost:3000/api/auth/update-user", jsonInit({ name: to }, { cookie, origin: "http://localhost:3000" })));
  /** The name the app shows for them now (GET /api/me with their cookie). */
  const shown = async () => ((await (await meRoute.GET(new Request("http://localhost:3000/api/me", { headers: { cookie } }))).json()) as { principal: { name: string } }).principal.name;
  return { member, rename, shown };
}

describe("a profile name is nobody else's", () => {
  it("compares names as people read them: case, spaces and the agent: / @ of a handle do not count", () => {
    expect(nameKey("  Project \u200b  MANAGER ")).toBe(nameKey("project manager"));
    expect(nameKey("agent:PM-1")).toBe("pm-1");
    expect(nameKey("@pm-1")).toBe("pm-1");
    expect(nameKey("ＰＭ-1")).toBe("pm-1");
  });

  it("a member cannot rename their profile to pm-1's display name or handle, in any case or spacing: 409 name_taken says whose it is, and their name stays", async () => {
    const { member, rename, shown } = await signedInMember(own("Nia Rename"));
    expect(pmName).toBe("Project Manager");
    for (const taken of ["Project Manager", "  project   MANAGER ", "PM-1", "agent:pm-1", " Pm-1"]) {
      const res = await rename(taken);
      expect(res.status, taken).toBe(409);
      const error = await errorOf(res);
      expect(error.code).toBe("name_taken");
      expect(error.message).toMatch(/^“[^”]+” is the name of agent pm-1; choose another name$/);
    }
    expect(await shown()).toBe(member.person!.name);
    expect((await rt.identity.person(member.person!.id))!.name).toBe(member.person!.name);
    // Another agent's handle and the other agents' names too.
    expect(await errorOf(await rename("analyst-1"))).toMatchObject({ code: "name_taken", message: expect.stringContaining("is the name of agent analyst-1") });
  });

  it("nor to another person's name, nor to a name Clutch gives AutoGen's agents; their own name, or a free one, is fine", async () => {
    const other = await testPerson(rt, "member", own("Omar Other"), { exactName: true });
    const { member, rename, shown } = await signedInMember(own("Nia Keep"));
    const res = await rename(` ${other.person!.name.toUpperCase()} `);
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toEqual({ code: "name_taken", message: `“${other.person!.name.toUpperCase()}” is the name of person ${other.person!.name}; choose another name` });
    expect(await errorOf(await rename("AutoGen · pm-1"))).toMatchObject({ code: "name_taken", message: expect.stringContaining("AutoGen's agents") });
    const blank = await rename("   ");
    expect(blank.status).toBe(400);
    expect((await errorOf(blank)).code).toBe("invalid_body");
    expect(await shown()).toBe(member.person!.name);
    expect((await rename(member.person!.name)).status).toBe(200);
    const free = own("Nia Renamed");
    expect((await rename(free)).status).toBe(200);
    expect(await shown()).toBe(free);
  });
});

describe("joining with a taken name", () => {
  it("an invite's sign-up under pm-1's name or another person's is refused with 409 name_taken, stores nothing, and the invite still works", async () => {
    const { token } = await rt.identity.invite(SYSTEM, "member");
    const email = `join-${newId("user").slice(-10).toLowerCase()}@test.local`;
    const join = (name: string) => joinRoute.POST(new Request(`http://localhost:3000/api/join/${token}`, jsonInit({ name, email, password: PASSWORD })), params({ token }));

    const asAgent = await join(`  ${pmName.toLowerCase()} `);
    expect(asAgent.status).toBe(409);
    expect(await errorOf(asAgent)).toEqual({ code: "name_taken", message: "“project manager” is the name of agent pm-1; choose another name" });
    const someone = await testPerson(rt, "member", own("Pia Person"), { exactName: true });
    const asPerson = await join(someone.person!.name.replace(" ", "   "));
    expect(asPerson.status).toBe(409);
    expect((await errorOf(asPerson)).message).toBe(`“${someone.person!.name}” is the name of person ${someone.person!.name}; choose another name`);

    // Nothing stored: no account for the email, the invite is still open.
    expect((await rt.identity.people()).some((p) => p.email === email)).toBe(false);
    expect((await rt.identity.openInvite(token)).state).toBe("open");
    const name = own("Pia Joined");
    const ok = await join(name);
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { person: { name: string } }).person.name).toBe(name);
  });

  it("two people joining at once under one new name: one gets it, the other 409 name_taken", async () => {
    const name = own("Twin Name");
    const joins = await Promise.all(
      [0, 1].map(async (i) => {
        const { token } = await rt.identity.invite(SYSTEM, "member");
        const body = { name: i ? name.toUpperCase() : name, email: `twin-${i}-${newId("user").slice(-10).toLowerCase()}@test.local`, password: PASSWORD };
        return joinRoute.POST(new Request(`http://localhost:3000/api/join/${token}`, jsonInit(body)), params({ token }));
      }),
    );
    expect(joins.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await rt.identity.people()).filter((p) => nameKey(p.name) === nameKey(name))).toHaveLength(1);
  });
});

describe("an external agent's name is nobody else's", () => {
  const card = (agent_id: string, name: string, desc?: string) => ({ v: PROTOCOL_VERSION, agent_id, display: { name, ...(desc ? { desc } : {}) }, capabilities: [{ id: "skill:names-drill", version: "1.0" }] });
  const registrations = async (agent_id: string) => (await rt.store.readAll({ thread_id: await rt.store.systemThread(REGISTRY_THREAD, "") })).filter((e) => e.from.agent_id === agent_id && e.type !== "agent.heartbeat");

  it("POST /api/agents with pm-1's name, pm-1's handle or a person's name is refused with 409 name_taken, and nothing is registered", async () => {
    const agent = await testAgent(rt, `agent:names-${newId("user").slice(-6).toLowerCase()}`);
    const person = await testPerson(rt, "member", own("Quinn Person"), { exactName: true });
    for (const [name, whose] of [
      [" project  manager", "agent pm-1"],
      ["PM-1", "agent pm-1"],
      [person.person!.name.toLowerCase(), `person ${person.person!.name}`],
    ] as const) {
      const res = await agentsRoute.POST(postJson(agent, "/api/agents", card(agent.agent_id, name)), undefined as never);
      expect(res.status, name).toBe(409);
      expect(await errorOf(res)).toMatchObject({ code: "name_taken", message: expect.stringContaining(`is the name of ${whose}; choose another name`) });
    }
    expect(rt.registry.get(agent.agent_id)).toBeUndefined();
    expect(await registrations(agent.agent_id)).toEqual([]);

    // An agent whose id is a person's name is refused too (its handle is a name people see).
    const slug = nameKey(own("rex")).replace(" ", "-");
    await testPerson(rt, "member", slug, { exactName: true });
    const namesake = await testAgent(rt, `agent:${slug}`);
    const byId = await agentsRoute.POST(postJson(namesake, "/api/agents", card(namesake.agent_id, own("Rex Bot"))), undefined as never);
    expect(byId.status).toBe(409);
    expect((await errorOf(byId)).message).toBe(`“${slug}” is the name of person ${slug}; choose another name`);
  });

  it("an agent.register event (POST /api/events) with pm-1's name is refused with 409 name_taken and nothing is stored", async () => {
    const agent = await testAgent(rt, `agent:names-${newId("user").slice(-6).toLowerCase()}`);
    const at = { thread_id: await rt.store.systemThread(REGISTRY_THREAD, ""), ...conversationIds(await rt.store.systemThread(REGISTRY_THREAD, "")) };
    const register = (name: string) => makeMessage({ type: "agent.register", ...at, from: { agent_id: agent.agent_id, role: "worker" }, to: [], payload: { card: card(agent.agent_id, name) } });
    const res = await eventsRoute.POST(postJson(agent, "/api/events", register("Project Manager")));
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toMatchObject({ code: "name_taken", message: "message 0: “Project Manager” is the name of agent pm-1; choose another name; nothing was stored" });
    expect(await registrations(agent.agent_id)).toEqual([]);
    expect((await eventsRoute.POST(postJson(agent, "/api/events", register(own("Event Bot"))))).status).toBe(201);
  });

  it("re-registering with its own name is fine; another agent taking that name is refused", async () => {
    const agent = await testAgent(rt, `agent:names-${newId("user").slice(-6).toLowerCase()}`);
    const name = own("Sage Bot");
    expect((await agentsRoute.POST(postJson(agent, "/api/agents", card(agent.agent_id, name)), undefined as never)).status).toBe(201);
    const again = await agentsRoute.POST(postJson(agent, "/api/agents", card(agent.agent_id, name, "now with a description")), undefined as never);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { result: string }).result).toBe("updated");
    const other = await testAgent(rt, `agent:names-${newId("user").slice(-6).toLowerCase()}`);
    const taken = await agentsRoute.POST(postJson(other, "/api/agents", card(other.agent_id, name.toUpperCase())), undefined as never);
    expect(taken.status).toBe(409);
    expect((await errorOf(taken)).message).toBe(`“${name.toUpperCase()}” is the name of agent ${agent.agent_id.slice("agent:".length)}; choose another name`);
  });
});

describe("AutoGen sources show as what they are", () => {
  it("a message from AutoGen source pm-1 of the team “Project Manager” is shown as “AutoGen · pm-1”, never as the workspace's pm-1", async () => {
    const forwarder = await testPerson(rt, "member", own("Fay Forwarder"), { exactName: true });
    const started = await autogenRunsRoute.POST(postJson(forwarder, "/api/autogen/runs", { channel, task: "Plan the launch", team: "Project Manager" }), undefined as never);
    expect(started.status).toBe(201);
    const { run_id } = (await started.json()) as { run_id: string };
    const posted = await autogenMessagesRoute.POST(postJson(forwarder, `/api/autogen/runs/${run_id}/messages`, [{ type: "TextMessage", source: "pm-1", id: "m1", content: "I will take the launch plan." }, { stop_reason: "done", messages: [] }]), params({ run_id }));
    expect(posted.status).toBe(201);
    const events: StoredEvent[] = await rt.store.readAll({ run_id });

    const said = events.find((e) => e.type === "chat.message")!;
    expect(said.from).toMatchObject({ agent_id: "agent:autogen-pm-1", display_name: "AutoGen · pm-1" });
    expect(said.from.agent_id).not.toBe("agent:pm-1");
    expect(isAutogen(said.from)).toBe(true);
    expect(displayName(said.from)).toBe("AutoGen · pm-1");
    // The team is shown as AutoGen's too; its result still names the team by its label.
    const team = events.find((e) => e.type === "task.accept" && e.from.agent_id === "agent:autogen")!;
    expect(displayName(team.from)).toBe("AutoGen · Project Manager");
    expect(events.filter((e) => e.from.agent_id.startsWith("agent:autogen")).map((e) => displayName(e.from)).every((n) => n.startsWith("AutoGen · "))).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "task.result", payload: { summary: "Project Manager stopped: done" } });
  });
});
