/**
 * The permission matrix (docs/identity.md, "Every door is closed by default"): every API route and
 * method, called by every kind of principal (nobody, a guest, a member, an admin, agent key A,
 * agent key B, a revoked key), answers the status in ONE table below. The table is checked against
 * the route files on disk: a route or method missing from it fails this test, so a new route
 * cannot ship without saying who may call it. The socket `subscribe` has its own small table.
 *
 * Fixtures: a public channel (guests not added), a private channel whose only member is the admin,
 * a run with a task in the private channel, agent:matrix-a registered with its key.
 */
import fs from "node:fs";
import path from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, PROTOCOL_VERSION } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { RealtimeGateway } from "@/server/realtime/gateway";
import { registerAgent } from "@/server/router/registration";
import { chat, msg, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

const WHO = ["none", "guest", "member", "admin", "agentA", "agentB", "revoked"] as const;
type Who = (typeof WHO)[number];
type Expect = Record<Who, number>;

/** Everyone gets `n`. */
const all = (n: number): Expect => ({ none: n, guest: n, member: n, admin: n, agentA: n, agentB: n, revoked: n });
/** Each call of POST /api/schemas adds a payload type of its own. */
let schemaCount = 0;

/** Any signed-in principal gets `ok`; nobody and a revoked key 401. */
const signedIn = (ok: number, over: Partial<Expect> = {}): Expect => ({ ...all(ok), none: 401, revoked: 401, ...over });
/** People get `ok` (or what `over` says); agent keys 403; nobody and a revoked key 401. */
const people = (ok: number, over: Partial<Expect> = {}): Expect => ({ none: 401, revoked: 401, agentA: 403, agentB: 403, guest: ok, member: ok, admin: ok, ...over });
/** Only admins get `ok`; everyone else signed in 403. */
const admins = (ok: number): Expect => ({ none: 401, revoked: 401, agentA: 403, agentB: 403, guest: 403, member: 403, admin: ok });

interface Fixtures {
  pub: string;
  priv: string;
  run: string;
  runSeq: number;
  memberId: string;
  /** A run, a running task and a failed task in the private channel, to cancel and retry. */
  cancelRun: string;
  cancelTask: string;
  failedTask: string;
}
interface Call {
  url: string;
  params?: Record<string, string | string[]>;
  body?: unknown;
  /** A raw body (JSON Lines). */
  text?: string;
  /** Headers besides the JSON content type and the origin. */
  headers?: Record<string, string>;
}

/** One row per route file and method: how to call it, and what each principal gets. */
const MATRIX: Record<string, { call: (f: Fixtures) => Call; expect: Expect }> = {
  "GET /api/health": { call: () => ({ url: "/api/health" }), expect: all(200) },
  "GET /api/setup": { call: () => ({ url: "/api/setup" }), expect: all(200) },
  "POST /api/setup": { call: () => ({ url: "/api/setup", body: { name: "X", email: "x@test.local", password: "a long password" } }), expect: all(409) },
  "GET /api/me": { call: () => ({ url: "/api/me" }), expect: signedIn(200) },
  "GET /api/join/[token]": { call: () => ({ url: "/api/join/nope", params: { token: "nope" } }), expect: all(404) },
  "POST /api/join/[token]": { call: () => ({ url: "/api/join/nope", params: { token: "nope" }, body: { name: "X", email: "x@test.local", password: "a long password" } }), expect: all(404) },
  "GET /api/auth/[...all]": { call: () => ({ url: "/api/auth/ok" }), expect: all(200) },
  "POST /api/auth/[...all]": { call: () => ({ url: "/api/auth/sign-up/email", body: { name: "X", email: "x@test.local", password: "a long password" } }), expect: all(403) },
  "GET /api/[...path]": { call: () => ({ url: "/api/nothing-here" }), expect: all(404) },
  "POST /api/[...path]": { call: () => ({ url: "/api/nothing-here", body: {} }), expect: all(404) },
  "PUT /api/[...path]": { call: () => ({ url: "/api/nothing-here", body: {} }), expect: all(404) },
  "PATCH /api/[...path]": { call: () => ({ url: "/api/nothing-here", body: {} }), expect: all(404) },
  "DELETE /api/[...path]": { call: () => ({ url: "/api/nothing-here" }), expect: all(404) },

  "GET /api/threads": { call: () => ({ url: "/api/threads" }), expect: signedIn(200) },
  "GET /api/workspace": { call: () => ({ url: "/api/workspace" }), expect: signedIn(200) },
  "GET /api/search": { call: () => ({ url: "/api/search?q=hello" }), expect: signedIn(200) },
  "POST /api/acp": { call: () => ({ url: "/api/acp", body: { jsonrpc: "2.0", id: 1, method: "ping" }, headers: { accept: "application/json, text/event-stream" } }), expect: signedIn(200) },
  "GET /api/acp": { call: () => ({ url: "/api/acp" }), expect: signedIn(405) },
  "DELETE /api/acp": { call: () => ({ url: "/api/acp" }), expect: signedIn(405) },
  "POST /api/workspace/import": { call: () => ({ url: "/api/workspace/import", body: { pack: { id: "perms", name: "Perms", prompts: {}, agents: { entry: "nobody" } } } }), expect: admins(409) },
  "GET /api/workflows": { call: () => ({ url: "/api/workflows" }), expect: signedIn(200) },
  "POST /api/workflows": { call: () => ({ url: "/api/workflows", body: { source: "workflow: perms\nsteps: []\n" } }), expect: people(400) },
  "GET /api/workflows/[name]": { call: () => ({ url: "/api/workflows/nope", params: { name: "nope" } }), expect: signedIn(404) },
  "POST /api/workflows/[name]/runs": { call: () => ({ url: "/api/workflows/nope/runs", params: { name: "nope" }, body: { text: "go" } }), expect: signedIn(409) },
  "GET /api/schemas": { call: () => ({ url: "/api/schemas" }), expect: signedIn(200) },
  "POST /api/schemas": { call: () => ({ url: "/api/schemas", body: { payload_type: `perms.added${++schemaCount}.v1`, json_schema: { type: "object" } } }), expect: signedIn(201) },
  "GET /api/schemas/[...ref]": { call: () => ({ url: "/api/schemas/clutch/research/summary@1", params: { ref: ["clutch", "research", "summary@1"] } }), expect: signedIn(200) },
  "POST /api/threads": { call: () => ({ url: "/api/threads", body: { name: `m-${newId("thread").slice(-10).toLowerCase()}` } }), expect: people(201, { guest: 403 }) },
  "GET /api/threads/[thread_id]": { call: (f) => ({ url: `/api/threads/${f.pub}`, params: { thread_id: f.pub } }), expect: signedIn(200, { guest: 404 }) },
  "PATCH /api/threads/[thread_id]": { call: (f) => ({ url: `/api/threads/${f.pub}`, params: { thread_id: f.pub }, body: { visibility: "public" } }), expect: people(200, { guest: 404 }) },
  "GET /api/threads/[thread_id]/events": { call: (f) => ({ url: `/api/threads/${f.priv}/events`, params: { thread_id: f.priv } }), expect: signedIn(404, { admin: 200 }) },
  "GET /api/inbox": { call: () => ({ url: "/api/inbox" }), expect: people(200) },
  "GET /api/threads/[thread_id]/people": { call: (f) => ({ url: `/api/threads/${f.pub}/people`, params: { thread_id: f.pub } }), expect: people(200, { guest: 404 }) },
  "PUT /api/threads/[thread_id]/read": { call: (f) => ({ url: `/api/threads/${f.pub}/read`, params: { thread_id: f.pub }, body: { seq: 0, count: 0 } }), expect: people(200, { guest: 404 }) },
  "POST /api/dms": { call: () => ({ url: "/api/dms", body: { with: "agent:nobody-here" } }), expect: people(404) },
  "POST /api/threads/[thread_id]/messages/[message_id]/answer": {
    call: (f) => ({ url: `/api/threads/${f.pub}/messages/msg_none/answer`, params: { thread_id: f.pub, message_id: "msg_none" }, body: { question_id: "msg_q" } }),
    expect: people(422, { guest: 404 }),
  },
  // Message actions (docs/channels.md "Message actions"): people who may write in the channel; an unknown message is a 422.
  "POST /api/threads/[thread_id]/messages/[message_id]/reactions": {
    call: (f) => ({ url: `/api/threads/${f.pub}/messages/msg_none/reactions`, params: { thread_id: f.pub, message_id: "msg_none" }, body: { emoji: "👍" } }),
    expect: people(422, { guest: 404 }),
  },
  "DELETE /api/threads/[thread_id]/messages/[message_id]/reactions": {
    call: (f) => ({ url: `/api/threads/${f.pub}/messages/msg_none/reactions?emoji=${encodeURIComponent("👍")}`, params: { thread_id: f.pub, message_id: "msg_none" } }),
    expect: people(422, { guest: 404 }),
  },
  "PATCH /api/threads/[thread_id]/messages/[message_id]": {
    call: (f) => ({ url: `/api/threads/${f.pub}/messages/msg_none`, params: { thread_id: f.pub, message_id: "msg_none" }, body: { text: "edited" } }),
    expect: people(422, { guest: 404 }),
  },
  "DELETE /api/threads/[thread_id]/messages/[message_id]": {
    call: (f) => ({ url: `/api/threads/${f.pub}/messages/msg_none`, params: { thread_id: f.pub, message_id: "msg_none" } }),
    expect: people(422, { guest: 404 }),
  },
  "PUT /api/threads/[thread_id]/messages/[message_id]/pin": {
    call: (f) => ({ url: `/api/threads/${f.pub}/messages/msg_none/pin`, params: { thread_id: f.pub, message_id: "msg_none" } }),
    expect: people(422, { guest: 404 }),
  },
  "DELETE /api/threads/[thread_id]/messages/[message_id]/pin": {
    call: (f) => ({ url: `/api/threads/${f.pub}/messages/msg_none/pin`, params: { thread_id: f.pub, message_id: "msg_none" } }),
    expect: people(422, { guest: 404 }),
  },
  "GET /api/threads/[thread_id]/pins": { call: (f) => ({ url: `/api/threads/${f.priv}/pins`, params: { thread_id: f.priv } }), expect: signedIn(404, { admin: 200 }) },
  "POST /api/threads/[thread_id]/read/unread": {
    call: (f) => ({ url: `/api/threads/${f.pub}/read/unread`, params: { thread_id: f.pub }, body: { message_id: "msg_none" } }),
    expect: people(422, { guest: 404 }),
  },
  "POST /api/threads/[thread_id]/messages": { call: (f) => ({ url: `/api/threads/${f.pub}/messages`, params: { thread_id: f.pub }, body: { text: "hello" } }), expect: people(201, { guest: 404 }) },
  "GET /api/threads/[thread_id]/runs": { call: (f) => ({ url: `/api/threads/${f.priv}/runs`, params: { thread_id: f.priv } }), expect: signedIn(404, { admin: 200 }) },
  "GET /api/threads/[thread_id]/members": { call: (f) => ({ url: `/api/threads/${f.priv}/members`, params: { thread_id: f.priv } }), expect: signedIn(404, { admin: 200 }) },
  "POST /api/threads/[thread_id]/members": { call: (f) => ({ url: `/api/threads/${f.pub}/members`, params: { thread_id: f.pub }, body: { member: "agent:matrix-a" } }), expect: people(200, { guest: 404 }) },
  "DELETE /api/threads/[thread_id]/members/[member]": { call: (f) => ({ url: `/api/threads/${f.pub}/members/user:nobody`, params: { thread_id: f.pub, member: "user:nobody" } }), expect: people(200, { guest: 404 }) },

  "GET /api/agents": { call: () => ({ url: "/api/agents" }), expect: signedIn(200) },
  "POST /api/agents": { call: () => ({ url: "/api/agents", body: CARD }), expect: signedIn(403, { agentA: 200, admin: 200 }) },
  "PATCH /api/agents/[agent_id]": { call: () => ({ url: "/api/agents/agent:matrix-c", params: { agent_id: "agent:matrix-c" }, body: { disabled: false } }), expect: admins(200) },
  "GET /api/agents/[agent_id]/usage": { call: () => ({ url: "/api/agents/agent:matrix-c/usage", params: { agent_id: "agent:matrix-c" } }), expect: signedIn(200) },
  "GET /api/usage/prices": { call: () => ({ url: "/api/usage/prices" }), expect: signedIn(200) },
  "GET /api/agents/[agent_id]/keys": { call: () => ({ url: "/api/agents/agent:matrix-c/keys", params: { agent_id: "agent:matrix-c" } }), expect: admins(200) },
  "POST /api/agents/[agent_id]/keys": { call: () => ({ url: "/api/agents/agent:matrix-c/keys", params: { agent_id: "agent:matrix-c" }, body: { name: "matrix" } }), expect: admins(201) },
  "POST /api/agents/[agent_id]/heartbeat": { call: () => ({ url: "/api/agents/agent:matrix-a/heartbeat", params: { agent_id: "agent:matrix-a" }, body: {} }), expect: signedIn(403, { agentA: 202, admin: 202 }) },

  "GET /api/policy": { call: () => ({ url: "/api/policy" }), expect: signedIn(200) },
  "GET /api/approvals": { call: () => ({ url: "/api/approvals" }), expect: signedIn(200) },
  "POST /api/approvals/[approval_id]/decision": { call: () => ({ url: "/api/approvals/apr_x/decision", params: { approval_id: "apr_x" }, body: { decision: "approve" } }), expect: people(409) },
  "POST /api/events": { call: (f) => ({ url: "/api/events", body: chat("from A", { thread_id: f.pub, run_id: newId("run"), from: { agent_id: "agent:matrix-a", role: "worker" } }) }), expect: signedIn(403, { agentA: 201 }) },

  "GET /api/runs": { call: () => ({ url: "/api/runs?status=waiting&limit=5" }), expect: signedIn(200) },
  // AutoGen live runs (docs/adapters.md "AutoGen"): any signed-in key may start one in a channel it reads; only its starter feeds it.
  "POST /api/autogen/runs": { call: () => ({ url: "/api/autogen/runs", body: { channel: "no-such-channel" } }), expect: signedIn(404) },
  "POST /api/autogen/runs/[run_id]/messages": { call: (f) => ({ url: `/api/autogen/runs/${f.run}/messages`, params: { run_id: f.run }, body: { type: "TextMessage", source: "a", content: "hi" } }), expect: signedIn(404) },
  "GET /api/autogen/runs/[run_id]/input": { call: (f) => ({ url: `/api/autogen/runs/${f.run}/input?wait=0`, params: { run_id: f.run } }), expect: signedIn(404) },
  "GET /api/runs/[run_id]": { call: (f) => ({ url: `/api/runs/${f.run}`, params: { run_id: f.run } }), expect: signedIn(404, { admin: 200 }) },
  "GET /api/runs/[run_id]/events": { call: (f) => ({ url: `/api/runs/${f.run}/events`, params: { run_id: f.run } }), expect: signedIn(404, { admin: 200 }) },
  "GET /api/runs/[run_id]/events/stream": { call: (f) => ({ url: `/api/runs/${f.run}/events/stream`, params: { run_id: f.run } }), expect: signedIn(404, { admin: 200 }) },
  "GET /api/runs/[run_id]/export": { call: (f) => ({ url: `/api/runs/${f.run}/export`, params: { run_id: f.run } }), expect: signedIn(404, { admin: 200 }) },
  "GET /api/runs/[run_id]/compare": { call: (f) => ({ url: `/api/runs/${f.run}/compare`, params: { run_id: f.run } }), expect: signedIn(404, { admin: 400 }) },
  "POST /api/runs/[run_id]/fork": { call: (f) => ({ url: `/api/runs/${f.run}/fork`, params: { run_id: f.run }, body: { at_seq: f.runSeq } }), expect: people(404, { admin: 201 }) },
  "GET /api/agents/[agent_id]/webhook": { call: () => ({ url: "/api/agents/agent%3Amatrix-a/webhook", params: { agent_id: "agent:matrix-a" } }), expect: signedIn(403, { agentA: 200, admin: 200 }) },
  "GET /api/agents/[agent_id]/inbox": { call: () => ({ url: "/api/agents/agent%3Amatrix-a/inbox?after=0", params: { agent_id: "agent:matrix-a" } }), expect: signedIn(403, { agentA: 200 }) },
  "POST /api/ag-ui": { call: () => ({ url: "/api/ag-ui", body: {} }), expect: signedIn(400) },
  "GET /api/ag-ui": { call: () => ({ url: "/api/ag-ui" }), expect: signedIn(405) },
  "POST /api/ag-ui/agents/[agent_id]": { call: () => ({ url: "/api/ag-ui/agents/pm-1", params: { agent_id: "pm-1" }, body: {} }), expect: signedIn(400) },
  "GET /api/ag-ui/agents/[agent_id]": { call: () => ({ url: "/api/ag-ui/agents/pm-1", params: { agent_id: "pm-1" } }), expect: signedIn(405) },
  "POST /api/streams": { call: (f) => ({ url: "/api/streams", body: { thread_id: f.pub } }), expect: signedIn(201, { guest: 422 }) },
  "POST /api/streams/[stream_id]/append": { call: () => ({ url: "/api/streams/stream_nope/append", params: { stream_id: "stream_nope" }, body: { markdown_text: "x" } }), expect: signedIn(404) },
  "POST /api/streams/[stream_id]/stop": { call: () => ({ url: "/api/streams/stream_nope/stop", params: { stream_id: "stream_nope" }, body: {} }), expect: signedIn(404) },
  "POST /api/runs/[run_id]/cancel": { call: (f) => ({ url: `/api/runs/${f.cancelRun}/cancel`, params: { run_id: f.cancelRun }, body: { reason: "matrix" } }), expect: people(404, { admin: 200 }) },
  "POST /api/tasks/[task_id]/cancel": { call: (f) => ({ url: `/api/tasks/${f.cancelTask}/cancel`, params: { task_id: f.cancelTask }, body: {} }), expect: signedIn(404, { admin: 200 }) },
  "POST /api/tasks/[task_id]/retry": { call: (f) => ({ url: `/api/tasks/${f.failedTask}/retry`, params: { task_id: f.failedTask }, body: {} }), expect: signedIn(404, { admin: 200 }) },
  "POST /api/runs/import": { call: (f) => ({ url: "/api/runs/import", text: JSON.stringify(chat("restored", { thread_id: f.pub, run_id: newId("run") })) }), expect: people(403, { admin: 201 }) },
  "GET /api/artifacts/[ref]": { call: () => ({ url: `/api/artifacts/x`, params: { ref: `artifact:sha256-${"0".repeat(64)}` } }), expect: signedIn(404) },

  "GET /api/invites": { call: () => ({ url: "/api/invites" }), expect: admins(200) },
  "POST /api/invites": { call: () => ({ url: "/api/invites", body: { role: "guest" } }), expect: admins(201) },
  "DELETE /api/invites/[invite_id]": { call: () => ({ url: "/api/invites/inv_x", params: { invite_id: "inv_x" } }), expect: admins(200) },
  "GET /api/people": { call: () => ({ url: "/api/people" }), expect: signedIn(200) },
  "PATCH /api/people/[user_id]": { call: (f) => ({ url: `/api/people/${f.memberId}`, params: { user_id: f.memberId }, body: { role: "member" } }), expect: admins(200) },
  "DELETE /api/people/[user_id]/sign-in-lock": { call: (f) => ({ url: `/api/people/${f.memberId}/sign-in-lock`, params: { user_id: f.memberId } }), expect: admins(200) },
  "GET /api/keys": { call: () => ({ url: "/api/keys" }), expect: people(200) },
  "POST /api/keys": { call: () => ({ url: "/api/keys", body: { name: "matrix" } }), expect: people(201) },
  "DELETE /api/keys/[key_id]": { call: () => ({ url: "/api/keys/key_x", params: { key_id: "key_x" } }), expect: people(404) },
};

const CARD = { v: PROTOCOL_VERSION, agent_id: "agent:matrix-a", display: { name: "Matrix A" }, capabilities: [{ id: "skill:matrix", version: "1.0" }] };
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const API = path.resolve(import.meta.dirname, "../app/api");

/** Every `METHOD /api/...` the route files export, from the files on disk. */
function routesOnDisk(): { key: string; file: string }[] {
  const out: { key: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith("_")) walk(full); // _lib: a private folder, not routes (Next.js)
      }
      else if (entry.name === "route.ts") {
        const source = fs.readFileSync(full, "utf8");
        const route = `/api${path.dirname(full).slice(API.length).replaceAll(path.sep, "/")}`;
        for (const m of METHODS) if (new RegExp(`export (const|async function) ${m}\\b`).test(source)) out.push({ key: `${m} ${route}`, file: full });
      }
    }
  };
  walk(API);
  return out;
}

let rt: Clutch;
let as: Record<Who, TestPrincipal | null>;
let fx: Fixtures;

beforeAll(async () => {
  rt = await testClutch();
  const [guest, member, admin] = [await testPerson(rt, "guest", "Gail Guest"), await testPerson(rt, "member", "Milo Member"), await testPerson(rt, "admin", "Ada Admin")];
  const [agentA, agentB, revoked] = [await testAgent(rt, "agent:matrix-a"), await testAgent(rt, "agent:matrix-b"), await testAgent(rt, "agent:matrix-r")];
  await rt.identity.keys.revoke((await rt.identity.keys.list("agent:matrix-r"))[0]!.id);
  as = { none: null, guest, member, admin, agentA, agentB, revoked };
  const name = () => `m-${newId("thread").slice(-10).toLowerCase()}`;
  const by = { agent_id: admin.agent_id, display_name: "Ada Admin" };
  const pub = (await rt.store.createThread({ name: name() }, by)).id;
  const priv = (await rt.store.createThread({ name: name(), visibility: "private" }, by)).id;
  const run = newId("run");
  const [request] = (await rt.store.append(msg("task.request", { title: "Board pack" }, { thread_id: priv, run_id: run, from: { agent_id: admin.agent_id, role: "human" }, to: [{ agent_id: "agent:nobody" }] }))).events;
  await registerAgent(rt.store, rt.registry, CARD);
  const from = { agent_id: admin.agent_id, role: "human" };
  const open = async (type: "task.request" | "task.error") => {
    const at = { thread_id: priv, run_id: newId("run"), task_id: newId("task"), from, to: [{ agent_id: "agent:nobody" }] };
    await rt.store.append(msg("task.request", { title: "Board pack" }, at));
    if (type === "task.error") await rt.store.append(msg("task.error", { code: "X", message: "failed" }, { ...at, from: { agent_id: "agent:nobody" } }));
    return at;
  };
  const cancellable = await open("task.request");
  const single = await open("task.request");
  const failed = await open("task.error");
  fx = { pub, priv, run, runSeq: request!.seq, memberId: member.person!.id, cancelRun: cancellable.run_id, cancelTask: single.task_id, failedTask: failed.task_id };
});
afterAll(() => rt.stop());

describe("the permission matrix", () => {
  it("has a row for every route and method on disk", () => {
    const missing = routesOnDisk()
      .map((r) => r.key)
      .filter((k) => !MATRIX[k]);
    expect(missing, "add these to MATRIX in test/permissions.test.ts, saying who may call them").toEqual([]);
  });

  for (const [key, row] of Object.entries(MATRIX)) {
    it(`${key}`, async () => {
      const file = routesOnDisk().find((r) => r.key === key)?.file;
      expect(file, `${key} is in the matrix but not on disk`).toBeDefined();
      const [method] = key.split(" ") as [(typeof METHODS)[number]];
      const mod = (await import(file!)) as Record<string, (req: Request, ctx: unknown) => Promise<Response>>;
      const got: Partial<Expect> = {};
      for (const who of WHO) {
        const c = row.call(fx);
        const init: RequestInit = { method };
        if (c.text !== undefined) init.body = c.text;
        else if (c.body !== undefined) init.body = JSON.stringify(c.body);
        const req = requestAs(as[who], `http://localhost:3000${c.url}`, { ...init, headers: { "content-type": "application/json", origin: "http://localhost:3000", ...c.headers } });
        const res = await mod[method]!(req, { params: Promise.resolve(c.params ?? {}) });
        got[who] = res.status;
        if (res.status >= 400 && res.headers.get("content-type")?.includes("json")) {
          const body = (await res.json()) as { error?: { code?: string } };
          expect(body.error?.code, `${key} as ${who}: an error has the JSON error shape`).toEqual(expect.any(String));
        }
      }
      expect(got).toEqual(row.expect);
    });
  }
});

describe("socket subscribe", () => {
  let http: Server;
  let gateway: RealtimeGateway;
  let url: string;
  beforeAll(async () => {
    http = createServer();
    gateway = new RealtimeGateway(http, rt.store, rt.tail, rt.identity);
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await gateway.close();
  });

  /** "connect_error" when the handshake is refused, else the subscribe ack's outcome. */
  async function subscribe(who: Who, sub: Record<string, unknown>): Promise<string> {
    const token = as[who]?.key;
    const socket = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: token ? { token } : {} });
    try {
      return await new Promise<string>((resolve) => {
        socket.on("connect_error", () => resolve("connect_error"));
        socket.on("connect", () => socket.emit("subscribe", sub, (ack: { ok: boolean; error?: { code: string } }) => resolve(ack.ok ? "ok" : ack.error!.code)));
      });
    } finally {
      socket.disconnect();
    }
  }

  const TABLE: { name: string; sub: (f: Fixtures) => Record<string, unknown>; expect: Record<Who, string> }[] = [
    { name: "a public channel", sub: (f) => ({ thread_id: f.pub }), expect: { none: "connect_error", revoked: "connect_error", guest: "unknown_thread", member: "ok", admin: "ok", agentA: "ok", agentB: "ok" } },
    { name: "a private channel", sub: (f) => ({ thread_id: f.priv }), expect: { none: "connect_error", revoked: "connect_error", guest: "unknown_thread", member: "unknown_thread", admin: "ok", agentA: "unknown_thread", agentB: "unknown_thread" } },
    { name: "a run in a private channel", sub: (f) => ({ run_id: f.run }), expect: { none: "connect_error", revoked: "connect_error", guest: "unknown_run", member: "unknown_run", admin: "ok", agentA: "unknown_run", agentB: "unknown_run" } },
    { name: "agent A's inbox", sub: () => ({ agent_id: "agent:matrix-a" }), expect: { none: "connect_error", revoked: "connect_error", guest: "not_your_agent", member: "not_your_agent", admin: "not_your_agent", agentA: "ok", agentB: "not_your_agent" } },
  ];
  for (const row of TABLE) {
    it(`subscribe to ${row.name}`, async () => {
      const got: Partial<Record<Who, string>> = {};
      for (const who of WHO) got[who] = await subscribe(who, row.sub(fx));
      expect(got).toEqual(row.expect);
    });
  }
});
