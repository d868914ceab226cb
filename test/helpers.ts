/**
 * Test helpers: a Clutch on the run's test database, and message builders.
 * Every test makes its own thread and run ids, so tests share the database safely.
 */
import { inject } from "vitest";
import { makeMessage, newId, PROTOCOL_VERSION, type ClutchMessage, type MessageType, type PayloadOf } from "@/lib/protocol";
import { createClutch, type Clutch, type ClutchOptions } from "@/server/clutch";
import { getClutch, setClutch } from "@/server/instance";
import type { RunRow, TaskRow } from "@/server/events/queries";
import type { PersonSummary } from "@/server/auth/identity";
import { SYSTEM, type Role } from "@/server/auth/principal";
import { personId } from "@/lib/people";

/**
 * A Clutch on the test database: without agents unless `options` name a workspace (see
 * test/agents.ts `startAgents` for the example's agents on the built-in model).
 */
export function testClutch(options: Partial<ClutchOptions> = {}): Promise<Clutch> {
  // Test files share the database: each Clutch is a deployment of its own (its dispatch jobs, its leader lease).
  // test/global-setup.ts migrated it once; a migration check per Clutch would start the Prisma CLI
  // (2–3 s of CPU) in every test file. Several files' Clutches share PostgreSQL's 100 connections:
  // a smaller Prisma pool each (vitest.config.ts).
  // The newest is the instance the route handlers under test reach (server/instance.ts).
  return createClutch({ databaseUrl: inject("databaseUrl"), embeddedUrl: inject("embeddedDatabase"), dataDir: "", workspaceDir: null, deployment: `test.${newId("task")}`, migrate: false, poolSize: 5, ...options }).then(setClutch);
}

/** A signed-in principal for route tests: its API key and the headers that carry it. */
export interface TestPrincipal {
  key: string;
  /** `user:<id>` or `agent:<id>` */
  agent_id: string;
  headers: Record<string, string>;
  person?: PersonSummary;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * A new person with `role` (through a real invite and sign-up) and a personal API key, so route
 * tests call the API as that person. Emails are unique per call, and so are names: names people
 * see are unique across people and agents (docs/identity.md "Names are unique") and test files
 * share one database, so the person is called `name` and a short random suffix ("Lee 4k2qz"),
 * whichever file runs first; a test that asserts on the name reads it from `person.name`. With
 * `exactName`, the person is called `name` as given (the test made it unique itself).
 */
export async function testPerson(rt: Clutch, role: Role = "admin", name = `Test ${role}`, opts: { exactName?: boolean } = {}): Promise<TestPrincipal> {
  const { token } = await rt.identity.invite(SYSTEM, role);
  const email = `${role}-${newId("user").slice(-12).toLowerCase()}@test.local`;
  const unique = opts.exactName ? name : `${name.slice(0, 70)} ${newId("user").slice(-5).toLowerCase()}`;
  const { person } = await rt.identity.acceptInvite(token, { name: unique, email, password: "correct horse battery" });
  const { key } = await rt.identity.keys.create(person.agent_id, "tests", "system");
  return { key, agent_id: person.agent_id, headers: bearer(key), person };
}

/** An API key for external agent `agent_id` (default agent:tester, the sender of `msg`/`rawChat`). */
export async function testAgent(rt: Clutch, agent_id = "agent:tester"): Promise<TestPrincipal> {
  const { key } = await rt.identity.keys.create(agent_id, "tests", "system");
  return { key, agent_id, headers: bearer(key) };
}

/** A member named `name` as `Approvals.decide` takes them (`user:<slug>`, as people were named before accounts). */
export function approver(name: string, role: Role = "member") {
  return { agent_id: personId(name), display_name: name, role };
}

/** A Request to `url` made by `as` (headers merged into `init`). */
export function requestAs(as: TestPrincipal | null, url: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  for (const [k, v] of Object.entries(as?.headers ?? {})) headers.set(k, v);
  return new Request(url, { ...init, headers });
}

const admins = new WeakMap<Clutch, Promise<TestPrincipal>>();

/**
 * A Request made by an admin of the running Clutch (the one route handlers see, `getClutch()`),
 * created on first use: for tests that call a route or two and are not about who may.
 */
export async function asAdmin(url: string, init: RequestInit = {}): Promise<Request> {
  const rt = getClutch();
  let admin = admins.get(rt);
  if (!admin) admins.set(rt, (admin = testPerson(rt, "admin", "Dana")));
  return requestAs(await admin, url, init);
}

/** A new channel with a unique name; returns its id. */
export async function newThread(rt: Clutch, prefix = "t"): Promise<string> {
  const name = `${prefix}-${newId("thread").slice(-10).toLowerCase()}`;
  const thread = await rt.store.createThread({ name }, { agent_id: "user:test" });
  return thread.id;
}

/** A valid message of `type` in `thread_id`/`run_id`, with overrides. */
export function msg<T extends MessageType>(
  type: T,
  payload: PayloadOf<T>,
  ctx: { thread_id: string; run_id: string; task_id?: string } & Partial<ClutchMessage>,
): ClutchMessage {
  return makeMessage({
    type,
    payload,
    task_id: ctx.task_id ?? newId("task"),
    from: { agent_id: "agent:tester", role: "worker" },
    to: [],
    ...ctx,
  });
}

/** A chat.message with `text`. */
export function chat(text: string, ctx: { thread_id: string; run_id: string } & Partial<ClutchMessage>): ClutchMessage {
  return msg("chat.message", { text }, ctx);
}

/** The tasks projection's row of task `id`; throws when there is none. */
export async function taskRow(rt: Clutch, id: string): Promise<TaskRow> {
  const task = await rt.store.queries.task(id);
  if (!task) throw new Error(`no task ${id}`);
  return task;
}

/** The runs projection's row of run `id`; throws when there is none. */
export async function runRow(rt: Clutch, id: string): Promise<RunRow> {
  const run = await rt.store.queries.run(id);
  if (!run) throw new Error(`no run ${id}`);
  return run;
}

/**
 * A chat.message as a client would send it, before any validation: `payload` and `extra` may
 * hold anything (for tests of what the boundary refuses). Fresh ids in `thread_id`.
 */
export function rawChat(thread_id: string, payload: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: PROTOCOL_VERSION,
    id: newId("message"),
    ts: new Date().toISOString(),
    thread_id,
    run_id: newId("run"),
    task_id: newId("task"),
    from: { agent_id: "agent:tester" },
    to: [],
    type: "chat.message",
    payload,
    ...extra,
  };
}
