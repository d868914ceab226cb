/**
 * Who answers (docs/channels.md "Who answers"): in a channel agents answer when addressed (an
 * @agent or @capability mention); a channel whose entry agent answers `every_message` takes every
 * new top-level message, unless the person sends it as plain chat (`chat_only`); in a DM with an
 * agent every message is for it; an admin changes the setting and the channel reads who did.
 * A reply in a thread may be sent to the channel too (`also_in_channel`). Real PostgreSQL, the
 * built-in model.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThreadSummary, WorkspaceChannel } from "@/lib/api/types";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { inConversation } from "@/lib/conversation";
import type { Clutch } from "@/server/clutch";
import * as threadRoute from "@/app/api/threads/[thread_id]/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as workspaceRoute from "@/app/api/workspace/route";
import * as dmsRoute from "@/app/api/dms/route";
import { asAdmin, requestAs, testPerson, type TestPrincipal } from "./helpers";
import { scratchWorkspace, startAgents, waitFor } from "./agents";

let rt: Clutch;
let thread_id: string;
let channel: string;
beforeAll(async () => {
  // The example's channel, with the workspace's default: agents answer when @mentioned.
  const ws = scratchWorkspace();
  const file = path.join(ws.dir, "workspace.json");
  const config = JSON.parse(fs.readFileSync(file, "utf8")) as { channels: Record<string, unknown>[] };
  delete config.channels[0]!.answers;
  fs.writeFileSync(file, JSON.stringify(config));
  channel = ws.channel;
  rt = await startAgents(ws.dir);
  thread_id = rt.channels.find((c) => c.name === channel)!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
});

const send = (body: unknown, as?: TestPrincipal, to = thread_id) => {
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  return (as ? Promise.resolve(requestAs(as, `http://t/api/threads/${to}/messages`, init)) : asAdmin(`http://t/api/threads/${to}/messages`, init)).then((req) =>
    messagesRoute.POST(req, { params: Promise.resolve({ thread_id: to }) }),
  );
};
const sent = async (body: unknown, as?: TestPrincipal, to = thread_id): Promise<StoredEvent> => {
  const res = await send(body, as, to);
  expect(res.status).toBe(201);
  return ((await res.json()) as { event: StoredEvent }).event;
};
const patch = async (body: unknown, as?: TestPrincipal) => {
  const init = { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const req = as ? requestAs(as, `http://t/api/threads/${thread_id}`, init) : await asAdmin(`http://t/api/threads/${thread_id}`, init);
  const res = await threadRoute.PATCH(req, { params: Promise.resolve({ thread_id }) });
  return { status: res.status, body: (await res.json()) as { thread: ThreadSummary; error?: { code: string; message: string } } };
};
/** The run a message opened, once the orchestrator has handled every message before `marker` (reactions run in seq order). */
const openedBy = async (message: StoredEvent, marker: StoredEvent) => {
  await waitFor(rt, thread_id, `the run of ${marker.id}`, (events) => events.find((e) => isEvent(e, "task.request") && (e.payload.input as { message_id?: string })?.message_id === marker.id));
  return rt.store.queries.eventByIdempotencyKey(`open-run:${message.id}`);
};
const answersOf = async () => {
  const res = await workspaceRoute.GET(await asAdmin("http://t/api/workspace"), undefined as never);
  return ((await res.json()) as { channels: WorkspaceChannel[] }).channels.find((c) => c.thread_id === thread_id)!.answers;
};

describe("who answers a new message in a channel", () => {
  it("agents answer when @mentioned: a plain message is people talking, a mention starts a run", async () => {
    expect(await answersOf()).toBe("mentions");
    const chat = await sent({ text: "Back after the restart?" });
    expect(chat.to).toEqual([]);
    const asked = await sent({ text: "@pm-1 Analyze last quarter's sales trends" });
    expect(await openedBy(chat, asked)).toBeNull();
    expect(await rt.store.queries.eventByIdempotencyKey(`open-run:${asked.id}`)).not.toBeNull();
  });

  it("an admin makes the entry agent answer every message; plain chat still asks nobody; a member cannot change it", async () => {
    const member = await testPerson(rt, "member", "Mo Member");
    const refused = await patch({ answers: "every_message" }, member);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toMatch(/only an admin/);
    expect(await answersOf()).toBe("mentions");

    const changed = await patch({ answers: "every_message" });
    expect(changed.status).toBe(200);
    expect(changed.body.thread.answers).toBe("every_message");
    expect(await answersOf()).toBe("every_message");
    // The channel reads who changed it, in people's words.
    const notice = await waitFor(rt, thread_id, "the audit line", (events) => events.find((e) => isEvent(e, "audit.change") && e.payload.action === "channel.answers_changed"));
    expect(isEvent(notice, "audit.change") && notice.payload.summary).toBe("set the channel so that Project Manager answers every new message");

    const chat = await sent({ text: "Lunch at noon?", chat_only: true }, member);
    expect(chat.to).toEqual([{ agent_id: "user" }]);
    const asked = await sent({ text: "Analyze last quarter's sales trends" }, member);
    expect(await openedBy(chat, asked)).toBeNull();
    expect(await rt.store.queries.eventByIdempotencyKey(`open-run:${asked.id}`)).not.toBeNull();

    expect((await patch({ answers: "sometimes" })).status).toBe(400);
    expect((await patch({})).body.error?.message).toMatch(/visibility or answers/);
    expect((await patch({ answers: "mentions" })).body.thread.answers).toBe("mentions");
  });

  it("rejects chat_only on a reply and also_in_channel on a new message, storing nothing", async () => {
    const stored = async () => (await rt.store.readAll({ thread_id })).filter((e) => isEvent(e, "chat.message") && e.payload.text === "hi").length;
    const a = await send({ text: "hi", chat_only: true, reply_to: "msg_x" });
    expect(a.status).toBe(400);
    expect(((await a.json()) as { error: { message: string } }).error.message).toMatch(/chat_only is for a new message/);
    const b = await send({ text: "hi", also_in_channel: true });
    expect(b.status).toBe(400);
    expect(await stored()).toBe(0);
  });

  it("a reply stays in its thread unless it is also sent to the channel", async () => {
    const root = await sent({ text: "Who has the Q3 deck?", chat_only: true });
    const inThread = await sent({ text: "I do", reply_to: root.id });
    const both = await sent({ text: "Sharing it now", reply_to: root.id, also_in_channel: true });
    expect(inConversation(inThread)).toBe(false);
    expect(isEvent(both, "chat.message") && both.payload.also_in_channel).toBe(true);
    expect(inConversation(both)).toBe(true);
  });
});

describe("who answers in a direct message with an agent", () => {
  it("every message is for the agent, whatever the channels' setting; the setting cannot be changed there", async () => {
    const res = await dmsRoute.POST(await asAdmin("http://t/api/dms", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ with: "agent:pm-1" }) }), undefined as never);
    const dm = ((await res.json()) as { thread: ThreadSummary }).thread.id;
    const msg = await sent({ text: "Analyze last quarter's sales trends" }, undefined, dm);
    await waitFor(rt, dm, "the DM's run", (events) => events.find((e) => isEvent(e, "task.request") && (e.payload.input as { message_id?: string })?.message_id === msg.id));
    const init = { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ answers: "mentions" }) };
    const refused = await threadRoute.PATCH(await asAdmin(`http://t/api/threads/${dm}`, init), { params: Promise.resolve({ thread_id: dm }) });
    expect(refused.status).toBe(409);
  });
});
