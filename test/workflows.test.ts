/**
 * Workflows (Clutch Protocol §3.4; docs/workflows.md) through the real orchestrator and router:
 * the workspace folder's product-research workflow (research, then review) runs step by step on
 * a scripted model: each step is routed by its capability, gets the previous result as typed
 * input, and the run ends with the last step's review.feedback.v1. A second workflow, saved over
 * the API, has a step done by an external agent whose result lacks a required field: that step
 * fails with the reason and so does the run. Saving checks the definition with paths, and a save
 * over someone else's is refused.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { WorkflowDetail } from "@/lib/api/types";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { registerAgent } from "@/server/router/registration";
import * as workflowsRoute from "@/app/api/workflows/route";
import * as runsRoute from "@/app/api/workflows/[name]/runs/route";
import { threadEvents, waitFor } from "./agents";
import { requestAs, runRow, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatRequest } from "./scripted-openai";

/** Capabilities of this file's own: the test database is shared, and its log's agents are every test's. */
const RESEARCH = `skill:research-${newId("task").slice(-6).toLowerCase()}`;
const REVIEW = `skill:review-${newId("task").slice(-6).toLowerCase()}`;
const SOURCE = `workflow: product-research
description: Research a question, then have the findings reviewed
steps:
  - id: research
    title: Research the question
    capability: ${RESEARCH}
    expects:
      type: task.result
      payload_type: research.summary.v1
      required: [findings, citations]
  - id: review
    title: Review the findings
    capability: ${REVIEW}
    expects:
      payload_type: review.feedback.v1
`;

let rt: Clutch;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
let dana: TestPrincipal;

const called = (body: ChatRequest) => body.messages.some((m) => JSON.stringify(m.tool_calls ?? []).includes('"name":"submit_result"'));
function answer(body: ChatRequest) {
  if (called(body)) return completion(body.model, { content: "Done." }, "stop");
  if (body.model === "researcher-1") {
    return completion(body.model, toolCall("submit_result", { summary: "Two findings", payload_type: "research.summary.v1", data: { findings: ["Solid-state cells ship in 2027", "Prices fell 12%"], citations: ["https://example.com/a"] } }), "tool_calls");
  }
  return completion(body.model, toolCall("submit_result", { summary: "Approved", payload_type: "review.feedback.v1", data: { decision: "approved", comments: "Well sourced.", blocking_issues: [] } }), "tool_calls");
}

const manifest = (id: string, capability: string, extra: Record<string, unknown> = {}) => ({ id, system_prompt: `You are ${id}.`, allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [], capabilities: [{ id: capability }], ...extra });
const post = <T>(handler: (req: Request, ctx: never) => Promise<Response>, url: string, body: unknown, params?: Record<string, string>) =>
  handler(requestAs(dana, `http://test${url}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }), (params ? { params: Promise.resolve(params) } : undefined) as never).then(async (res) => ({ status: res.status, body: (await res.json()) as T }));

beforeAll(async () => {
  model = await startScriptedModel(answer);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  fs.mkdirSync(path.join(dir, "agents"));
  fs.mkdirSync(path.join(dir, "workflows"));
  fs.writeFileSync(path.join(dir, "agents", "researcher-1.json"), JSON.stringify(manifest("researcher-1", RESEARCH, { produces: ["research.summary.v1"] })));
  fs.writeFileSync(path.join(dir, "agents", "reviewer-1.json"), JSON.stringify(manifest("reviewer-1", REVIEW, { consumes: ["research.summary.v1"], produces: ["review.feedback.v1"] })));
  fs.writeFileSync(path.join(dir, "workflows", "product-research.yaml"), SOURCE);
  fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
  fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: `wf-${newId("thread").slice(-8).toLowerCase()}`, entry_agent: "researcher-1", answers: "every_message" }] }));
  rt = await testClutch({ workspaceDir: dir, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")), modelFor: (agent) => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: agent.manifest.id }) });
  dana = await testPerson(rt, "member", "Dana");
});
afterAll(async () => {
  await rt?.stop();
  model?.close();
});

const rootEnding = (run_id: string) => (evs: StoredEvent[]) => evs.find((e) => e.run_id === run_id && !e.parent_task_id && e.from.agent_id === "agent:workflow" && (e.type === "task.result" || e.type === "task.error"));

describe("workflows", () => {
  it("runs the workspace's workflow step by step: routed by capability, typed input, the last step's result", async () => {
    const started = await post<{ run_id: string; thread_id: string }>(runsRoute.POST, "/api/workflows/product-research/runs", { text: "What is new in batteries?" }, { name: "product-research" });
    expect(started.status).toBe(201);
    const { run_id, thread_id } = started.body;
    const end = await waitFor(rt, thread_id, "the workflow's result", rootEnding(run_id), 40_000);
    expect(end).toMatchObject({ type: "task.result", payload_type: "review.feedback.v1", payload: { decision: "approved" } });

    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === run_id);
    const root = events.find((e) => isEvent(e, "task.request") && !e.parent_task_id)!;
    expect(root.meta?.workflow).toMatchObject({ name: "product-research", version: 1, steps: [{ id: "research", capability: RESEARCH, payload_type: "research.summary.v1" }, { id: "review" }] });
    // Each step as the workflow asked it (the router then addresses a copy to the agent it chose).
    const steps = events.filter((e) => isEvent(e, "task.request") && e.parent_task_id === root.task_id && e.to[0]?.agent_id === "agent:orchestrator");
    expect(steps.map((e) => [e.meta?.workflow_step, e.requires])).toEqual([
      ["research", [RESEARCH]],
      ["review", [REVIEW]],
    ]);
    expect(steps[0]!.payload).toMatchObject({ input: { text: "What is new in batteries?" }, expects: { payload_type: "research.summary.v1", required: ["findings", "citations"] } });
    expect(steps[1]!.payload).toMatchObject({ input_type: "research.summary.v1", input: { findings: ["Solid-state cells ship in 2027", "Prices fell 12%"] } });
    const routed = events.filter((e) => e.type === "routing.decision").map((e) => (e.payload as { selected: string }).selected);
    expect(routed).toEqual(["agent:researcher-1", "agent:reviewer-1"]);
    expect(await runRow(rt, run_id)).toMatchObject({ state: "succeeded" });
  });

  it("fails a step whose result does not meet its expectation, with the reason, and the run with it", async () => {
    const saved = await post<{ workflow: WorkflowDetail }>(workflowsRoute.POST, "/api/workflows", {
      source: "workflow: vendor-check\nsteps:\n  - id: check\n    title: Check the vendor\n    capability: skill:vendor-check\n    expects:\n      payload_type: vendor.check.v1\n      required: [verdict]\n",
    });
    expect(saved.status).toBe(201);
    // Nobody offers the check yet: the saved workflow says so.
    expect(saved.body.workflow.uncovered).toEqual([{ step: "check", title: "Check the vendor", capability: "skill:vendor-check" }]);
    const EXT = "agent:vendor-bot";
    await registerAgent(rt.store, rt.registry, { v: "clutch/0.1", agent_id: EXT, display: { name: "Vendor bot" }, capabilities: [{ id: "skill:vendor-check" }] });

    const started = await post<{ run_id: string; thread_id: string; uncovered: unknown[] }>(runsRoute.POST, "/api/workflows/vendor-check/runs", { text: "Check Acme Corp" }, { name: "vendor-check" });
    expect(started.body.uncovered).toEqual([]);
    const { run_id, thread_id } = started.body;
    const request = await waitFor(rt, thread_id, "the step's request to the vendor bot", (evs) => evs.find((e) => e.run_id === run_id && isEvent(e, "task.request") && e.to[0]?.agent_id === EXT));
    const from = { agent_id: EXT, role: "worker" };
    const at = { thread_id, run_id, task_id: request.task_id, parent_task_id: request.parent_task_id, from, to: [request.from] };
    await rt.store.append([makeMessage({ type: "task.accept", ...at, payload: {} }), makeMessage({ type: "task.result", ...at, payload_type: "vendor.check.v1", payload: { summary: "Looks fine" } })]);

    const end = await waitFor(rt, thread_id, "the workflow's error", rootEnding(run_id));
    expect(end).toMatchObject({ type: "task.error", payload: { code: "WORKFLOW_STEP_FAILED", message: "Step check (Check the vendor) failed: its result lacks verdict, which the step requires", details: { workflow: "vendor-check", step: "check" } } });
    expect(await runRow(rt, run_id)).toMatchObject({ state: "failed" });
  });

  it("checks a definition when it is saved, and refuses a save over someone else's", async () => {
    const bad = await post<{ error: { code: string; message: string; issues: { path: string }[] } }>(workflowsRoute.POST, "/api/workflows", {
      source: "workflow: broken\nsteps:\n  - id: a\n    capability: skill:x@not-a-range\n  - id: a\n    capability: skill:y\n    expects: { payload_type: Nope }\n",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_workflow");
    expect(bad.body.error.issues.map((i) => i.path).sort()).toEqual(["steps.0.capability", "steps.1.expects.payload_type", "steps.1.id"].sort());

    const v2 = await post<{ workflow: WorkflowDetail }>(workflowsRoute.POST, "/api/workflows", { source: SOURCE.replace("Research a question", "Research a market question"), version: 1 });
    expect(v2).toMatchObject({ status: 200, body: { workflow: { name: "product-research", version: 2, description: "Research a market question, then have the findings reviewed" } } });
    const stale = await post<{ error: { code: string } }>(workflowsRoute.POST, "/api/workflows", { source: SOURCE, version: 1 });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: "workflow_changed" } } });
  });

  it("takes Clutch Protocol §3.4's workflow verbatim: a step with only expects goes to a producer of its type, and is checked", async () => {
    // The seed's example, as the seed writes it (no capability).
    const SEED = `workflow: product-research
steps:
  - id: research
    expects:
      type: task.result
      payload_type: research.summary.v1
      required:
        - findings
        - citations
`;
    const saved = await post<{ workflow: WorkflowDetail }>(workflowsRoute.POST, "/api/workflows", { source: SEED, version: 2 });
    expect(saved).toMatchObject({ status: 200, body: { workflow: { name: "product-research", version: 3, uncovered: [], steps: [{ id: "research", capability: null, payload_type: "research.summary.v1" }] } } });
    const started = await post<{ run_id: string; thread_id: string }>(runsRoute.POST, "/api/workflows/product-research/runs", { text: "What is new in batteries?" }, { name: "product-research" });
    expect(started.status).toBe(201);
    const { run_id, thread_id } = started.body;
    const end = await waitFor(rt, thread_id, "the workflow's result", rootEnding(run_id), 40_000);
    expect(end).toMatchObject({ type: "task.result", payload_type: "research.summary.v1", payload: { findings: ["Solid-state cells ship in 2027", "Prices fell 12%"] } });
    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === run_id);
    const step = events.find((e) => isEvent(e, "task.request") && e.meta?.workflow_step === "research" && e.to[0]?.agent_id === "agent:orchestrator")!;
    expect(step.requires).toEqual([]);
    expect(step.payload).toMatchObject({ expects: { payload_type: "research.summary.v1", required: ["findings", "citations"] } });
    // reviewer-1's card produces only review.feedback.v1: the router gives the step to researcher-1, which produces the type.
    const routed = events.find((e) => isEvent(e, "routing.decision"))!;
    expect(routed.payload).toMatchObject({ selected: "agent:researcher-1" });

    // A step names who does it or what it must return.
    const neither = await post<{ error: { code: string; issues: { path: string; message: string }[] } }>(workflowsRoute.POST, "/api/workflows", { source: "workflow: vague\nsteps:\n  - id: think\n" });
    expect(neither.status).toBe(400);
    expect(neither.body.error.issues).toEqual([{ path: "steps.0", message: expect.stringContaining("needs a capability (who does it, e.g. skill:research) or expects.payload_type") }]);
  });
});
