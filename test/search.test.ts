/**
 * Full-text search (docs/channels.md, Search), `GET /api/search` on real PostgreSQL: a figure from
 * a report and a word of a message are found with the matched words marked, run titles are found
 * through their request, heartbeats and the machinery nobody reads are not indexed, the filters
 * narrow, a private channel's events are found only by its members, and bad input is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
import type { SearchHit } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import * as searchRoute from "@/app/api/search/route";
import { chat, msg, requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let admin: TestPrincipal;
let member: TestPrincipal;
/** A word no other test writes, so hits are this file's. */
const W = `zq${newId("user").slice(-8).toLowerCase()}`;

beforeAll(async () => {
  rt = await testClutch();
  admin = await testPerson(rt, "admin", "Ada Admin");
  member = await testPerson(rt, "member", "Mo Member");
});
afterAll(() => rt.stop());

const channel = async (visibility: "public" | "private" = "public") =>
  (await rt.store.createThread({ name: `srch-${newId("thread").slice(-10).toLowerCase()}`, visibility }, { agent_id: admin.agent_id, display_name: "Ada Admin" })).id;

async function search(as: TestPrincipal, params: Record<string, string>) {
  const res = await searchRoute.GET(requestAs(as, `http://localhost:3000/api/search?${new URLSearchParams(params)}`));
  return { status: res.status, body: (await res.json()) as { results?: SearchHit[]; error?: { code: string; message: string } } };
}

describe("GET /api/search", () => {
  let thread_id: string;
  let run_id: string;
  beforeAll(async () => {
    thread_id = await channel();
    run_id = newId("run");
    const root = newId("task");
    const pm = { agent_id: "agent:pm-1", role: "worker" } as const;
    await rt.store.append([
      msg("task.request", { title: `Quarterly ${W} review`, instructions: "Look at Q4" }, { thread_id, run_id, task_id: root, from: { agent_id: admin.agent_id, role: "human" }, to: [pm] }),
      chat(`The ${W} numbers are in, the Central region leads`, { thread_id, run_id, task_id: root, from: pm, to: [{ agent_id: "user", role: "human" }] }),
      msg("tool.call", { call_id: "c1", tool: "query_data", arguments: { note: W } }, { thread_id, run_id, task_id: root, from: pm }),
      msg("tool.result", { call_id: "c1", tool: "query_data", result: { rows: [[W, 42]] } }, { thread_id, run_id, task_id: root, from: pm }),
      msg("task.result", { summary: `Revenue ${W} grew 12.5% to $4,210,000` }, { thread_id, run_id, task_id: root, from: pm }),
      msg("agent.heartbeat", { agent_id: "agent:pm-1", status: "online", note: W }, { thread_id, run_id, task_id: root, from: pm }),
    ]);
  });

  it("finds a figure from a report, with the match marked, its channel and its run's title", async () => {
    const { status, body } = await search(member, { q: `"4,210,000" ${W}` });
    expect(status).toBe(200);
    expect(body.results).toHaveLength(1);
    const [hit] = body.results!;
    expect(hit!.event).toMatchObject({ type: "task.result", run_id, thread_id });
    expect(hit!.snippet).toContain("«4»,«210»,«000»");
    expect(hit!.thread_name).toMatch(/^srch-/);
    expect(hit!.run_title).toBe(`Quarterly ${W} review`);
  });

  it("finds messages, run titles and tool results by a word, never heartbeats or tool calls", async () => {
    const { body } = await search(member, { q: W });
    expect(body.results!.map((h) => h.event.type).sort()).toEqual(["chat.message", "task.request", "task.result", "tool.result"]);
    const message = body.results!.find((h) => h.event.type === "chat.message")!;
    expect(message.snippet).toContain(`«${W}» numbers`);
  });

  it("narrows by type, sender, channel and date", async () => {
    expect((await search(member, { q: W, type: "chat.message" })).body.results!.map((h) => h.event.type)).toEqual(["chat.message"]);
    expect((await search(member, { q: W, agent: admin.agent_id })).body.results!.map((h) => h.event.type)).toEqual(["task.request"]);
    expect((await search(member, { q: W, thread_id: await channel() })).body.results).toEqual([]);
    expect((await search(member, { q: W, before: "2020-01-01" })).body.results).toEqual([]);
    expect((await search(member, { q: W, after: "2020-01-01" })).body.results).toHaveLength(4);
  });

  it("finds a private channel's events only for its members", async () => {
    const secret = await channel("private");
    const word = `${W}secret`;
    await rt.store.append(chat(`The ${word} plan`, { thread_id: secret, run_id: newId("run"), from: { agent_id: admin.agent_id, role: "human" } }));
    expect((await search(admin, { q: word })).body.results).toHaveLength(1);
    expect((await search(member, { q: word })).body.results).toEqual([]);
    const named = await search(member, { q: word, thread_id: secret });
    expect(named.status).toBe(404);
    expect(named.body.error?.code).toBe("unknown_thread");
  });

  it("answers 400 with the field for a query it cannot run, and nothing for punctuation alone", async () => {
    const bad: Record<string, string>[] = [{ q: "   " }, { q: W, type: "task.nope" }, { q: W, after: "yesterday" }, { q: W, limit: "500" }, { q: "x".repeat(201) }];
    for (const params of bad) {
      const { status, body } = await search(member, params);
      expect(status, JSON.stringify(params)).toBe(400);
      expect(body.error?.code).toBe("invalid_query");
    }
    expect((await search(member, { q: "«»!!" })).body.results).toEqual([]);
  });
});
