/**
 * Clutch's A2A cards from anywhere, and its tasks at either endpoint (server/adapters/a2a/server.ts,
 * tasks.ts; docs/adapters.md "A2A: Clutch as an A2A agent"), driven by the official `@a2a-js/sdk`
 * client. Without CLUTCH_PUBLIC_URL a card names the address the client reached (here 127.0.0.2,
 * where nothing listens on localhost's port: the client follows the card's url, so a card that
 * named localhost would be refused), a Host header's name, and X-Forwarded-Host/-Proto only from a
 * trusted proxy; CLUTCH_PUBLIC_URL wins. A task sent to an agent's endpoint is found, resubscribed
 * and cancelled at the workspace's `/a2a`, never at another agent's, and never by another caller.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { Role, TaskState, type StreamResponse } from "@a2a-js/sdk";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { a2aApp, type A2AAddress } from "@/server/adapters/a2a/server";
import { parseTrustedProxies } from "@/server/http/client-address";
import { runRow, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { startA2AAgent, type ScriptedA2AAgent } from "@/examples/agents-from-anywhere/travel-agent";

let rt: Clutch;
let remote: ScriptedA2AAgent;
const servers: http.Server[] = [];
let dana: TestPrincipal;
let lee: TestPrincipal;
/** Served without a public URL nor trusted proxies, on 127.0.0.2 (nothing listens on localhost at its port). */
let direct: { base: string; port: number };
/** Served without a public URL, behind a trusted proxy (every loopback address). */
let proxied: { base: string; port: number };
/** Served with a public URL. */
let pinned: { base: string; port: number };

async function serve(host: string, address: (port: number) => A2AAddress): Promise<{ base: string; port: number }> {
  const server = http.createServer();
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  server.on("request", a2aApp(rt, address(port)));
  return { base: `http://${host}:${port}`, port };
}

beforeAll(async () => {
  remote = await startA2AAgent();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  for (const id of ["travel-1", "travel-2"]) {
    fs.writeFileSync(
      path.join(dir, "agents", `${id}.json`),
      JSON.stringify({ id, system_prompt: "Books flights.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [], capabilities: [{ id: "skill:travel" }], runtime: { kind: "a2a", card_url: remote.card_url } }),
    );
  }
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  const channel = `a2a-cards-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: channel, entry_agent: "travel-1", answers: "every_message" }] }));
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: () => ({}) as never });
  direct = await serve("127.0.0.2", (port) => ({ port }));
  proxied = await serve("127.0.0.1", (port) => ({ port, trustedProxies: parseTrustedProxies("127.0.0.0/8") }));
  pinned = await serve("127.0.0.1", (port) => ({ publicUrl: "https://clutch.example.org", port, trustedProxies: parseTrustedProxies("127.0.0.0/8") }));
  dana = await testPerson(rt, "member", "Dana");
  lee = await testPerson(rt, "member", "Lee");
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  await rt?.stop();
  await remote?.close();
});

/** GET `url` with `headers` (a Host header too, which fetch does not send as given), as JSON. */
function getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => {
          try {
            resolve(JSON.parse(body) as Record<string, unknown>);
          } catch (err) {
            reject(new Error(`${url} answered ${res.statusCode}: ${body.slice(0, 200)} (${(err as Error).message})`));
          }
        });
      })
      .on("error", reject);
  });
}
/** The JSON-RPC url an A2A 1.0 card names. */
const urlOf = (card: Record<string, unknown>) => (card.supportedInterfaces as { url: string }[])[0]!.url;

const as = (p: TestPrincipal) => ({ serviceParameters: { authorization: `Bearer ${p.key}` } });
const message = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({
  tenant: "",
  message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }], taskId: ids.taskId ?? "", contextId: ids.contextId ?? "", metadata: {}, extensions: [], referenceTaskIds: [] },
  configuration: undefined,
  metadata: {},
});
const textOf = (r: StreamResponse) =>
  r.payload?.$case === "statusUpdate" ? r.payload.value.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("") : undefined;
const stateOf = (r: StreamResponse) => (r.payload?.$case === "statusUpdate" ? r.payload.value.status?.state : r.payload?.$case === "task" ? r.payload.value.status?.state : undefined);

async function collect(stream: AsyncGenerator<StreamResponse>, each?: (r: StreamResponse) => void | Promise<void>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const r of stream) {
    out.push(r);
    await each?.(r);
  }
  return out;
}

describe("Clutch's A2A cards", () => {
  it("name the address the client reached, which the SDK client follows", async () => {
    const card = await getJson(`${direct.base}/.well-known/agent-card.json`, { "a2a-version": "1.0" });
    expect(urlOf(card)).toBe(`${direct.base}/a2a`);
    const legacy = await getJson(`${direct.base}/a2a/agents/travel-1/.well-known/agent-card.json`, {});
    expect(legacy).toMatchObject({ url: `${direct.base}/a2a/agents/travel-1`, protocolVersion: "0.3" });
    // The official client, on "another machine": it reaches 127.0.0.2 and follows the card there.
    for (const at of ["", "/a2a/agents/travel-1"]) {
      const client = await new ClientFactory().createFromUrl(`${direct.base}${at}/.well-known/agent-card.json`, "");
      const sent = await client.sendMessage(message("Book a flight to Rome on Monday"), as(dana));
      expect(sent).toMatchObject({ status: { state: TaskState.TASK_STATE_COMPLETED } });
    }
  });

  it("name the Host a request came to, and ignore X-Forwarded-Host and -Proto from a peer that is no trusted proxy", async () => {
    const spoofed = { host: "clutch.lan:8080", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", "a2a-version": "1.0" };
    expect(urlOf(await getJson(`${direct.base}/.well-known/agent-card.json`, spoofed))).toBe("http://clutch.lan:8080/a2a");
    expect(urlOf(await getJson(`${direct.base}/a2a/agents/travel-2/.well-known/agent-card.json`, spoofed))).toBe("http://clutch.lan:8080/a2a/agents/travel-2");
  });

  it("name the address a trusted proxy forwards, and the public URL above all", async () => {
    const forwarded = { host: "127.0.0.1", "x-forwarded-host": "clutch.example.com, inner.proxy", "x-forwarded-proto": "https", "a2a-version": "1.0" };
    expect(urlOf(await getJson(`${proxied.base}/.well-known/agent-card.json`, forwarded))).toBe("https://clutch.example.com/a2a");
    const legacy = await getJson(`${proxied.base}/a2a/agents/travel-1/.well-known/agent-card.json`, { "x-forwarded-host": "clutch.example.com:8443", "x-forwarded-proto": "https" });
    expect(legacy).toMatchObject({ url: "https://clutch.example.com:8443/a2a/agents/travel-1" });
    // A trusted proxy that forwards only the scheme: the Host it sent, with that scheme.
    expect(urlOf(await getJson(`${proxied.base}/.well-known/agent-card.json`, { host: "clutch.lan", "x-forwarded-proto": "https", "a2a-version": "1.0" }))).toBe("https://clutch.lan/a2a");
    expect(urlOf(await getJson(`${pinned.base}/.well-known/agent-card.json`, forwarded))).toBe("https://clutch.example.org/a2a");
  });
});

describe("Clutch's A2A tasks at either endpoint", () => {
  let workspace: Client;
  let agent1: Client;
  let agent2: Client;
  beforeAll(async () => {
    workspace = await new ClientFactory().createFromUrl(direct.base);
    agent1 = await new ClientFactory().createFromUrl(`${direct.base}/a2a/agents/travel-1/.well-known/agent-card.json`, "");
    agent2 = await new ClientFactory().createFromUrl(`${direct.base}/a2a/agents/travel-2/.well-known/agent-card.json`, "");
  });

  it("finds a task an agent's endpoint took at the workspace's, for its caller only, and cancels it there", async () => {
    const first = await collect(agent1.sendMessageStream(message("Book me a flight to Oslo"), as(dana)));
    const task = first.find((r) => r.payload?.$case === "task")!.payload!.value as unknown as { id: string; metadata: { clutch: { run_id: string } } };
    expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    expect((await workspace.getTask({ tenant: "", id: task.id }, as(dana))).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const listed = await workspace.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 100, pageToken: "", historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: false }, as(dana));
    expect(listed.tasks.map((t) => t.id)).toContain(task.id);
    // A resubscriber at the workspace's endpoint gets the task, then its end (the cancel below).
    const resubscribed = collect(workspace.resubscribeTask({ tenant: "", id: task.id }, as(dana)));
    // Not at another agent's endpoint, and never another caller's.
    await expect(agent2.getTask({ tenant: "", id: task.id }, as(dana))).rejects.toThrow(/not found/i);
    await expect(workspace.getTask({ tenant: "", id: task.id }, as(lee))).rejects.toThrow(/not found/i);
    await expect(workspace.cancelTask({ tenant: "", id: task.id, metadata: {} }, as(lee))).rejects.toThrow(/not found/i);

    const cancelled = await workspace.cancelTask({ tenant: "", id: task.id, metadata: {} }, as(dana));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const seen = await resubscribed;
    expect(stateOf(seen[0]!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf(seen.at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await agent1.getTask({ tenant: "", id: task.id }, as(dana))).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await runRow(rt, task.metadata.clutch.run_id)).state).toBe("cancelled");
  });

  it("takes the answer to an agent endpoint's question at the workspace's", async () => {
    const first = await collect(agent1.sendMessageStream(message("Book me a flight to Porto"), as(dana)));
    const task = first.find((r) => r.payload?.$case === "task")!.payload!.value as unknown as { id: string; contextId: string };
    expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const second = await collect(workspace.sendMessageStream(message("Friday", { taskId: task.id, contextId: task.contextId }), as(dana)));
    expect(stateOf(second.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(second)).toContain("Flight booked for Friday.");
    expect((await agent1.getTask({ tenant: "", id: task.id }, as(dana))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("streams a running task to a resubscriber at the workspace's endpoint, and cancels its run from there", async () => {
    let taskId = "";
    let run_id = "";
    let resubscribed: Promise<StreamResponse[]> | null = null;
    const events = await collect(agent1.sendMessageStream(message("[slow] Find the cheapest flight anywhere"), as(dana)), async (r) => {
      if (r.payload?.$case === "task") {
        taskId = r.payload.value.id;
        run_id = (r.payload.value.metadata as { clutch: { run_id: string } }).clutch.run_id;
      }
      if (textOf(r) === "travel-1: Searching every airline…") {
        resubscribed = collect(workspace.resubscribeTask({ tenant: "", id: taskId }, as(dana)));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await workspace.cancelTask({ tenant: "", id: taskId, metadata: {} }, as(dana));
      }
    });
    expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOf((await resubscribed!).at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await runRow(rt, run_id)).state).toBe("cancelled");
  });
});
