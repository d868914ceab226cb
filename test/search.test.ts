/**
 * Full-text search (docs/channels.md, Search), `GET /api/search` on real PostgreSQL: a figure from
 * a report and a word of a message are found with the matched words marked, run titles are found
 * through their request, heartbeats and the machinery nobody reads are not indexed, the filters
 * narrow, a private channel's events are found only by its members, and bad input is a 400.
 * What an agent said (its report) ranks above the approval and the review request that quote it,
 * the excerpt is the report as read (no markdown), a run's fork is named beside the hit rather
 * than shown again, and the box's operators (in:, from:, is:, on:) narrow or say what is wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
import type { SearchHit } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import * as searchRoute from "@/app/api/search/route";
import { forkRun } from "@/server/runs/runs";
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

describe("ranking, excerpts and forks", () => {
  const FIG = `$${Math.floor(100 + Math.random() * 800)},${W.slice(-3).replace(/\D/g, "7").padStart(3, "1")}.07`;
  const figure = FIG.slice(1);
  const REPORT = `### Profit\n\n| Region | Sales |\n| --- | ---: |\n| West | $1,200.00 |\n| **Total** | **${FIG}** |\n\nThe ${W}x quarter closed.`;
  let thread_id: string;
  let thread_name: string;
  let run_id: string;
  let report_id: string;
  const pm = { agent_id: "agent:pm-1", role: "worker", display_name: "PM One" } as const;
  beforeAll(async () => {
    thread_id = await channel();
    thread_name = (await rt.store.queries.threadNames([thread_id])).get(thread_id)!;
    run_id = newId("run");
    const root = newId("task");
    const at = { thread_id, run_id, task_id: root };
    const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator" } as const;
    const report = msg("task.result", { summary: "Q4 profit report", report_markdown: REPORT }, { ...at, from: pm });
    report_id = report.id;
    await rt.store.append([
      msg("task.request", { title: `Profit ${W}x`, instructions: "Sum it up" }, { ...at, from: { agent_id: admin.agent_id, role: "human" }, to: [pm] }),
      report,
      // The wrappers that quote it come later (newer), and would win a tie.
      msg("task.request", { title: "Review the report of pm-1", instructions: "Check the figures", input: { result: { report_markdown: REPORT } } }, { ...at, task_id: newId("task"), parent_task_id: root, from: orchestrator, to: [{ agent_id: "agent:reviewer-1", role: "worker" }] }),
      msg(
        "approval.requested",
        { approval_id: newId("task"), subject: { kind: "tool_call", agent: "agent:pm-1", tool: "send_report" }, approvers: "any", summary: "pm-1 wants to send the report", preview: REPORT, expires_at: new Date(Date.now() + 3_600_000).toISOString() },
        { ...at, from: orchestrator },
      ),
    ]);
  });

  const ofRun = (hits: SearchHit[]) => hits.filter((h) => h.event.thread_id === thread_id);

  it("ranks the report above the approval and the review request that quote it, with the figure marked in plain text", async () => {
    const { status, body } = await search(member, { q: `"${figure}"` });
    expect(status).toBe(200);
    const hits = ofRun(body.results!);
    expect(hits.map((h) => h.event.type)).toEqual(["task.result", expect.any(String), expect.any(String)]);
    expect(hits.slice(1).map((h) => h.event.type).sort()).toEqual(["approval.requested", "task.request"]);
    const [first] = hits;
    expect(first!.event.id).toBe(report_id);
    expect(first!.tier).toBe(0);
    expect(hits.slice(1).every((h) => h.tier === 2)).toBe(true);
    expect(first!.snippet).not.toMatch(/[|*#]/);
    expect(first!.snippet).toMatch(/Total · \$«[\d,.«»]+»/);
    expect(first!.snippet.replace(/[«»]/g, "")).toContain(`Total · ${FIG}`);
  });

  it("shows an event and its fork's copy once, naming the fork", async () => {
    const events = (await search(admin, { q: `"${figure}"` })).body.results!;
    const lastSeq = Math.max(...ofRun(events).map((h) => h.event.seq));
    const fork = await forkRun(rt.store, run_id, lastSeq);
    const hits = ofRun((await search(member, { q: `"${figure}"` })).body.results!);
    expect(hits).toHaveLength(3);
    expect(hits.every((h) => h.event.run_id === run_id)).toBe(true);
    expect(hits[0]!.event.id).toBe(report_id);
    expect(hits[0]!.also_in).toEqual([{ run_id: fork.run_id, run_title: expect.stringMatching(/fork at #/) }]);
  });

  it("narrows by the box's operators: in:#channel, from:agent, from:@person, is:, on:", async () => {
    const q = async (text: string) => (await search(member, { q: text })).body.results!;
    expect((await q(`"${figure}" in:#${thread_name}`)).map((h) => h.event.type)[0]).toBe("task.result");
    expect(await q(`"${figure}" in:#${(await rt.store.queries.threadNames([await channel()])).values().next().value}`)).toEqual([]);
    expect((await q(`"${figure}" from:pm-1`)).map((h) => h.event.id)).toEqual([report_id]);
    expect(ofRun(await q(`${W}x from:@ada`)).map((h) => h.event.type)).toEqual(["task.request"]);
    expect(ofRun(await q(`"${figure}" is:approval`)).map((h) => h.event.type)).toEqual(["approval.requested"]);
    expect(ofRun(await q(`"${figure}" is:result on:today`)).map((h) => h.event.id)).toEqual([report_id]);
    expect(await q(`"${figure}" before:2020-01-01`)).toEqual([]);
    // Operators alone list the newest of what they allow.
    expect(ofRun(await q(`in:#${thread_name} is:result`)).map((h) => h.event.id)).toEqual([report_id]);
  });

  it("answers 400 naming the operator when its value is wrong or names nothing", async () => {
    for (const [text, message] of [
      [`${W} before:soon`, /^q: before: takes a day as YYYY-MM-DD/],
      [`${W} is:banana`, /^q: is: takes one of result/],
      [`${W} in:#no-such-channel-${W}`, /^q: in:#no-such-channel-\S+: there is no channel/],
      [`${W} from:nobody-${W}`, /^q: from:nobody-\S+: no agent or person is called/],
      [`${W} from:@nobody${W}`, /^q: from:@nobody\S+: nobody here is called/],
    ] as const) {
      const { status, body } = await search(member, { q: text });
      expect(status, text).toBe(400);
      expect(body.error?.code).toBe("invalid_query");
      expect(body.error?.message, text).toMatch(message);
    }
  });
});
