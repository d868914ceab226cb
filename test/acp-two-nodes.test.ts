/**
 * An ACP caller's cancel reaches the node that serves its call (docs/adapters.md "ACP";
 * docs/deploy.md "Several nodes on one PostgreSQL"): ACP over Streamable HTTP is stateless, so a
 * load balancer may send the SDK's `notifications/cancelled` to another node than the one that
 * serves the `agents/run` call. Two Clutches of one deployment on one PostgreSQL: node A serves
 * the call (its agents do the work), node B takes the cancel and tells node A over the
 * deployment's bus; the run is cancelled with the caller's reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { handleAcp } from "@/server/adapters/acp/server";
import { runRow, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { scratchWorkspace, startAgents, threadEvents, waitFor } from "./agents";

let nodeA: Clutch;
let nodeB: Clutch;
let dana: TestPrincipal;
let client: Client;
/** Which node each JSON-RPC message went to, by method. */
const served: { method: string; node: "A" | "B" }[] = [];

const RunResult = z.object({ output: z.object({ run_id: z.string(), thread_id: z.string(), status: z.string() }) });

/**
 * The load balancer: cancels go to node B, everything else to node A; each node authenticates the
 * key itself. The caller's abort does not reach node A's request (as a proxy that keeps its
 * upstream connection would), so only the cancel notification can stop the run.
 */
async function balance(url: string | URL, init?: RequestInit): Promise<Response> {
  const req = new Request(url, { ...init, signal: null });
  const body: unknown = req.method === "POST" ? await req.clone().json() : undefined;
  const method = (Array.isArray(body) ? body[0] : body)?.method ?? "";
  const to = method === "notifications/cancelled" ? "B" : "A";
  served.push({ method, node: to });
  const node = to === "A" ? nodeA : nodeB;
  const principal = await node.identity.authenticate(req.headers);
  if (!principal) return new Response("unauthenticated", { status: 401 });
  return handleAcp(node, principal, req, body);
}

beforeAll(async () => {
  const deployment = `test.acp-nodes.${newId("task")}`;
  nodeA = await startAgents(scratchWorkspace().dir, { deployment });
  nodeB = await testClutch({ deployment });
  dana = await testPerson(nodeA, "member", "Dana");
  client = new Client({ name: "acp-two-nodes", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("http://lb/api/acp"), { fetch: balance, requestInit: { headers: { authorization: `Bearer ${dana.key}` } } }));
});
afterAll(async () => {
  await client?.close();
  await nodeB?.stop();
  await nodeA?.stop();
});

describe("ACP on several nodes", () => {
  it("a cancel that reaches another node than the call's cancels the run the call follows", async () => {
    const first = await client.request({ method: "agents/run", params: { name: "pm-1", input: { text: "Analyze last quarter's sales trends" } } }, RunResult, { timeout: 120_000 });
    expect(first.output.status).toBe("input_required");
    const controller = new AbortController();
    const answering = client.request({ method: "agents/run", params: { name: "pm-1", input: { text: "Regional breakdown by major market", run_id: first.output.run_id } } }, RunResult, { signal: controller.signal, timeout: 120_000 });
    await waitFor(nodeA, first.output.thread_id, "the answer", (evs) => evs.find((e) => e.run_id === first.output.run_id && e.type === "chat.message" && e.from.agent_id === dana.agent_id));
    controller.abort("changed my mind");
    await expect(answering).rejects.toThrow();
    await expect.poll(async () => (await runRow(nodeA, first.output.run_id)).state, { timeout: 20_000 }).toBe("cancelled");
    expect(served.filter((s) => s.method === "notifications/cancelled")).toEqual([{ method: "notifications/cancelled", node: "B" }]);
    const cancel = (await threadEvents(nodeA, first.output.thread_id)).find((e) => e.run_id === first.output.run_id && e.type === "task.cancel");
    expect(cancel?.payload).toMatchObject({ reason: "cancelled by the ACP caller" });
  });
});
