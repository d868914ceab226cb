/**
 * Replies that stream as they are written (docs/channels.md "Streaming replies"; lib/realtime/streams.ts):
 * a model agent's reply reaches a subscribed client as growing deltas and then one stored
 * chat.message that names its stream; a client that subscribes mid-stream starts from the text
 * so far; people's typing reaches the others; a stream whose process died ends interrupted on
 * the other processes within its deadline (PostgreSQL LISTEN/NOTIFY between two hubs).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import type { Ack, ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import { applyStream, streamIdOf, type AgentStatus, type LiveStream, type StreamDelta, type StreamEnd, type StreamInfo, type Typing } from "@/lib/realtime/streams";
import { builtinModel, loadPlaybooks } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { RealtimeGateway } from "@/server/realtime/gateway";
import { PgBus, streamsChannel } from "@/server/streams/bus";
import { pgTransactor } from "@/server/events/sql";
import { StreamHub } from "@/server/streams/hub";
import { say, scratchWorkspace } from "./agents";
import { testClutch, testPerson } from "./helpers";

type Client = Socket<ServerEvents, ClientEvents>;

let rt: Clutch;
let http: Server;
let gateway: RealtimeGateway;
let url: string;
let thread_id: string;

beforeAll(async () => {
  const { dir, channel } = scratchWorkspace();
  const playbooks = await loadPlaybooks(path.resolve("examples/sales-analysis"));
  // A readable pace, so the reply comes in many pieces.
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => builtinModel({ playbooks, paceMs: 5 }) });
  thread_id = rt.channels.find((c) => c.name === channel)!.thread_id;
  http = createServer();
  gateway = new RealtimeGateway(http, rt.store, rt.tail, rt.identity, rt.streams);
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await gateway?.close();
  await rt?.stop();
});

/** A socket with everything it hears: stored events, the streams folded as a browser folds them, statuses, typing. */
function client(token: string) {
  const socket: Client = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token, frames: true } });
  const seen = {
    events: [] as StoredEvent[],
    streams: new Map() as ReadonlyMap<string, LiveStream>,
    /** Each stream's text length after every open or delta, in order. */
    lengths: new Map<string, number[]>(),
    statuses: [] as AgentStatus[],
    typing: [] as Typing[],
  };
  const track = (id: string) => seen.lengths.set(id, [...(seen.lengths.get(id) ?? []), seen.streams.get(id)?.text.length ?? 0]);
  socket.on("events", (evs) => seen.events.push(...evs));
  socket.on("stream.open", (open: StreamInfo) => {
    seen.streams = applyStream(seen.streams, { open });
    track(open.stream_id);
  });
  socket.on("stream.delta", (delta: StreamDelta) => {
    seen.streams = applyStream(seen.streams, { delta });
    track(delta.stream_id);
  });
  socket.on("stream.end", (end: StreamEnd) => (seen.streams = applyStream(seen.streams, { end })));
  socket.on("agent.status", (s) => seen.statuses.push(s));
  socket.on("typing", (t) => seen.typing.push(t));
  return { socket, seen };
}

const subscribe = (s: Client, sub: Parameters<ClientEvents["subscribe"]>[0]) => new Promise<Ack>((resolve) => s.emit("subscribe", sub, resolve));

async function until<T>(get: () => T | undefined | null | false, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("streaming replies", () => {
  it("a model agent's question grows in a watching client, then one stored message names its stream with the same text", async () => {
    const dana = await testPerson(rt, "admin", "Dana");
    const c = client(dana.key);
    expect(await subscribe(c.socket, { thread_id })).toEqual({ ok: true });
    await say(rt, thread_id, "@pm-1 Analyze last quarter's sales trends", dana.person!.name);
    // pm-1 first asks which quarter it is: a question to the people, written as it streams.
    const question = await until(
      () => c.seen.events.find((e) => isEvent(e, "chat.message") && e.from.agent_id === "agent:pm-1" && e.payload.expects_reply),
      "pm-1's question",
    );
    const id = streamIdOf(question);
    expect(id).toBeTruthy();
    const stream = c.seen.streams.get(id!);
    expect(stream?.kind).toBe("question");
    expect(stream?.author).toBe("agent:pm-1");
    // It grew in several distinct lengths before it was stored, and says what was stored.
    const lengths = c.seen.lengths.get(id!)!;
    expect(new Set(lengths).size).toBeGreaterThanOrEqual(3);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(stream!.text).toBe(isEvent(question, "chat.message") ? question.payload.text : "");
    await until(() => c.seen.streams.get(id!)?.ended, "the stream's end");
    expect(c.seen.streams.get(id!)!.ended!.status).toBe("done");
    // While it worked, the channel said what pm-1 was doing, and that it stopped.
    expect(c.seen.statuses.some((s) => s.agent_id === "agent:pm-1" && s.status === "thinking")).toBe(true);
    await until(() => c.seen.statuses.at(-1)?.status === null, "pm-1's status cleared");
    // One stored message for the streamed question: the log keeps one fact per message.
    expect(c.seen.events.filter((e) => streamIdOf(e) === id)).toHaveLength(1);
    c.socket.close();
  });

  it("a client that subscribes mid-stream starts from the text so far, then gets the rest", async () => {
    const lee = await testPerson(rt, "member", "Lee");
    const writer = rt.streams.open({ thread_id, run_id: null, task_id: null, author: "agent:pm-1", to: ["user"], kind: "message" });
    writer.append("Half of the ");
    writer.append("answer");
    await new Promise((r) => setTimeout(r, 80));
    const late = client(lee.key);
    expect(await subscribe(late.socket, { thread_id })).toEqual({ ok: true });
    await until(() => late.seen.streams.get(writer.stream_id), "the open stream with its text so far");
    expect(late.seen.streams.get(writer.stream_id)!.text).toBe("Half of the answer");
    writer.append(", and the rest.");
    await until(() => late.seen.streams.get(writer.stream_id)?.text === "Half of the answer, and the rest.", "the rest");
    writer.end("done");
    await until(() => late.seen.streams.get(writer.stream_id)?.ended, "its end");
    late.socket.close();
  });

  it("a person typing is heard by the others in the channel, not by their own sockets", async () => {
    const mia = await testPerson(rt, "member", "Mia");
    const sam = await testPerson(rt, "member", "Sam");
    const a = client(mia.key);
    const b = client(sam.key);
    await subscribe(a.socket, { thread_id });
    await subscribe(b.socket, { thread_id });
    // Mia types on, as a browser does: a signal a little more than a second apart, until Sam's
    // subscription has caught up with the channel and hears one.
    const typing = setInterval(() => a.socket.emit("typing", { thread_id }), 1_100);
    a.socket.emit("typing", { thread_id });
    const heard = await until(() => b.seen.typing[0], "Mia typing").finally(() => clearInterval(typing));
    expect(heard).toEqual({ thread_id, agent_id: mia.agent_id });
    // Three at once count as one at most (one a second is heard); Mia's own socket hears nothing.
    const count = b.seen.typing.length;
    for (let i = 0; i < 3; i++) a.socket.emit("typing", { thread_id });
    await new Promise((r) => setTimeout(r, 300));
    expect(b.seen.typing.length - count).toBeLessThanOrEqual(1);
    expect(a.seen.typing).toHaveLength(0);
    a.socket.close();
    b.socket.close();
  });
});

describe("streams between processes", () => {
  it("every hub holds the text; a stream whose process died ends interrupted on the others within the deadline", async () => {
    const dbUrl = inject("databaseUrl");
    if (!dbUrl) return; // the embedded database is one process: nothing to share
    const sql = pgTransactor(dbUrl);
    const channel = streamsChannel(`test.${Date.now()}`);
    const busA = await PgBus.connect(dbUrl, sql, channel);
    const a = new StreamHub({ bus: busA, heartbeatMs: 100, deadlineMs: 600 });
    const b = new StreamHub({ bus: await PgBus.connect(dbUrl, sql, channel), heartbeatMs: 100, deadlineMs: 600 });
    const heard: string[] = [];
    // Other test files' hubs share the database's channel: hear only this stream.
    b.listen((e) => {
      const id = "open" in e ? e.open.stream_id : "delta" in e ? e.delta.stream_id : "end" in e ? e.end.stream_id : null;
      if (id === w.stream_id) heard.push("open" in e ? "open" : "delta" in e ? "delta" : `end:${"end" in e ? e.end.status : ""}`);
    });
    const w: ReturnType<typeof a.open> = a.open({ thread_id: "thread_x", run_id: "run_x", task_id: null, author: "agent:far", to: [], kind: "message" });
    w.append("Written on node A");
    await until(() => b.get(w.stream_id)?.text === "Written on node A", "node B holding A's text", 5_000);
    expect(b.openIn({ run_id: "run_x" }).map((s) => s.text)).toEqual(["Written on node A"]);
    // Heartbeats keep it open past the deadline while A lives…
    await new Promise((r) => setTimeout(r, 900));
    expect(b.get(w.stream_id)!.ended).toBeNull();
    // …then A's process dies without ending it: B ends it, interrupted, keeping what was written.
    await busA.close();
    await until(() => b.get(w.stream_id)?.ended, "the interrupted end on node B", 5_000);
    expect(b.get(w.stream_id)!.ended!.status).toBe("interrupted");
    expect(b.get(w.stream_id)!.text).toBe("Written on node A");
    expect(heard).toEqual(["open", "delta", "end:interrupted"]);
    await b.close();
    await a.close().catch(() => undefined);
    await sql.close();
  });
});
