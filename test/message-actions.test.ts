/**
 * Message actions (docs/channels.md "Message actions"; docs/protocol.md "Message actions (Clutch
 * extension)"): reactions, edits, deletes and pins are events in the message's thread, run and
 * task that the fold (lib/fold/message-actions.ts) turns into the message's state; only the
 * author edits, the author or an admin deletes, the original stays in the log; pins list newest
 * first; "mark unread" moves the read mark back; actions never count as unread, start no run and
 * wake no agent; bad input stores nothing. Search forgets deleted messages and finds edited ones
 * by their current text. Real PostgreSQL, the built-in model, route handlers called as each person.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboxAnswer } from "@/lib/api/types";
import type { MarkUnreadResponse, MessageActionResponse, PinsResponse } from "@/lib/api/message-actions";
import { actionTarget, foldMessageActions } from "@/lib/fold/message-actions";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import * as eventsRoute from "@/app/api/events/route";
import * as inboxRoute from "@/app/api/inbox/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as messageRoute from "@/app/api/threads/[thread_id]/messages/[message_id]/route";
import * as reactionsRoute from "@/app/api/threads/[thread_id]/messages/[message_id]/reactions/route";
import * as pinRoute from "@/app/api/threads/[thread_id]/messages/[message_id]/pin/route";
import * as pinsRoute from "@/app/api/threads/[thread_id]/pins/route";
import * as readRoute from "@/app/api/threads/[thread_id]/read/route";
import * as unreadRoute from "@/app/api/threads/[thread_id]/read/unread/route";
import * as searchRoute from "@/app/api/search/route";
import { newThread, requestAs, testPerson, type TestPrincipal } from "./helpers";
import { scratchWorkspace, startAgents, threadEvents, waitFor } from "./agents";

let rt: Clutch;
let sales: string;
let admin: TestPrincipal;
let lee: TestPrincipal;
let kim: TestPrincipal;
let guest: TestPrincipal;
/** A unique word for this file's searches and handles. */
const tag = newId("user").slice(-8).toLowerCase().replace(/[^a-z]/g, "x");

beforeAll(async () => {
  rt = await startAgents(scratchWorkspace().dir);
  sales = rt.channels[0]!.thread_id;
  admin = await testPerson(rt, "admin", `Dana ${tag}`);
  lee = await testPerson(rt, "member", `Lee ${tag}`);
  kim = await testPerson(rt, "member", `Kim ${tag}`);
  guest = await testPerson(rt, "guest", `Gus ${tag}`);
});
afterAll(async () => {
  await rt?.stop();
});

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
interface Answer<T> {
  status: number;
  body: T & { error?: { code: string; message: string } };
}

async function call<T = MessageActionResponse>(handler: Handler, as: TestPrincipal, path: string, method: string, params: Record<string, string>, body?: unknown): Promise<Answer<T>> {
  const init: RequestInit = { method, ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}) };
  const res = await handler(requestAs(as, `http://t${path}`, init), { params: Promise.resolve(params) });
  return { status: res.status, body: (await res.json()) as Answer<T>["body"] };
}

const post = async (as: TestPrincipal, thread_id: string, text: string): Promise<StoredEvent> => {
  const res = await call<{ event: StoredEvent }>(messagesRoute.POST as Handler, as, `/api/threads/${thread_id}/messages`, "POST", { thread_id }, { text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.event;
};
const at = (thread_id: string, message_id: string) => ({ thread_id, message_id });
const base = (thread_id: string, message_id: string) => `/api/threads/${thread_id}/messages/${message_id}`;
const react = (as: TestPrincipal, m: StoredEvent, emoji: string) => call(reactionsRoute.POST as Handler, as, `${base(m.thread_id, m.id)}/reactions`, "POST", at(m.thread_id, m.id), { emoji });
const unreact = (as: TestPrincipal, m: StoredEvent, emoji: string) =>
  call(reactionsRoute.DELETE as Handler, as, `${base(m.thread_id, m.id)}/reactions?emoji=${encodeURIComponent(emoji)}`, "DELETE", at(m.thread_id, m.id));
const edit = (as: TestPrincipal, m: StoredEvent, text: string) => call(messageRoute.PATCH as Handler, as, base(m.thread_id, m.id), "PATCH", at(m.thread_id, m.id), { text });
const remove = (as: TestPrincipal, m: StoredEvent, reason?: string) => call(messageRoute.DELETE as Handler, as, base(m.thread_id, m.id), "DELETE", at(m.thread_id, m.id), reason ? { reason } : undefined);
const pin = (as: TestPrincipal, m: StoredEvent, pinned = true) => call(pinned ? (pinRoute.PUT as Handler) : (pinRoute.DELETE as Handler), as, `${base(m.thread_id, m.id)}/pin`, pinned ? "PUT" : "DELETE", at(m.thread_id, m.id));
const pins = (as: TestPrincipal, thread_id: string) => call<PinsResponse>(pinsRoute.GET as Handler, as, `/api/threads/${thread_id}/pins`, "GET", { thread_id });
const search = async (as: TestPrincipal, q: string, thread_id: string) => {
  const res = await searchRoute.GET(requestAs(as, `http://t/api/search?q=${encodeURIComponent(q)}&thread_id=${thread_id}`), undefined as never);
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: { event: StoredEvent; snippet: string; edited?: { at: string; seq: number } }[] }).results;
};
const handle = (p: TestPrincipal) => p.person!.name.replaceAll(" ", "_");
const actionsOn = async (m: StoredEvent) => (await threadEvents(rt, m.thread_id)).filter((e) => actionTarget(e) === m.id);
const messageCount = async (thread_id: string) => (await rt.store.getThread(thread_id))!.message_count;

describe("message actions", () => {
  it("reacts, edits and pins: each an event in the message's scope, folded into its state, never counted as unread", async () => {
    const t = await newThread(rt, "actions");
    const m = await post(lee, t, "Revenue was 4.1M in Q4");
    const count = await messageCount(t);

    const first = await react(kim, m, "👍");
    expect(first.status).toBe(201);
    expect(first.body.event).toMatchObject({ type: "chat.reaction", thread_id: t, run_id: m.run_id, task_id: m.task_id, from: { agent_id: kim.agent_id, role: "human" }, to: [], payload: { message_id: m.id, emoji: "👍", op: "add" } });
    // The same reaction again stores nothing.
    const again = await react(kim, m, "👍");
    expect(again.status).toBe(200);
    expect(again.body.event).toBeNull();
    expect((await react(lee, m, "👍")).status).toBe(201);
    const party = await react(lee, m, ":tada:");
    expect(party.body.message.reactions).toEqual([
      { emoji: "👍", count: 2, by: [kim.agent_id, lee.agent_id] },
      { emoji: ":tada:", count: 1, by: [lee.agent_id] },
    ]);
    const removed = await unreact(kim, m, "👍");
    expect(removed.status).toBe(201);
    expect(removed.body.message.reactions[0]).toEqual({ emoji: "👍", count: 1, by: [lee.agent_id] });
    expect((await unreact(kim, m, "👍")).body.event).toBeNull();

    // The author edits: the new text, its mentions read like a new message's.
    const edited = await edit(lee, m, `Revenue was 4.2M in Q4, @${handle(kim)} please check`);
    expect(edited.status).toBe(200);
    expect(edited.body.event).toMatchObject({ type: "chat.edit", run_id: m.run_id, task_id: m.task_id, to: [], payload: { message_id: m.id, mentions: [kim.agent_id] } });
    expect(edited.body.message).toMatchObject({ text: `Revenue was 4.2M in Q4, @${handle(kim)} please check`, mentions: [kim.agent_id], edited: { by: lee.agent_id } });
    expect(edited.body.message.edits.map((v) => v.text)).toEqual(["Revenue was 4.1M in Q4", `Revenue was 4.2M in Q4, @${handle(kim)} please check`]);

    const pinned = await pin(kim, m);
    expect(pinned.status).toBe(201);
    expect(pinned.body.message.pinned).toMatchObject({ by: kim.agent_id });
    expect((await pin(lee, m)).status).toBe(200);

    // The log holds every action, and the browser's fold of the channel's events says the same.
    const log = await actionsOn(m);
    expect(log.map((e) => e.type)).toEqual(["chat.reaction", "chat.reaction", "chat.reaction", "chat.reaction", "chat.edit", "chat.pin"]);
    expect(foldMessageActions(await threadEvents(rt, t)).get(m.id)).toEqual(pinned.body.message);
    // Six actions, and the channel's unread count did not move.
    expect(await messageCount(t)).toBe(count);

    const unpinned = await pin(kim, m, false);
    expect(unpinned.status).toBe(201);
    expect(unpinned.body.message.pinned).toBeNull();
  });

  it("lists a channel's pins newest first with each message's current state", async () => {
    const t = await newThread(rt, "pins");
    const a = await post(lee, t, "Pinned first");
    const b = await post(kim, t, "Pinned second");
    const c = await post(kim, t, "Pinned and unpinned");
    await pin(lee, a);
    await pin(lee, b);
    await pin(kim, c);
    await pin(kim, c, false);
    await edit(kim, b, "Pinned second, edited");
    const res = await pins(admin, t);
    expect(res.status).toBe(200);
    expect(res.body.pins.map((p) => p.message.id)).toEqual([b.id, a.id]);
    expect(res.body.pins[0]).toMatchObject({ message: { id: b.id, payload: { text: "Pinned second" } }, state: { text: "Pinned second, edited" }, pinned: { by: lee.agent_id } });
    // A guest who may not read the channel sees nothing of it.
    expect((await pins(guest, t)).status).toBe(404);
    // A fork's copy of a message pinned then (its pin copied too) is not the channel's pin.
    const fork = { thread_id: t, run_id: newId("run"), task_id: newId("task"), to: [] };
    const forked = (ev: StoredEvent) => ({ forked_from: { run_id: ev.run_id, seq: ev.seq, at_seq: ev.seq, ts: ev.ts } });
    await rt.store.append([
      makeMessage({ ...fork, id: c.id, type: "chat.message", from: c.from, payload: { text: "Pinned and unpinned" }, meta: forked(c) }),
      makeMessage({ ...fork, type: "chat.pin", from: { agent_id: kim.agent_id, role: "human" }, payload: { message_id: c.id, pinned: true }, meta: forked(c) }),
    ]);
    expect((await pins(admin, t)).body.pins.map((p) => p.message.id)).toEqual([b.id, a.id]);
    expect((await pins(admin, t)).body.pins.every((p) => !p.message.meta?.forked_from)).toBe(true);
  });

  it("lets only the author edit, the author or an admin delete; a delete is a tombstone", async () => {
    const t = await newThread(rt, "delete");
    const m = await post(lee, t, `Draft figures @${handle(kim)} zebra${tag}`);
    await pin(kim, m);

    const notYours = await edit(kim, m, "Kim's version");
    expect(notYours.status).toBe(403);
    expect(notYours.body.error).toMatchObject({ code: "not_author", message: expect.stringContaining("only the person who wrote a message can edit it") });
    expect((await edit(admin, m, "An admin's version")).body.error?.code).toBe("not_author");
    const kimDeletes = await remove(kim, m);
    expect(kimDeletes.status).toBe(403);
    expect(kimDeletes.body.error?.code).toBe("not_author");
    expect((await actionsOn(m)).map((e) => e.type)).toEqual(["chat.pin"]);

    // Before: Kim finds it in search and in For you.
    expect((await search(kim, `zebra${tag}`, t)).map((h) => h.event.id)).toEqual([m.id]);
    const inbox = async () => ((await (await inboxRoute.GET(requestAs(kim, "http://t/api/inbox"), undefined as never)).json()) as InboxAnswer).items;
    expect((await inbox()).some((i) => i.event_id === m.id)).toBe(true);

    const deleted = await remove(admin, m, "posted too early");
    expect(deleted.status).toBe(200);
    expect(deleted.body.event).toMatchObject({ type: "chat.delete", run_id: m.run_id, task_id: m.task_id, payload: { message_id: m.id, reason: "posted too early" } });
    expect(deleted.body.message).toMatchObject({ deleted: { by: admin.agent_id, reason: "posted too early" }, pinned: null });

    // The original is still in the log, as it was sent.
    const events = await threadEvents(rt, t);
    expect(events.find((e) => e.id === m.id)).toEqual(m);
    // Nothing applies after a delete.
    expect((await remove(lee, m)).body.error?.code).toBe("message_deleted");
    expect((await edit(lee, m, "too late")).status).toBe(409);
    expect((await react(kim, m, "👍")).body.error?.code).toBe("message_deleted");
    expect((await pin(kim, m)).body.error?.code).toBe("message_deleted");
    expect((await actionsOn(m)).map((e) => e.type)).toEqual(["chat.pin", "chat.delete"]);
    // Gone from the pins, from search and from For you.
    expect((await pins(kim, t)).body.pins).toEqual([]);
    expect(await search(kim, `zebra${tag}`, t)).toEqual([]);
    expect((await inbox()).some((i) => i.event_id === m.id)).toBe(false);

    // The author may delete their own message.
    const own = await post(kim, t, "mine to delete");
    expect((await remove(kim, own)).status).toBe(200);
  });

  it("finds an edited message by its current text only, once", async () => {
    const t = await newThread(rt, "search");
    const m = await post(lee, t, `The okapi${tag} figures are in`);
    await edit(lee, m, `The giraffe${tag} figures are in`);
    await edit(lee, m, `The giraffe${tag} and llama${tag} figures are in`);
    expect(await search(kim, `okapi${tag}`, t)).toEqual([]);
    const hits = await search(kim, `giraffe${tag}`, t);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.event.id).toBe(m.id);
    expect(hits[0]!.snippet).toContain(`llama${tag}`);
    expect(hits[0]!.edited?.seq).toBeGreaterThan(m.seq);
  });

  it("marks a channel unread from a message: the read mark moves back and the count follows", async () => {
    const t = await newThread(rt, "unread");
    const m1 = await post(kim, t, "one");
    const m2 = await post(kim, t, "two");
    const m3 = await post(kim, t, "three");
    const read = await call<{ read: { seq: number; count: number } }>(readRoute.PUT as Handler, lee, `/api/threads/${t}/read`, "PUT", { thread_id: t }, { seq: m3.seq, count: 1_000_000 });
    const total = await messageCount(t);
    expect(read.body.read).toEqual({ seq: m3.seq, count: total });

    const unread = await call<MarkUnreadResponse>(unreadRoute.POST as Handler, lee, `/api/threads/${t}/read/unread`, "POST", { thread_id: t }, { message_id: m2.id });
    expect(unread.status).toBe(200);
    expect(unread.body.read).toEqual({ seq: m2.seq - 1, count: total - 2 });
    expect((await rt.identity.readMarks.of(lee.agent_id)).get(t)).toEqual({ seq: m2.seq - 1, count: total - 2 });

    // Actions on the unread messages do not add to the count.
    await react(kim, m3, "👀");
    await edit(kim, m2, "two, edited");
    await pin(lee, m1);
    expect(await messageCount(t)).toBe(total);

    const unknown = await call(unreadRoute.POST as Handler, lee, `/api/threads/${t}/read/unread`, "POST", { thread_id: t }, { message_id: "msg_nope" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error?.code).toBe("unknown_message");
  });

  it("refuses bad input with a clear 4xx and stores nothing", async () => {
    const t = await newThread(rt, "bad");
    const m = await post(lee, t, "hello");
    const before = (await threadEvents(rt, t)).length;
    const ghost = { ...m, id: "msg_unknown" };
    const unknown = await react(kim, ghost, "👍");
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "unknown_message", message: expect.stringContaining("msg_unknown") });
    expect((await react(kim, m, "")).body.error?.code).toBe("invalid_body");
    expect((await react(kim, m, "thumbs up")).status).toBe(400);
    expect((await react(kim, m, "👍👍")).status).toBe(400);
    expect((await unreact(kim, m, "")).body.error?.code).toBe("invalid_query");
    expect((await edit(lee, m, "x".repeat(100_001))).body.error?.code).toBe("invalid_body");
    expect((await edit(lee, m, "   ")).status).toBe(400);
    // The channel's creation notice is no message to act on.
    const notice = (await threadEvents(rt, t)).find((e) => e.type === "chat.system")!;
    expect((await pin(kim, notice)).body.error?.code).toBe("unknown_message");
    // A guest not in the channel cannot see it.
    expect((await react(guest, m, "👍")).status).toBe(404);
    // A fork's copy is not edited, deleted or pinned.
    const copy = (
      await rt.store.append(
        makeMessage({ type: "chat.message", thread_id: t, run_id: newId("run"), task_id: newId("task"), from: { agent_id: lee.agent_id, role: "human" }, to: [], payload: { text: "copied" }, meta: { forked_from: { run_id: m.run_id, seq: m.seq, at_seq: m.seq, ts: m.ts } } }),
      )
    ).events[0]!;
    expect((await pin(kim, copy)).body.error?.code).toBe("copy");
    expect((await edit(lee, copy, "changed")).status).toBe(409);
    expect((await threadEvents(rt, t)).length).toBe(before + 1);
  });

  it("holds the same rules for actions appended over POST /api/events", async () => {
    const t = await newThread(rt, "raw");
    const m = await post(lee, t, "raw target");
    const raw = (as: TestPrincipal, type: "chat.edit" | "chat.delete" | "chat.reaction", payload: Record<string, unknown>, scope: Partial<StoredEvent> = {}) =>
      call<{ events: StoredEvent[] }>(eventsRoute.POST as Handler, as, "/api/events", "POST", {}, makeMessage({ type, thread_id: t, run_id: m.run_id, task_id: m.task_id, from: { agent_id: as.agent_id }, to: [], payload: { message_id: m.id, ...payload } as never, ...scope }));
    expect((await raw(kim, "chat.edit", { text: "not mine" })).body.error?.code).toBe("not_author");
    expect((await raw(kim, "chat.delete", {})).body.error?.code).toBe("not_author");
    const elsewhere = await raw(kim, "chat.reaction", { emoji: "👍", op: "add" }, { task_id: newId("task") });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error?.code).toBe("unknown_message");
    expect((await actionsOn(m))).toEqual([]);
    const ok = await raw(lee, "chat.edit", { text: "mine" });
    expect(ok.status).toBe(201);
  });
});

describe("actions and agents", () => {
  it("start no run and wake no agent, and leave a waiting question waiting", async () => {
    const request = await post(admin, sales, "Analyze last quarter's sales trends");
    const question = await waitFor(rt, sales, "pm-1's question", (evs) => evs.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.payload.expects_reply === true));
    // Let the run settle: nothing new for a second.
    let last = 0;
    for (;;) {
      const seq = (await threadEvents(rt, sales)).at(-1)!.seq;
      if (seq === last) break;
      last = seq;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const task = await rt.store.queries.task(question.task_id);
    expect(task?.state).toBe("waiting_input");
    const runs = (await rt.store.queries.runsOfThread(sales, 100)).length;

    expect((await react(lee, question, "👀")).status).toBe(201);
    expect((await pin(admin, question)).status).toBe(201);
    expect((await edit(admin, request, "Analyze last year's sales trends by region")).status).toBe(200);
    expect((await react(kim, request, "👍")).status).toBe(201);
    const acted = (await threadEvents(rt, sales)).at(-1)!.seq;

    // The actions are the channel's last events: the orchestrator and the agents did nothing with them.
    await new Promise((r) => setTimeout(r, 2000));
    await rt.orchestrator.settled();
    const after = (await threadEvents(rt, sales)).filter((e) => e.seq > last);
    expect(after.map((e) => e.type)).toEqual(["chat.reaction", "chat.pin", "chat.edit", "chat.reaction"]);
    expect(after.at(-1)!.seq).toBe(acted);
    expect((await rt.store.queries.runsOfThread(sales, 100)).length).toBe(runs);
    const still = await rt.store.queries.task(question.task_id);
    expect(still?.state).toBe("waiting_input");
    expect(still?.open_questions).toEqual(task?.open_questions);
    // An agent's message is not a person's to edit.
    expect((await edit(admin, question, "rewritten")).body.error?.code).toBe("not_author");
  }, 120_000);
});
