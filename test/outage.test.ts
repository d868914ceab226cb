/**
 * A database outage, made real: Clutch reaches PostgreSQL through a TCP relay that the test cuts
 * and restores. While the database cannot be reached, writes answer 503 `database_unavailable`
 * with Retry-After and store nothing, and /api/health says so without the driver's error; once it
 * is back, the same request succeeds (docs/limits.md, "The database").
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import * as eventsRoute from "@/app/api/events/route";
import * as healthRoute from "@/app/api/health/route";
import { chat, newThread, requestAs, testAgent, testClutch, type TestPrincipal } from "./helpers";

/** A TCP relay to `target` that can be cut (every connection dropped, new ones refused) and restored on the same port. */
class Relay {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => this.server!.once("error", reject).listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get isOpen(): boolean {
    return this.server !== null;
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
    this.server = null;
  }
}

let relay: Relay;
let rt: Clutch;
let thread_id: string;

beforeAll(async () => {
  const url = new URL(inject("databaseUrl"));
  relay = new Relay({ host: url.hostname, port: Number(url.port || 5432) });
  await relay.open();
  url.hostname = "127.0.0.1";
  url.port = String(relay.port);
  rt = await testClutch({ databaseUrl: url.toString() });
  thread_id = await newThread(rt, "outage");
  tester = await testAgent(rt);
});
afterAll(async () => {
  if (!relay.isOpen) await relay.open();
  await rt?.stop();
  await relay.cut();
});

/** agent:tester, the sender of `chat()` messages. */
let tester: TestPrincipal;
const post = (body: unknown) => requestAs(tester, "http://test/api", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("while the database cannot be reached", () => {
  it("writes answer 503 database_unavailable with Retry-After, health says so plainly, and the retry succeeds once it is back", async () => {
    const run_id = newId("run");
    expect((await eventsRoute.POST(post(chat("before", { thread_id, run_id })), undefined as never)).status).toBe(201);

    await relay.cut();
    const during = chat("during the outage", { thread_id, run_id });
    const res = await eventsRoute.POST(post(during), undefined as never);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toEqual({
      error: { code: "database_unavailable", message: "the database cannot be reached right now; nothing was stored; retry in 5 seconds" },
    });
    const health = await healthRoute.GET(new Request("http://test/api/health"), undefined as never);
    expect(health.status).toBe(503);
    const body = JSON.stringify(await health.json());
    expect(body).toContain("the database cannot be reached");
    expect(body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|Can't reach|Connection terminated/i);

    await relay.open();
    const retried = await eventsRoute.POST(post(during), undefined as never);
    expect(retried.status).toBe(201);
    const texts = (await rt.store.read({ thread_id }, { limit: 100 })).events.map((e) => e.payload.text);
    expect(texts.filter((t) => t === "during the outage")).toHaveLength(1);
  });
});
