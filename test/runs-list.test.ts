/**
 * The runs list (`GET /api/runs`, docs/channels.md "Runs"): runs of every channel the caller may
 * read, newest first, with their number in the channel and who asked; filtered by status,
 * waiting on me, channel, agent and requester; paged with `before`; a private channel's runs are
 * never listed to someone who may not read it; a bad query is a 400 naming the field. Runs are
 * told as events (as the agents would), on real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunList } from "@/lib/api/types";
import { newId, type ClutchMessage } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { SYSTEM } from "@/server/auth/principal";
import * as runsRoute from "@/app/api/runs/route";
import * as threadRunsRoute from "@/app/api/threads/[thread_id]/runs/route";
import { msg, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let dana: TestPrincipal;
let lee: TestPrincipal;
let admin: TestPrincipal;
/** The public channel of the test's runs, and a private one only Lee was added to. */
let A: string;
let P: string;
/** r1 ended (Dana asked, through the orchestrator), r2 running (Lee), r3 waits on Dana's answer, r4 on an admin's approval (Lee asked), r5 in the private channel waits on the channel. */
const r = { r1: newId("run"), r2: newId("run"), r3: newId("run"), r4: newId("run"), r5: newId("run") };

const pm = { agent_id: "agent:pm-1", role: "worker" } as const;
const analyst = { agent_id: "agent:analyst-1", role: "worker" } as const;
const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator" } as const;
const base = Date.now() - 3_600_000;
let tick = 0;
/** Each event a second after the one before, so the runs start in the order they are told. */
const at = (m: ClutchMessage): ClutchMessage => ({ ...m, ts: new Date(base + ++tick * 1000).toISOString() });

const list = async (as: TestPrincipal, query: string) => {
  const res = await runsRoute.GET(requestAs(as, `http://t/api/runs?${query}`));
  return { status: res.status, body: (await res.json()) as RunList & { error?: { code: string; message: string } } };
};
const ids = (body: RunList) => body.runs.map((run) => run.run_id);
/** Every run `as` may list with `query`, page after page (other test files add runs to the shared database meanwhile). */
const everyId = async (as: TestPrincipal, query: string): Promise<string[]> => {
  const out: string[] = [];
  let before = "";
  for (;;) {
    const page = (await list(as, `${query ? `${query}&` : ""}limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`)).body;
    out.push(...ids(page));
    if (!page.next_cursor) return out;
    before = page.next_cursor;
  }
};

beforeAll(async () => {
  rt = await testClutch();
  dana = await testPerson(rt, "member", "Dana");
  lee = await testPerson(rt, "member", "Lee");
  admin = await testPerson(rt, "admin", "Ada");
  A = (await rt.store.createThread({ name: `runs-${newId("thread").slice(-10).toLowerCase()}` }, { agent_id: admin.agent_id })).id;
  P = (await rt.store.createThread({ name: `runs-p-${newId("thread").slice(-10).toLowerCase()}`, visibility: "private" }, { agent_id: "user:nobody" })).id;
  await rt.identity.addMember(SYSTEM, P, lee.agent_id);
  const asDana = { agent_id: dana.agent_id, role: "human" } as const;
  const asLee = { agent_id: lee.agent_id, role: "human" } as const;

  const t1 = newId("task");
  await rt.store.append(
    [
      msg("task.request", { title: "Weekly revenue", input: { message_id: "m1", from: asDana } }, { thread_id: A, run_id: r.r1, task_id: t1, from: orchestrator, to: [pm] }),
      msg("task.accept", {}, { thread_id: A, run_id: r.r1, task_id: t1, from: pm }),
      msg("task.result", { summary: "Revenue grew 4%" }, { thread_id: A, run_id: r.r1, task_id: t1, from: pm }),
    ].map(at),
  );
  const t2 = newId("task");
  await rt.store.append(
    [
      msg("task.request", { title: "Clean the CRM export" }, { thread_id: A, run_id: r.r2, task_id: t2, from: asLee, to: [analyst] }),
      msg("task.accept", {}, { thread_id: A, run_id: r.r2, task_id: t2, from: analyst }),
    ].map(at),
  );
  const t3 = newId("task");
  await rt.store.append(
    [
      msg("task.request", { title: "Weekly revenue" }, { thread_id: A, run_id: r.r3, task_id: t3, from: asDana, to: [pm] }),
      msg("task.accept", {}, { thread_id: A, run_id: r.r3, task_id: t3, from: pm }),
      msg("chat.message", { text: "Which region first?", expects_reply: true }, { thread_id: A, run_id: r.r3, task_id: t3, from: pm, to: [asDana] }),
    ].map(at),
  );
  const t4 = newId("task");
  const t4child = newId("task");
  await rt.store.append(
    [
      msg("task.request", { title: "Send the board the forecast" }, { thread_id: A, run_id: r.r4, task_id: t4, from: asLee, to: [pm] }),
      msg("task.accept", {}, { thread_id: A, run_id: r.r4, task_id: t4, from: pm }),
      msg("task.request", { title: "Forecast Q4" }, { thread_id: A, run_id: r.r4, task_id: t4child, parent_task_id: t4, from: pm, to: [analyst] }),
      msg(
        "approval.requested",
        {
          approval_id: `apr_${r.r4}`,
          subject: { kind: "tool_call", agent: "agent:pm-1", tool: "reply" },
          summary: "pm-1 will send the board a message",
          approvers: ["role:admin"],
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
        { thread_id: A, run_id: r.r4, task_id: t4, from: { agent_id: "agent:policy", role: "system" } },
      ),
    ].map(at),
  );
  const t5 = newId("task");
  await rt.store.append(
    [
      msg("task.request", { title: "Salaries by team" }, { thread_id: P, run_id: r.r5, task_id: t5, from: asLee, to: [pm] }),
      msg("task.accept", {}, { thread_id: P, run_id: r.r5, task_id: t5, from: pm }),
      msg("chat.message", { text: "Gross or net?", expects_reply: true }, { thread_id: P, run_id: r.r5, task_id: t5, from: pm, to: [{ agent_id: "user", role: "human" }] }),
    ].map(at),
  );
});
afterAll(async () => {
  await rt?.stop();
});

describe("GET /api/runs", () => {
  it("lists a channel's runs newest first, numbered in the channel, with who asked, their agents and status", async () => {
    const { status, body } = await list(dana, `channel=${A}`);
    expect(status).toBe(200);
    expect(ids(body)).toEqual([r.r4, r.r3, r.r2, r.r1]);
    expect(body.next_cursor).toBeNull();
    const byId = new Map(body.runs.map((run) => [run.run_id, run]));
    // Two runs share a title; their numbers tell them apart.
    expect(byId.get(r.r1)).toMatchObject({ run_number: 1, title: "Weekly revenue", requester: dana.agent_id, status: "succeeded", agents: ["agent:pm-1"] });
    expect(byId.get(r.r3)).toMatchObject({ run_number: 3, title: "Weekly revenue", requester: dana.agent_id, status: "waiting" });
    expect(byId.get(r.r2)).toMatchObject({ run_number: 2, requester: lee.agent_id, status: "running", agents: ["agent:analyst-1"] });
    expect(byId.get(r.r4)).toMatchObject({ run_number: 4, requester: lee.agent_id, status: "waiting", agents: ["agent:analyst-1", "agent:pm-1"] });
    // The channel's own list carries the same numbers.
    const res = await threadRunsRoute.GET(requestAs(dana, `http://t/api/threads/${A}/runs`), { params: Promise.resolve({ thread_id: A }) });
    expect(((await res.json()) as RunList).runs.map((run) => run.run_number)).toEqual([1, 2, 3, 4]);
  });

  it("filters by status, agent and requester in any combination", async () => {
    expect(ids((await list(dana, `channel=${A}&status=waiting`)).body)).toEqual([r.r4, r.r3]);
    expect(ids((await list(dana, `channel=${A}&status=running`)).body)).toEqual([r.r2]);
    expect(ids((await list(dana, `channel=${A}&status=ended`)).body)).toEqual([r.r1]);
    expect(ids((await list(dana, `channel=${A}&status=active`)).body)).toEqual([r.r4, r.r3, r.r2]);
    expect(ids((await list(dana, `channel=${A}&agent=agent:analyst-1`)).body)).toEqual([r.r4, r.r2]);
    expect(ids((await list(dana, `channel=${A}&requester=${lee.agent_id}`)).body)).toEqual([r.r4, r.r2]);
    // Dana asked for r1 through the orchestrator (its request names her as `input.from`).
    expect(ids((await list(dana, `channel=${A}&requester=${dana.agent_id}`)).body)).toEqual([r.r3, r.r1]);
    expect(ids((await list(dana, `channel=${A}&requester=${lee.agent_id}&agent=agent:pm-1&status=waiting`)).body)).toEqual([r.r4]);
    expect(ids((await list(dana, `channel=${A}&agent=agent:nobody`)).body)).toEqual([]);
  });

  it("waiting_on_me lists the runs that wait on the caller: Dana's question for her, the admin's approval for an admin, nothing for Lee", async () => {
    expect(ids((await list(dana, `channel=${A}&waiting_on_me=true`)).body)).toEqual([r.r3]);
    expect(ids((await list(admin, `channel=${A}&waiting_on_me=true`)).body)).toEqual([r.r4]);
    expect(ids((await list(lee, `channel=${A}&waiting_on_me=true`)).body)).toEqual([]);
    // Lee is in the private channel, whose question is to everyone there.
    expect(ids((await list(lee, "waiting_on_me=true")).body)).toContain(r.r5);
    // Waiting on me and ended at once: nothing.
    expect(ids((await list(dana, `channel=${A}&waiting_on_me=true&status=ended`)).body)).toEqual([]);
  });

  it("never lists a run of a private channel to someone who may not read it", async () => {
    const mine = await everyId(dana, "");
    expect(mine).toEqual(expect.arrayContaining([r.r1, r.r2, r.r3, r.r4]));
    expect(mine).not.toContain(r.r5);
    expect(await everyId(dana, "waiting_on_me=true")).not.toContain(r.r5);
    expect(await everyId(admin, "")).not.toContain(r.r5); // admins too: private stays private
    const named = await list(dana, `channel=${P}`);
    expect(named.status).toBe(404);
    expect(named.body.error?.code).toBe("unknown_thread");
    expect(ids((await list(lee, `channel=${P}`)).body)).toEqual([r.r5]);
  });

  it("pages with before = next_cursor until next_cursor is null", async () => {
    const first = await list(dana, `channel=${A}&limit=3`);
    expect(ids(first.body)).toEqual([r.r4, r.r3, r.r2]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await list(dana, `channel=${A}&limit=3&before=${encodeURIComponent(first.body.next_cursor!)}`);
    expect(ids(second.body)).toEqual([r.r1]);
    expect(second.body.next_cursor).toBeNull();
    // Exactly a page full: the next page is empty and ends the list.
    const two = await list(dana, `channel=${A}&limit=2&status=waiting`);
    expect(ids(two.body)).toEqual([r.r4, r.r3]);
    const rest = await list(dana, `channel=${A}&limit=2&status=waiting&before=${encodeURIComponent(two.body.next_cursor ?? "")}`);
    expect(two.body.next_cursor === null || (rest.body.runs.length === 0 && rest.body.next_cursor === null)).toBe(true);
  });

  it("answers a bad query with 400 invalid_query naming the field", async () => {
    for (const [query, field] of [
      ["status=done", "status"],
      ["waiting_on_me=yes", "waiting_on_me"],
      ["limit=0", "limit"],
      ["limit=many", "limit"],
      ["before=yesterday", "before"],
      ["colour=red", "colour"],
    ] as const) {
      const { status, body } = await list(dana, query);
      expect(status, query).toBe(400);
      expect(body.error?.code, query).toBe("invalid_query");
      expect(body.error?.message, query).toContain(field);
    }
    const agent = await testAgent(rt, `agent:lister-${newId("user").slice(-6).toLowerCase()}`);
    const asAgent = await list(agent, "waiting_on_me=true");
    expect(asAgent.status).toBe(400);
    expect(asAgent.body.error?.message).toMatch(/^waiting_on_me: /);
    expect((await list(agent, `channel=${A}`)).body.runs).toHaveLength(4);
  });
});
