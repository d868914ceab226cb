/**
 * People's presence over the socket contract (lib/realtime/contract.ts `presence.snapshot`,
 * `presence.changed`; docs/channels.md "Presence") with a real server and real socket.io
 * clients, each signed in with a person's API key: A connects → B sees A online; a second tab of
 * A closing changes nothing; A's last socket closing → B sees A offline. Also the tracker alone.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClientEvents, PresenceChange, PresenceSnapshot, ServerEvents } from "@/lib/realtime/contract";
import type { Clutch } from "@/server/clutch";
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

/** A connected client as `who`, recording what it learns of presence. */
async function client(who: { key: string }) {
  const socket: Client = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token: who.key } });
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
