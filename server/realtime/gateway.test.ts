/**
 * The socket contract (lib/realtime/contract.ts) with a real socket.io-client: backlog after a
 * cursor, then live; reconnect with the last seq receives exactly what was missed, then live,
 * none twice; events come in `events` frames, a burst in one, and frames never reorder, drop or
 * repeat events across catch-up and live.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import { MAX_FRAME_EVENTS, type Ack, type ClientEvents, type ServerEvents } from "@/lib/realtime/contract";
import type { Clutch } from "@/server/clutch";
import { chat, newThread, testAgent, testClutch, testPerson } from "@/test/helpers";
import { RealtimeGateway } from "./gateway";

let rt: Clutch;
let http: Server;
let gateway: RealtimeGateway;
let url: string;
/** An external agent's API key: the channels these tests make are public, so it may read them all. */
let token: string;

beforeAll(async () => {
  rt = await testClutch();
  http = createServer();
  gateway = new RealtimeGateway(http, rt.store, rt.tail, rt.identity);
  token = (await testAgent(rt, "agent:gateway-reader")).key;
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await gateway.close();
  await rt.stop();
});

type Client = Socket<ServerEvents, ClientEvents>;

/** A client that keeps every event it receives, and the frames they came in (seqs per frame). */
function client(key = token): { socket: Client; received: StoredEvent[]; frames: number[][] } {
  const socket: Client = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token: key, frames: true } });
  const received: StoredEvent[] = [];
  const frames: number[][] = [];
  socket.on("events", (evs) => {
    frames.push(evs.map((e) => e.seq));
    received.push(...evs);
  });
  return { socket, received, frames };
}

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const subscribe = (s: Client, sub: Parameters<ClientEvents["subscribe"]>[0]) =>
  new Promise<Ack>((resolve) => s.emit("subscribe", sub, resolve));

describe("realtime gateway", () => {
  it("replays after a cursor, goes live, and after a reconnect with the last seq fills exactly the gap", async () => {
    const thread_id = await newThread(rt, "socket");
    const run_id = newId("run");
    const texts = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `m${from + i}`);
    const first = await rt.store.append(texts(0, 10).map((t) => chat(t, { thread_id, run_id })));
    const cursor = first.events[4]!.seq; // the client has seen m0..m4

    const a = client();
    expect(await subscribe(a.socket, { thread_id, after: cursor })).toEqual({ ok: true });
    await rt.store.append(texts(10, 15).map((t) => chat(t, { thread_id, run_id }))); // live while connected
    await until(() => a.received.length === 10, "backlog and live events");
    expect(a.received.map((e) => e.payload.text)).toEqual(texts(5, 15));
    const lastSeen = a.received.at(-1)!.seq;
    a.socket.disconnect();

    // Appended while the client is away, concurrently, from several writers.
    await Promise.all([0, 1, 2].map((w) => rt.store.append(texts(15 + w * 5, 20 + w * 5).map((t) => chat(t, { thread_id, run_id })))));

    const b = client();
    expect(await subscribe(b.socket, { thread_id, after: lastSeen })).toEqual({ ok: true });
    const live = rt.store.append(texts(30, 35).map((t) => chat(t, { thread_id, run_id })));
    await live;
    await until(() => b.received.length === 20, "missed and live events");
    await new Promise((r) => setTimeout(r, 200)); // nothing more may arrive
    const got = b.received.map((e) => e.payload.text as string);
    expect(got).toHaveLength(20);
    expect(new Set(got).size).toBe(20);
    expect([...got].sort()).toEqual(texts(15, 35).sort());
    const seqs = b.received.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(seqs[0]).toBeGreaterThan(lastSeen);
    b.socket.disconnect();
  });

  it("never sends an event twice or out of order while clients resubscribe under a live writer", async () => {
    const thread_id = await newThread(rt, "storm");
    const run_id = newId("run");
    const clients = Array.from({ length: 12 }, () => client());
    for (const c of clients) expect(await subscribe(c.socket, { thread_id })).toEqual({ ok: true });
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing && i < 400; i++) await rt.store.append([chat(`w${i}a`, { thread_id, run_id }), chat(`w${i}b`, { thread_id, run_id })]);
    })();
    // Each client drops its subscription and takes it up again from the last seq it saw, over and
    // over; nothing of the dropped subscription arrives after the unsubscribe's ack (events it had
    // queued for a frame not yet sent included).
    let afterUnsubscribe = 0;
    await Promise.all(
      clients.map(async (c) => {
        for (let i = 0; i < 25; i++) {
          await new Promise<Ack>((r) => c.socket.emit("unsubscribe", { thread_id }, r));
          const held = c.received.length;
          await new Promise((r) => setTimeout(r, 3));
          afterUnsubscribe += c.received.length - held;
          await subscribe(c.socket, { thread_id, after: c.received.at(-1)?.seq ?? 0 });
          await new Promise((r) => setTimeout(r, 2));
        }
      }),
    );
    writing = false;
    await writer;
    expect(afterUnsubscribe).toBe(0);
    const head = (await rt.store.read({ thread_id }, { before: "end", limit: 1 })).events.at(-1)!.seq;
    await until(() => clients.every((c) => c.received.at(-1)?.seq === head), "every client reaching the head");
    const all = (await rt.store.read({ thread_id }, { limit: 5000 })).events.map((e) => e.seq);
    for (const c of clients) {
      const seqs = c.received.map((e) => e.seq);
      expect(seqs).toEqual(all); // each event of the channel once, in seq order, none missing
      c.socket.disconnect();
    }
  });

  it("sends a burst as one frame, and a lone event as a frame of one", async () => {
    const thread_id = await newThread(rt, "burst");
    const run_id = newId("run");
    const c = client();
    expect(await subscribe(c.socket, { thread_id })).toEqual({ ok: true });
    await until(() => c.received.length === 1, "the channel's announcement"); // caught up: live from here
    const burst = (await rt.store.append(Array.from({ length: 20 }, (_, i) => chat(`b${i}`, { thread_id, run_id })))).events.map((e) => e.seq);
    await until(() => c.received.length === 21, "the burst");
    const lone = (await rt.store.append(chat("lone", { thread_id, run_id }))).events[0]!.seq;
    await until(() => c.received.length === 22, "the lone event");
    await new Promise((r) => setTimeout(r, 100));
    expect(c.frames.slice(1)).toEqual([burst, [lone]]);
    c.socket.disconnect();
  });

  it("gives a client that did not ask for frames the same events one `event` message each, in order", async () => {
    const thread_id = await newThread(rt, "single");
    const run_id = newId("run");
    const framed = client();
    const plain: Client = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token } });
    const singles: StoredEvent[] = [];
    let framesToPlain = 0;
    plain.on("event", (ev) => singles.push(ev));
    plain.on("events", () => framesToPlain++);
    for (const s of [framed.socket, plain]) expect(await subscribe(s, { thread_id })).toEqual({ ok: true });
    await until(() => framed.received.length === 1 && singles.length === 1, "the channel's announcement");
    const burst = (await rt.store.append(Array.from({ length: 10 }, (_, i) => chat(`s${i}`, { thread_id, run_id })))).events.map((e) => e.seq);
    await until(() => singles.length === 11 && framed.received.length === 11, "the burst");
    expect(singles.slice(1).map((e) => e.seq)).toEqual(burst);
    expect(framesToPlain).toBe(0);
    expect(framed.frames.slice(1)).toEqual([burst]);
    framed.socket.disconnect();
    plain.disconnect();
  });

  it("keeps every event once and in seq order across a catch-up of several frames and live bursts", async () => {
    const thread_id = await newThread(rt, "frames");
    const run_id = newId("run");
    // A backlog of more than one frame, which the clients' replay sends while a writer appends bursts.
    const backlog = MAX_FRAME_EVENTS + 200;
    for (let i = 0; i < backlog; i += 500) await rt.store.append(Array.from({ length: Math.min(500, backlog - i) }, (_, k) => chat(`old${i + k}`, { thread_id, run_id })));
    const clients = Array.from({ length: 4 }, () => client());
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing && i < 200; i++) {
        await rt.store.append(Array.from({ length: 1 + (i % 7) }, (_, k) => chat(`live${i}.${k}`, { thread_id, run_id })));
        if (i % 5 === 0) await new Promise((r) => setTimeout(r, 1));
      }
    })();
    await Promise.all(
      clients.map(async (c, i) => {
        await new Promise((r) => setTimeout(r, i * 15)); // each joins at a different point of the writer's stream
        expect(await subscribe(c.socket, { thread_id })).toEqual({ ok: true });
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    writing = false;
    await writer;
    const all = (await rt.store.read({ thread_id }, { limit: 5000 })).events.map((e) => e.seq);
    await until(() => clients.every((c) => c.received.at(-1)?.seq === all.at(-1)), "every client reaching the head");
    await new Promise((r) => setTimeout(r, 150)); // nothing more may arrive
    for (const c of clients) {
      expect(c.received.map((e) => e.seq)).toEqual(all); // none missing, none twice, in seq order
      expect(c.frames.every((f) => f.length >= 1 && f.length <= MAX_FRAME_EVENTS)).toBe(true);
      expect(c.frames.length).toBeLessThan(all.length / 5); // the backlog and the bursts came batched
      c.socket.disconnect();
    }
  });

  it("streams a run's events and ignores other runs", async () => {
    const thread_id = await newThread(rt, "runsub");
    const run_id = newId("run");
    const c = client();
    expect(await subscribe(c.socket, { run_id, after: 0 })).toEqual({ ok: true });
    await rt.store.append([chat("other", { thread_id, run_id: newId("run") }), chat("mine", { thread_id, run_id })]);
    await until(() => c.received.length === 1, "the run's event");
    await new Promise((r) => setTimeout(r, 100));
    expect(c.received.map((e) => e.payload.text)).toEqual(["mine"]);
    c.socket.disconnect();
  });

  it("rejects a bad subscription with a readable error, and stops after unsubscribe", async () => {
    const c = client();
    const bad = await subscribe(c.socket, { after: 0 } as never);
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_subscription" } });
    const unknown = await subscribe(c.socket, { thread_id: newId("thread") });
    expect(unknown).toMatchObject({ ok: false, error: { code: "unknown_thread" } });

    const thread_id = await newThread(rt, "unsub");
    const run_id = newId("run");
    expect(await subscribe(c.socket, { thread_id })).toEqual({ ok: true });
    await rt.store.append(chat("before", { thread_id, run_id }));
    await until(() => c.received.length === 2, "the channel's announcement and first message");
    await new Promise<Ack>((r) => c.socket.emit("unsubscribe", { thread_id }, r));
    await rt.store.append(chat("after", { thread_id, run_id }));
    await new Promise((r) => setTimeout(r, 200));
    expect(c.received.map((e) => e.payload.text)).toEqual([expect.stringMatching(/created #unsub/), "before"]);
    c.socket.disconnect();
  });

  it("gives an agent its inbox: the events addressed to it, in every channel, backlog then live, to its own key only", async () => {
    const [one, two] = [await newThread(rt, "inbox"), await newThread(rt, "inbox")];
    const me = { agent_id: "agent:gateway-reader" };
    const someoneElse = { agent_id: "agent:someone-else" };
    const before = (await rt.store.append([chat("to me, before", { thread_id: one, run_id: newId("run"), to: [me] }), chat("to another", { thread_id: one, run_id: newId("run"), to: [someoneElse] })])).events;
    const c = client();
    expect(await subscribe(c.socket, { agent_id: me.agent_id, after: before[0]!.seq - 1 })).toEqual({ ok: true });
    await rt.store.append([
      chat("to me, live, elsewhere", { thread_id: two, run_id: newId("run"), to: [someoneElse, me] }),
      chat("to nobody", { thread_id: two, run_id: newId("run") }),
    ]);
    await until(() => c.received.length === 2, "the inbox's backlog and live event");
    await new Promise((r) => setTimeout(r, 150));
    expect(c.received.map((e) => e.payload.text)).toEqual(["to me, before", "to me, live, elsewhere"]);
    // Another agent's inbox is not this key's to read.
    expect(await subscribe(c.socket, { agent_id: someoneElse.agent_id })).toMatchObject({ ok: false, error: { code: "not_your_agent" } });
    expect(await subscribe(c.socket, { agent_id: me.agent_id, thread_id: one } as never)).toMatchObject({ ok: false, error: { code: "invalid_subscription" } });
    c.socket.disconnect();
  });

  it("broadcasts thread.activity with the new counts", async () => {
    const thread_id = await newThread(rt, "activity");
    const c = client();
    const activity: { id: string; message_count: number }[] = [];
    c.socket.on("thread.activity", (ts) => activity.push(...ts));
    await until(() => c.socket.connected, "connection");
    await rt.store.append(chat("ping", { thread_id, run_id: newId("run") }));
    await until(() => activity.some((t) => t.id === thread_id && t.message_count === 1), "activity for the thread");
    c.socket.disconnect();
  });

  it("sends each client the activity of the channels it may read only, whoever shares its broadcast", async () => {
    const [shared, other] = [await newThread(rt, "seen"), await newThread(rt, "unseen")];
    const guest = await testPerson(rt, "guest", "Gail Guest"); // reads only the channels she was added to
    await rt.identity.addMember({ kind: "system", agent_id: "system" }, shared, guest.agent_id);
    const clients = [client(), client(), client(guest.key), client(guest.key)];
    const activity = clients.map(() => new Set<string>());
    clients.forEach((c, i) => c.socket.on("thread.activity", (ts) => ts.forEach((t) => activity[i]!.add(t.id))));
    await until(() => clients.every((c) => c.socket.connected), "connections");
    await rt.store.append([chat("a", { thread_id: shared, run_id: newId("run") }), chat("b", { thread_id: other, run_id: newId("run") })]);
    await until(() => activity.every((ids) => ids.has(shared)), "activity for the shared channel");
    await until(() => activity.slice(0, 2).every((ids) => ids.has(other)), "activity for the public channel");
    await new Promise((r) => setTimeout(r, 300));
    expect(activity.slice(2).map((ids) => ids.has(other))).toEqual([false, false]);
    for (const c of clients) c.socket.disconnect();
  });
});
