/**
 * People's presence over the socket contract (lib/realtime/contract.ts `presence.snapshot`,
 * `presence.changed`; docs/channels.md "Presence") with a real server and real socket.io
 * clients, each signed in with a person's API key: A connects → B sees A online; a second tab of
 * A closing changes nothing; A's last socket closing → B sees A offline. Across two nodes of one
 * deployment (two Clutches on one PostgreSQL, each with its gateway and the deployment's bus): a
 * person connected to one node is online for the other node's clients, and offline there once
 * their socket closes, or once their node falls silent. Also the tracker alone.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClientEvents, PresenceChange, PresenceSnapshot, ServerEvents } from "@/lib/realtime/contract";
import type { Clutch } from "@/server/clutch";
import { newId } from "@/lib/protocol";
import { testAgent, testClutch, testPerson, type TestPrincipal } from "@/test/helpers";
import { RealtimeGateway } from "./gateway";
import { PresenceTracker } from "./presence";

let rt: Clutch;
let http: Server;
let gateway: RealtimeGateway;
let url: string;

beforeAll(async () => {
  rt = await testClutch();
  http = createServer();
  gateway = new RealtimeGateway(http, rt.store, rt.tail, rt.identity);
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await gateway.close();
  await rt.stop();
});

type Client = Socket<ServerEvents, ClientEvents>;

/** A connected client as `who` (to the node at `at`), recording what it learns of presence. */
async function client(who: { key: string }, at = url) {
  const socket: Client = connect(at, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token: who.key } });
  const online = new Set<string>();
  const changes: PresenceChange[] = [];
  let snapshot: PresenceSnapshot | null = null;
  socket.on("presence.snapshot", (s) => {
    snapshot = s;
    online.clear();
    for (const id of s.online) online.add(id);
  });
  socket.on("presence.changed", (c) => {
    changes.push(c);
    if (c.status === "online") online.add(c.agent_id);
    else online.delete(c.agent_id);
  });
  await until(() => snapshot !== null, "the presence snapshot");
  return { socket, online, changes };
}

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("presence", () => {
  let a: TestPrincipal;
  let b: TestPrincipal;
  beforeAll(async () => {
    a = await testPerson(rt, "member", "Presence A");
    b = await testPerson(rt, "member", "Presence B");
  });

  it("A connects → B sees A online; two tabs of A, one closes → still online; the last closes → offline", async () => {
    const bob = await client(b);
    expect(bob.online.has(b.agent_id)).toBe(true);
    expect(bob.online.has(a.agent_id)).toBe(false);

    const tab1 = await client(a);
    await until(() => bob.online.has(a.agent_id), "B to see A online");
    expect(tab1.online.has(a.agent_id) && tab1.online.has(b.agent_id)).toBe(true);

    const tab2 = await client(a);
    tab2.socket.close();
    // A change would have come before this round trip's answer (one socket, in order).
    const now = await new Promise<PresenceSnapshot>((r) => bob.socket.emit("presence", r));
    expect(now.online).toContain(a.agent_id);
    expect(bob.online.has(a.agent_id)).toBe(true);
    expect(bob.changes.filter((c) => c.agent_id === a.agent_id)).toEqual([{ agent_id: a.agent_id, status: "online" }]);

    tab1.socket.close();
    await until(() => !bob.online.has(a.agent_id), "B to see A offline");
    expect(bob.changes.filter((c) => c.agent_id === a.agent_id).map((c) => c.status)).toEqual(["online", "offline"]);
    bob.socket.close();
  });

  it("an agent's socket makes no person online", async () => {
    const watcher = await client(b);
    const agent = await client(await testAgent(rt, "agent:presence-probe"));
    const now = await new Promise<PresenceSnapshot>((r) => watcher.socket.emit("presence", r));
    expect(now.online).not.toContain("agent:presence-probe");
    expect(watcher.changes.some((c) => c.agent_id === "agent:presence-probe")).toBe(false);
    agent.socket.close();
    watcher.socket.close();
  });
});

describe("presence across the deployment's nodes", () => {
  const deployment = `test.presence.${newId("task")}`;
  let nodes: { rt: Clutch; http: Server; gateway: RealtimeGateway; url: string }[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const node = await testClutch({ deployment });
      const server = createServer();
      const g = new RealtimeGateway(server, node.store, node.tail, node.identity, node.streams, node.bus);
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      nodes.push({ rt: node, http: server, gateway: g, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    }
  });
  afterAll(async () => {
    for (const n of nodes) {
      await n.gateway.close();
      await n.rt.stop();
    }
    nodes = [];
  });

  it("a person on node A is online for node B's clients, and offline there when their socket closes", async () => {
    const [a, b] = nodes;
    const ada = await testPerson(a!.rt, "member", "Presence Ada");
    const bea = await testPerson(a!.rt, "member", "Presence Bea");
    const watcher = await client(bea, b!.url);
    const adaOnA = await client(ada, a!.url);
    await until(() => watcher.online.has(ada.agent_id), "node B's client to see Ada, on node A, online");
    // A client that connects to node B later has her in its snapshot.
    const late = await client(bea, b!.url);
    expect(late.online.has(ada.agent_id)).toBe(true);
    adaOnA.socket.close();
    await until(() => !watcher.online.has(ada.agent_id), "node B's client to see Ada offline");
    expect(watcher.changes.filter((c) => c.agent_id === ada.agent_id).map((c) => c.status)).toEqual(["online", "offline"]);
    watcher.socket.close();
    late.socket.close();
  });

  it("the people of a node that falls silent go offline on the others after expireMs, unless another node has them", async () => {
    const [a, b] = nodes;
    const fast = { heartbeatMs: 100, expireMs: 500 };
    const onA = new PresenceTracker({ bus: a!.rt.bus, ...fast });
    const onB = new PresenceTracker({ bus: b!.rt.bus, ...fast });
    const heard: string[] = [];
    onB.onChange((person, status) => heard.push(`${person} ${status}`));
    // Enough people that a heartbeat's list comes in several parts.
    const many = Array.from({ length: 600 }, (_, i) => `user:presence-${i}-${newId("user").slice(-10).toLowerCase()}`);
    for (const [i, p] of many.entries()) onA.connect(p, `s${i}`);
    onB.connect(many[0]!, "b0"); // also on node B
    await until(() => onB.online().length === many.length, "node B to have node A's people");
    onA.close(); // node A stops without a word
    await until(() => onB.online().length === 1, "node A's people to expire on node B", 5_000);
    expect(onB.online()).toEqual([many[0]]);
    expect(heard.filter((h) => h.endsWith("offline"))).toHaveLength(many.length - 1);
    onB.close();
  });
});

describe("PresenceTracker", () => {
  it("counts each person's sockets", () => {
    const p = new PresenceTracker();
    expect(p.connect("user:ada", "s1")).toBe("online");
    expect(p.connect("user:ada", "s2")).toBe(null);
    expect(p.disconnect("user:ada", "s1")).toBe(null);
    expect(p.online()).toEqual(["user:ada"]);
    expect(p.disconnect("user:ada", "s1")).toBe(null);
    expect(p.disconnect("user:ada", "s2")).toBe("offline");
    expect(p.online()).toEqual([]);
  });
});
