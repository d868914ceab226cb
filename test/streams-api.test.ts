/**
 * The streaming HTTP API (server/streams/api.ts; docs/adapters.md "Streaming replies"): the route
 * handlers called with real Requests against real PostgreSQL, as test/api.test.ts does.
 *
 * - an agent's key starts a stream in a channel, appends three chunks (the hub's listeners hear
 *   three growing deltas) and stops it with its final text: one chat.message with meta.stream_id;
 *   a retried stop stores nothing twice; an append after the stop is 409 stream_ended;
 * - a reply keeps to/reply_to/run as opened; a start the append authorizer refuses stores and
 *   opens nothing;
 * - another key may neither append to nor stop it (403), an unknown id is 404;
 * - each call is one write against the key's limit, however much text it carries;
 * - a person's Stop inside a run (the run's requester): the text so far from the agent with
 *   meta.stopped_by and the task's task.cancel, in one append; a member who is neither requester
 *   nor admin is 403, naming who may; an admin's Stop of a stream with no text yet only cancels.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { HubEvent } from "@/server/streams/hub";
import type { Clutch } from "@/server/clutch";
import * as startRoute from "@/app/api/streams/route";
import * as appendRoute from "@/app/api/streams/[stream_id]/append/route";
import * as stopRoute from "@/app/api/streams/[stream_id]/stop/route";
import { newThread, requestAs, taskRow, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let admin: TestPrincipal;
let requester: TestPrincipal;
let member: TestPrincipal;
let writer: TestPrincipal;
let stranger: TestPrincipal;
let thread_id: string;

beforeAll(async () => {
  rt = await testClutch();
  admin = await testPerson(rt, "admin", "Ada Admin");
  requester = await testPerson(rt, "member", "Dana Whitfield");
  member = await testPerson(rt, "member", "Mo Member");
  writer = await testAgent(rt, `agent:streamer-${newId("task").slice(-6).toLowerCase()}`);
  stranger = await testAgent(rt, `agent:stranger-${newId("task").slice(-6).toLowerCase()}`);
  thread_id = await newThread(rt, "streams");
});
afterAll(() => rt.stop());

type Body = Record<string, unknown> & { error?: { code: string; message: string } };
type Handler = (req: Request, ctx: { params?: Promise<Record<string, string>> }) => Promise<Response>;

async function call(handler: Handler, as: TestPrincipal, url: string, body?: unknown, params: Record<string, string> = {}): Promise<{ status: number; body: Body }> {
  const init = { method: "POST", headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
  const res = await handler(requestAs(as, `http://localhost:3000${url}`, init), { params: Promise.resolve(params) });
  return { status: res.status, body: (await res.json()) as Body };
}

const start = (as: TestPrincipal, body: unknown) => call(startRoute.POST, as, "/api/streams", body);
const append = (as: TestPrincipal, stream_id: string, markdown_text: string) =>
  call(appendRoute.POST, as, `/api/streams/${encodeURIComponent(stream_id)}/append`, { markdown_text }, { stream_id });
const stop = (as: TestPrincipal, stream_id: string, body?: unknown) => call(stopRoute.POST, as, `/api/streams/${encodeURIComponent(stream_id)}/stop`, body, { stream_id });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Longer than the hub's coalescing window (50 ms), so each append is a delta of its own. */
const APART_MS = 120;

/** The texts a stream held after each of its deltas, and how it ended, as the hub's listeners hear them. */
function watch(): { texts: (id: string) => string[]; ends: (id: string) => unknown[]; stop: () => void } {
  const heard: HubEvent[] = [];
  const stop = rt.streams.listen((e) => heard.push(e));
  return {
    texts: (id) => {
      let text = "";
      const out: string[] = [];
      for (const e of heard) {
        if (!("delta" in e) || e.delta.stream_id !== id) continue;
        text = text.slice(0, e.delta.offset) + e.delta.text;
        out.push(text);
      }
      return out;
    },
    ends: (id) => heard.flatMap((e) => ("end" in e && e.end.stream_id === id ? [e.end] : [])),
    stop,
  };
}

const streamMessages = async (where: { thread_id: string } | { run_id: string }, stream_id: string) =>
  (await rt.store.readAll(where)).filter((e) => e.type === "chat.message" && e.meta?.stream_id === stream_id);

describe("an agent's stream in a channel", () => {
  it("grows by three deltas and becomes one chat.message with meta.stream_id when its author stops it", async () => {
    const heard = watch();
    const started = await start(writer, { thread_id });
    expect(started.status).toBe(201);
    const { stream_id, run_id, task_id } = started.body as { stream_id: string; run_id: string; task_id: string };
    expect(started.body).toMatchObject({ thread_id, run_id: expect.stringMatching(/^run_/), task_id: expect.stringMatching(/^task_/) });
    expect(rt.streams.get(stream_id)).toMatchObject({ author: writer.agent_id, thread_id, run_id, task_id, to: [], kind: "message", text: "", ended: null });

    for (const [i, chunk] of ["Quarterly sales ", "rose 12% ", "in the north."].entries()) {
      if (i) await sleep(APART_MS);
      const res = await append(writer, stream_id, chunk);
      expect(res).toMatchObject({ status: 200, body: { stream_id } });
    }
    await sleep(APART_MS);
    expect(heard.texts(stream_id)).toEqual(["Quarterly sales ", "Quarterly sales rose 12% ", "Quarterly sales rose 12% in the north."]);
    expect(rt.streams.get(stream_id)!.text).toBe("Quarterly sales rose 12% in the north.");

    const stopped = await stop(writer, stream_id, { markdown_text: "Quarterly sales rose **12%**, led by the north." });
    expect(stopped.status).toBe(201);
    const event = stopped.body.event as StoredEvent;
    expect(event).toMatchObject({
      type: "chat.message",
      thread_id,
      run_id,
      task_id,
      from: { agent_id: writer.agent_id },
      to: [],
      payload: { text: "Quarterly sales rose **12%**, led by the north." },
      meta: { stream_id },
    });
    expect(heard.ends(stream_id)).toEqual([{ stream_id, status: "done" }]);
    heard.stop();

    // A retried stop answers with the same event and stores nothing twice.
    const again = await stop(writer, stream_id, { markdown_text: "something else" });
    expect(again.status).toBe(200);
    expect((again.body.event as StoredEvent).id).toBe(event.id);
    const stored = await streamMessages({ thread_id }, stream_id);
    expect(stored.map((e) => e.payload.text)).toEqual(["Quarterly sales rose **12%**, led by the north."]);

    const late = await append(writer, stream_id, " And more.");
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: "stream_ended", message: expect.stringContaining("its message was stored") });
  });

  it("keeps the first chunk, to and reply_to as opened, and stores the text so far when the stop has none", async () => {
    const question = makeMessage({
      type: "chat.message",
      thread_id,
      run_id: newId("run"),
      task_id: newId("task"),
      from: { agent_id: requester.agent_id, role: "human" },
      to: [],
      payload: { text: "How did sales do?" },
    });
    await rt.store.append(question);
    const started = await start(writer, { thread_id, reply_to: question.id, to: [requester.agent_id], markdown_text: "They rose" });
    expect(started).toMatchObject({ status: 201, body: { run_id: question.run_id, task_id: question.task_id } });
    const { stream_id } = started.body as { stream_id: string };
    expect((await append(writer, stream_id, " 12%.")).body).toEqual({ stream_id, length: "They rose 12%.".length });
    const stopped = await stop(writer, stream_id);
    expect(stopped.status).toBe(201);
    expect(stopped.body.event).toMatchObject({
      run_id: question.run_id,
      task_id: question.task_id,
      to: [{ agent_id: requester.agent_id }],
      payload: { text: "They rose 12%.", reply_to: question.id },
      meta: { stream_id },
    });
  });

  it("starts only where POST /api/events would let the key write, and opens nothing otherwise", async () => {
    const priv = (await rt.store.createThread({ name: `streams-priv-${newId("thread").slice(-8).toLowerCase()}`, visibility: "private" }, { agent_id: admin.agent_id })).id;
    const refused = await start(writer, { thread_id: priv, markdown_text: "psst" });
    expect(refused).toMatchObject({ status: 422, body: { error: { code: "unknown_thread" } } });
    expect(rt.streams.openIn({ thread_id: priv })).toEqual([]);

    // A run of another channel answers like one that does not exist (the authorizer's rule 5a).
    const elsewhere = newId("run");
    await rt.store.append(makeMessage({ type: "task.request", thread_id: await newThread(rt, "streams-other"), run_id: elsewhere, task_id: newId("task"), from: { agent_id: requester.agent_id }, to: [{ agent_id: writer.agent_id }], payload: { title: "Elsewhere" } }));
    const wrongRun = await start(writer, { thread_id, run_id: elsewhere });
    expect(wrongRun).toMatchObject({ status: 422, body: { error: { code: "unknown_run", message: expect.not.stringMatching(/^message 0/) } } });

    const bad = await start(writer, { thread_id, to: "everyone" });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: "invalid_body", message: expect.stringContaining("to") } } });
    const noRun = await start(writer, { thread_id, task_id: newId("task") });
    expect(noRun).toMatchObject({ status: 400, body: { error: { code: "invalid_body", message: expect.stringContaining("run_id") } } });
  });

  it("is written by its author alone: another key gets 403, an unknown id 404", async () => {
    const { stream_id } = (await start(writer, { thread_id, markdown_text: "Mine" })).body as { stream_id: string };
    const appended = await append(stranger, stream_id, " and yours");
    expect(appended).toMatchObject({ status: 403, body: { error: { code: "not_your_stream" } } });
    expect(appended.body.error!.message).toContain(writer.agent_id);
    expect(await stop(stranger, stream_id, { markdown_text: "hijacked" })).toMatchObject({ status: 403, body: { error: { code: "not_your_stream" } } });
    expect(rt.streams.get(stream_id)).toMatchObject({ text: "Mine", ended: null });

    const unknown = `stream_${crypto.randomUUID()}`;
    expect(await append(writer, unknown, "x")).toMatchObject({ status: 404, body: { error: { code: "unknown_stream" } } });
    expect(await stop(writer, unknown)).toMatchObject({ status: 404, body: { error: { code: "unknown_stream" } } });

    expect(await append(writer, stream_id, "")).toMatchObject({ status: 400, body: { error: { code: "invalid_body" } } });
    expect(await stop(writer, stream_id, { markdown_text: "   " })).toMatchObject({ status: 400, body: { error: { code: "invalid_body" } } });
    expect(rt.streams.get(stream_id)!.ended).toBeNull();
  });

  it("counts each call as one write against the key's limit, however much text it carries", async () => {
    const agent = await testAgent(rt, `agent:limited-${newId("task").slice(-6).toLowerCase()}`);
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i} `).join("");
    process.env.CLUTCH_AGENT_WRITES_PER_MIN = "4";
    try {
      const { stream_id } = (await start(agent, { thread_id, markdown_text: words(500) })).body as { stream_id: string };
      for (let i = 0; i < 3; i++) expect((await append(agent, stream_id, words(1000))).status).toBe(200);
      const length = rt.streams.writer(stream_id)!.text.length;
      const limited = await append(agent, stream_id, "one too many");
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: "rate_limited", message: expect.stringContaining("at most 4 a minute") });
      expect(rt.streams.writer(stream_id)!.text.length).toBe(length);
      expect((await stop(agent, stream_id)).status).toBe(429);
    } finally {
      delete process.env.CLUTCH_AGENT_WRITES_PER_MIN;
    }
  });
});

describe("a person's Stop", () => {
  /** A run `requester` started, with a task given to the streaming agent, in the channel. */
  async function runWithTask() {
    const at = { thread_id, run_id: newId("run"), task_id: newId("task") };
    await rt.store.append(makeMessage({ type: "task.request", ...at, from: { agent_id: requester.agent_id, role: "human" }, to: [{ agent_id: writer.agent_id }], payload: { title: "Summarize the quarter" } }));
    await rt.store.append(makeMessage({ type: "task.accept", ...at, from: { agent_id: writer.agent_id, role: "worker" }, to: [], payload: {} }));
    return at;
  }

  it("by the run's requester stores the text so far with stopped_by and cancels the task, in one append", async () => {
    const at = await runWithTask();
    const heard = watch();
    const started = await start(writer, { thread_id, run_id: at.run_id, task_id: at.task_id, to: [requester.agent_id], markdown_text: "The quarter was " });
    expect(started).toMatchObject({ status: 201, body: at });
    const { stream_id } = started.body as { stream_id: string };
    await sleep(APART_MS);
    await append(writer, stream_id, "strong in");

    const refused = await stop(member, stream_id);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "not_your_stream" } } });
    expect(refused.body.error!.message).toContain(`only ${requester.person!.name}, who started its run, or an admin may stop`);
    expect(rt.streams.get(stream_id)!.ended).toBeNull();

    const stopped = await stop(requester, stream_id);
    expect(stopped.status).toBe(200);
    const events = stopped.body.events as StoredEvent[];
    expect(events.map((e) => e.type)).toEqual(["chat.message", "task.cancel"]);
    const [message, cancel] = events as [StoredEvent, StoredEvent];
    expect(message).toMatchObject({
      ...at,
      from: { agent_id: writer.agent_id },
      to: [{ agent_id: requester.agent_id }],
      payload: { text: "The quarter was strong in" },
      meta: { stream_id, stopped_by: requester.agent_id },
    });
    expect(cancel).toMatchObject({ ...at, from: { agent_id: requester.agent_id }, payload: { reason: "stopped the reply as it was being written", requested_by: requester.agent_id } });
    expect(cancel.seq).toBe(message.seq + 1); // one transaction: nothing in between
    expect((await taskRow(rt, at.task_id)).state).toBe("cancelled");
    expect(rt.streams.get(stream_id)!.ended).toEqual({ stream_id, status: "stopped", stopped_by: requester.agent_id });
    expect(heard.ends(stream_id)).toEqual([{ stream_id, status: "stopped", stopped_by: requester.agent_id }]);
    heard.stop();

    const late = await append(writer, stream_id, " the north");
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: "stream_ended", message: expect.stringContaining(`Stopped by ${requester.person!.name}`) });
    expect(await stop(writer, stream_id)).toMatchObject({ status: 409, body: { error: { code: "stream_ended" } } });
    // Stopping again stores nothing more.
    expect(await stop(requester, stream_id)).toMatchObject({ status: 409, body: { error: { code: "stream_ended", message: expect.stringContaining("Stopped by you") } } });
    expect(await streamMessages({ run_id: at.run_id }, stream_id)).toHaveLength(1);
    expect((await rt.store.readAll({ run_id: at.run_id })).filter((e) => e.type === "task.cancel")).toHaveLength(1);
  });

  it("by an admin, of a stream with no text yet, stores no message and still cancels the task", async () => {
    const at = await runWithTask();
    const { stream_id } = (await start(writer, { thread_id, run_id: at.run_id, task_id: at.task_id })).body as { stream_id: string };
    expect(await stop(admin, stream_id, { markdown_text: "my words" })).toMatchObject({ status: 400, body: { error: { code: "invalid_body" } } });
    const stopped = await stop(admin, stream_id, {});
    expect(stopped.status).toBe(200);
    expect((stopped.body.events as StoredEvent[]).map((e) => e.type)).toEqual(["task.cancel"]);
    expect(await streamMessages({ run_id: at.run_id }, stream_id)).toEqual([]);
    expect((await taskRow(rt, at.task_id)).state).toBe("cancelled");
  });

  it("of plain chat in a channel is an admin's alone", async () => {
    const { stream_id } = (await start(writer, { thread_id, markdown_text: "Chatting" })).body as { stream_id: string };
    const refused = await stop(requester, stream_id);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "not_your_stream", message: expect.stringContaining("only an admin") } } });
    const stopped = await stop(admin, stream_id);
    expect(stopped.status).toBe(200);
    expect(stopped.body.events).toMatchObject([{ type: "chat.message", payload: { text: "Chatting" }, meta: { stream_id, stopped_by: admin.agent_id } }]);
  });
});
