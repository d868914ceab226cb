/**
 * An agent on an OpenAI-compatible endpoint, through the real agent loop: a local HTTP server
 * that speaks the chat-completions protocol scripts a DataServer query, then a submit_result
 * built from the query's rows; the run finishes with that result.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { say, waitFor } from "./agents";
import { runRow, testClutch } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";

let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

/** The scripted model: query, then submit what the query returned, then end the turn. */
function answer(body: ChatRequest) {
  const tools = body.messages.filter((m) => m.role === "tool");
  if (tools.length === 0) return completion(body.model, toolCall("DataServer__query_data", { sql: "SELECT COUNT(*) AS n FROM orders" }, "call_q"), "tool_calls");
  if (tools.length === 1) {
    const content = tools[0]!.content;
    const n = /"n":\s*(\d+)/.exec(typeof content === "string" ? content : JSON.stringify(content))?.[1] ?? "unknown";
    return completion(body.model, toolCall("submit_result", { summary: `There are ${n} order lines.` }, "call_s"), "tool_calls");
  }
  return completion(body.model, { content: "Done." }, "stop");
}

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const baseURL = model.baseURL;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.writeFileSync(
    path.join(dir, "agents", "counter-1.json"),
    JSON.stringify({
      id: "counter-1",
      system_prompt: "You are CounterAgent, who counts orders.",
      allowed_agents: [],
      delegate_rules: {},
      overseer: null,
      mcp_bindings: [{ server_id: "DataServer", scopes: ["read:data"], allowed_tools: ["query_data"] }],
    }),
  );
  const channel = `count-${newId("thread").slice(-8).toLowerCase()}`;
  fs.writeFileSync(
    path.join(dir, "workspace.json"),
    JSON.stringify({ mcp: path.resolve("examples/sales-analysis/mcp.json"), channels: [{ name: channel, entry_agent: "counter-1", answers: "every_message" }] }),
  );
  rt = await testClutch({
    workspaceDir: dir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => resolveModel({ provider: "openai-compatible", baseURL, apiKey: "test-key", model: "scripted-1" }),
  });
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

describe("an agent on an OpenAI-compatible endpoint", () => {
  it("calls the scripted tools through the agent loop and finishes with a result built from the tool's output", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    await say(rt, thread_id, "How many order lines are there?");
    const result = await waitFor(rt, thread_id, "the agent's result", (evs) => evs.find((e) => e.type === "task.result"));
    expect(result.payload.summary).toBe("There are 9994 order lines.");
    expect(result.from.agent_id).toBe("agent:counter-1");
    await rt.orchestrator.settled();
    await rt.runner.idle();

    const requests = model.requests;
    const first = requests[0]!;
    expect(first.model).toBe("scripted-1");
    expect(first.tools!.map((t) => t.function.name).sort()).toEqual(["DataServer__query_data", "ask", "decline", "delegate", "reply", "submit_result"]);
    // Tool schemas without the `$schema` key some OpenAI-compatible servers refuse; the rest intact.
    expect(JSON.stringify(first.tools)).not.toContain("$schema");
    const query = first.tools!.find((t) => t.function.name === "DataServer__query_data") as unknown as { function: { parameters: { required: string[] } } };
    expect(query.function.parameters.required).toEqual(["sql"]);
    const delegate = first.tools!.find((t) => t.function.name === "delegate") as unknown as { function: { parameters: { required: string[] } } };
    expect(delegate.function.parameters.required).toEqual(["title", "context_summary"]);
    expect(JSON.stringify(first.messages[0])).toContain("You are CounterAgent, who counts orders.");
    expect(JSON.stringify(first.messages)).toContain("How many order lines are there?");
    expect(requests).toHaveLength(2); // query, then submit: a finished task calls its model no more
    const run = await runRow(rt, result.run_id);
    expect(run.state).toBe("succeeded");
  });
});
