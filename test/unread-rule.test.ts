/**
 * The unread rule (lib/unread.ts) counts what a person sees in the channel, and its two forms
 * agree: `countsAsUnread` (which keeps the channel's `message_count` as events are appended)
 * and `unreadSql` (which "Mark unread" counts with, server/events/read-marks.ts). Real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { conversationIds } from "@/lib/conversation";
import { countsAsUnread } from "@/lib/unread";
import type { Clutch } from "@/server/clutch";
import { testClutch } from "./helpers";

let rt: Clutch;
beforeAll(async () => {
  rt = await testClutch();
});
afterAll(async () => {
  await rt?.stop();
});

const lee = { agent_id: "user:lee", role: "human", display_name: "Lee" } as const;
const pm = { agent_id: "agent:lead-1", role: "worker" } as const;
const calc = { agent_id: "agent:calc-1", role: "worker" } as const;

describe("what counts as unread", () => {
  it("counts people's new messages, replies sent to the channel too, agents' words to people and notices; not thread replies, machinery, agent-to-agent talk, copies or actions", async () => {
    const thread = await rt.store.createThread({ name: `unread-${Date.now()}` }, { agent_id: "system", display_name: "Clutch" });
    const conv = { thread_id: thread.id, ...conversationIds(thread.id), parent_task_id: null };
    const run = { thread_id: thread.id, run_id: "run_unread1", task_id: "task_unread1", parent_task_id: null };
    const chat = (at: typeof conv, from: ClutchMessage["from"], to: ClutchMessage["to"], payload: Record<string, unknown>, meta?: Record<string, unknown>) =>
      makeMessage({ type: "chat.message", ...at, from, to, payload: { text: "t", ...payload }, ...(meta ? { meta } : {}) });
    const [asked] = (await rt.store.append(chat(conv, lee, [], { text: "Q4 revenue by region?" }))).events as StoredEvent[]; // counts
    const batch: ClutchMessage[] = [
      makeMessage({ type: "task.request", ...run, from: { agent_id: "agent:orchestrator", role: "orchestrator" }, to: [pm], payload: { title: "Q4", input: { message_id: asked!.id } } }),
      chat(run, pm, [{ agent_id: "user" }], { text: "Regions or segments?", expects_reply: true }), // counts
      chat(run, lee, [pm], { text: "Regions", reply_to: "x" }), // an answer in the thread: no
      chat(run, lee, [pm], { text: "Regions, shared", reply_to: "x", also_in_channel: true }), // counts
      chat(run, pm, [calc], { text: "Split by region" }), // agents talking: no
      chat(run, pm, [], { text: "Report" }), // counts
      chat(conv, lee, [{ agent_id: "user" }], { text: "Lunch?" }), // plain chat: counts
      chat(conv, lee, [], { text: "Me too", reply_to: "y" }), // a thread reply: no
      chat(run, pm, [{ agent_id: "user" }], { text: "Copied" }, { forked_from: { run_id: "run_src", seq: 1 } }), // a fork's copy: no
      makeMessage({ type: "chat.system", ...conv, from: { agent_id: "system", role: "system" }, to: [], payload: { text: "Lee joined" } }), // counts
      makeMessage({ type: "task.result", ...run, from: pm, to: [], payload: { summary: "done" } }), // no
    ];
    await rt.store.append(batch);
    const events = await rt.store.readAll({ thread_id: thread.id });
    const expected = events.filter((e) => countsAsUnread(e)).length;
    expect(expected).toBe(6);
    // The channel's count, kept by the append path.
    expect((await rt.store.getThread(thread.id))!.message_count).toBe(expected);
    // The SQL form: marking unread from the first event leaves none of them read.
    const first = events[0]!;
    const mark = await rt.identity.readMarks.markUnreadFrom("user:lee", thread.id, first.seq);
    expect(mark).toEqual({ seq: first.seq - 1, count: 0 });
    // From the report on: the report and the two after it that count (plain chat, the notice).
    const report = events.find((e) => isEvent(e, "chat.message") && e.payload.text === "Report")!;
    const fromReport = await rt.identity.readMarks.markUnreadFrom("user:lee", thread.id, report.seq);
    expect(fromReport!.count).toBe(expected - 3);
  });
});
