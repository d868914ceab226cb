/**
 * PromptPack import (RFC 0007, seed 002; docs/promptpacks.md): the seed's Example 1
 * (examples/promptpacks/research-team.pack.yaml) becomes a team whose coordinator delegates to
 * its two specialists; problems are refused with their JSONPath; through the API an admin
 * imports it into a running Clutch, a person asks in the new channel and the team (on a scripted
 * model, called with each prompt's temperature and max_tokens) answers; the team is there again
 * after a restart.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PackImport } from "@/lib/api/types";
import { resolveModel } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { memberOf, PackError, packToTeam, teamTopic } from "@/server/workspace/promptpack";
import * as importRoute from "@/app/api/workspace/import/route";
import * as agentsRoute from "@/app/api/agents/route";
import { say, threadEvents, waitFor } from "./agents";
import { requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";
import { completion, startScriptedModel, toolCall, type ChatMessage, type ChatRequest } from "./scripted-openai";

const EXAMPLE = fs.readFileSync("examples/promptpacks/research-team.pack.yaml", "utf8");
const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PackError) return err.issues;
    throw err;
  }
  throw new Error("no PackError");
};

describe("PromptPack → team", () => {
  it("maps the seed's example: one agent per member, the coordinator delegating to both specialists", () => {
    const team = packToTeam(EXAMPLE);
    expect(team.pack).toEqual({ id: "research-team", name: "Research Team", version: "1.0.0" });
    // The channel's name says "Research Team": the topic says what the team does, once.
    expect(team.channel).toEqual({ name: "research-team", entry_agent: "coordinator", topic: "A coordinator that delegates research and analysis to two specialists" });
    const byId = Object.fromEntries(team.manifests.map((m) => [m.id, m]));
    expect(Object.keys(byId)).toEqual(["coordinator", "researcher", "analyst"]);
    expect(byId.coordinator).toMatchObject({ allowed_agents: ["researcher", "analyst"], display: { name: "Research Coordinator" }, delegate_rules: { researcher: { when_to_delegate: "Searches academic papers and web sources for information" } } });
    expect(byId.coordinator!.system_prompt).toMatch(/^You are a research coordinator/);
    expect(byId.coordinator).toMatchObject({ model_parameters: { temperature: 0.3, max_tokens: 2000 } });
    expect(byId.researcher).toMatchObject({ capabilities: [{ id: "skill:researcher", version: "1.0.0", tags: ["research", "web", "academic"] }], allowed_agents: [], promptpack: { pack: "research-team", parameters: { temperature: 0.7 } } });
    expect(team.notes).toEqual(["coordinator: the tool research is the agent researcher (by its tag)", "coordinator: the tool analyze is the agent analyst (by the same word)"]);
    expect(team.warnings).toEqual([
      "researcher lists the tool web_search (Web Search), which has no implementation here; bind an MCP server to researcher to give it one",
      "researcher lists the tool arxiv_search (ArXiv Search), which has no implementation here; bind an MCP server to researcher to give it one",
    ]);
  });

  it("says each thing once in the channel's topic: the name only where the channel's name does not say it", () => {
    const pack = (over: Record<string, unknown>) => ({ id: "research-team", name: "Research Team", prompts: { a: { name: "A", system_template: "You are A." } }, agents: { entry: "a" }, ...over });
    expect(packToTeam(pack({ description: "Finds and checks sources" })).channel.topic).toBe("Finds and checks sources");
    expect(packToTeam(pack({ id: "rt-2", description: "Finds and checks sources" })).channel.topic).toBe("Research Team: Finds and checks sources");
    expect(packToTeam(pack({})).channel.topic).toBe("");
    expect(packToTeam(pack({ id: "rt-2" })).channel.topic).toBe("Research Team");
    // A description that only repeats the name is said once.
    expect(teamTopic("rt-2", "Research Team", " research team ")).toBe("research team");
    expect(teamTopic("research_team", "Research Team", "x".repeat(300))).toHaveLength(250);
  });

  it("reads tools as members by key, tag or word, never when two members match", () => {
    const tags = (k: string) => ({ billing_agent: ["billing"], tech_agent: ["technical"], order_agent: ["orders"], a: ["x"], b: ["x"] })[k] ?? [];
    expect(memberOf("billing", ["billing_agent", "tech_agent"], tags)).toEqual({ key: "billing_agent", by: "tag" });
    expect(memberOf("technical", ["billing_agent", "tech_agent"], tags)).toEqual({ key: "tech_agent", by: "tag" });
    expect(memberOf("tech_agent", ["billing_agent", "tech_agent"], tags)).toEqual({ key: "tech_agent", by: "key" });
    expect(memberOf("describe", ["describer"], tags)).toEqual({ key: "describer", by: "stem" });
    expect(memberOf("x", ["a", "b"], tags)).toBeNull();
    expect(memberOf("web_search", ["describer"], tags)).toBeNull();
  });

  it("refuses what the RFC's rules refuse, each problem with its JSONPath", () => {
    const pack = (over: Record<string, unknown>) => ({ id: "p", name: "P", prompts: { a: { name: "A", system_template: "You are A." } }, agents: { entry: "a" }, ...over });
    expect(issuesOf(() => packToTeam(pack({ agents: { entry: "nobody" } })))).toEqual([{ path: "$.agents.entry", message: 'names prompt "nobody", which is not in prompts (a)' }]);
    expect(issuesOf(() => packToTeam(pack({ agents: { entry: "a", members: { ghost: {} } } })))).toEqual([{ path: "$.agents.members.ghost", message: 'names prompt "ghost", which is not in prompts' }]);
    expect(issuesOf(() => packToTeam(pack({ prompts: { a: { name: "A", system_template: "x", tools: ["a"] } } })))).toEqual([{ path: "$.prompts.a.tools", message: "an agent cannot list itself (a) among its tools" }]);
    expect(issuesOf(() => packToTeam(pack({ prompts: { a: { name: "A" } } })))).toEqual([{ path: "$.prompts.a.system_template", message: expect.stringMatching(/string/) }]);
    expect(issuesOf(() => packToTeam(pack({ id: "Not An Id" })))[0]!.path).toBe("$.id");
    expect(issuesOf(() => packToTeam("id: [unclosed"))[0]).toMatchObject({ path: "$", message: expect.stringMatching(/^not JSON or YAML/) });

    const withCompany = pack({ prompts: { a: { name: "A", system_template: "You help {{company}}.", variables: [{ name: "company", required: true }] } } });
    expect(issuesOf(() => packToTeam(withCompany))).toEqual([{ path: "$.prompts.a.variables[0]", message: "company is required: give it a value in the import's variables" }]);
    expect(packToTeam(withCompany, { company: "Acme" }).manifests[0]!.system_prompt).toBe("You help Acme.");
  });
});

describe("POST /api/workspace/import", () => {
  let rt: Clutch;
  let admin: TestPrincipal;
  let member: TestPrincipal;
  let model: Awaited<ReturnType<typeof startScriptedModel>>;
  let dir: string;
  let dataDir: string;

  const text = (m: ChatMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));
  const calls = (body: ChatRequest, name: string) => body.messages.filter((m) => JSON.stringify(m.tool_calls ?? []).includes(`"name":"${name}"`)).length;
  /** The coordinator delegates to the researcher, then the analyst, then answers; the specialists submit at once. */
  function answer(body: ChatRequest) {
    if (body.model === "researcher") return calls(body, "submit_result") ? completion(body.model, { content: "Done." }, "stop") : completion(body.model, toolCall("submit_result", { summary: "Solid-state cells reached 500 Wh/kg in 2026 trials." }), "tool_calls");
    if (body.model === "analyst") return calls(body, "submit_result") ? completion(body.model, { content: "Done." }, "stop") : completion(body.model, toolCall("submit_result", { summary: "Energy density up 40% in two years." }), "tool_calls");
    const back = body.messages.filter((m) => m.role === "user" && text(m).includes("finished (result from")).length;
    if (calls(body, "submit_result")) return completion(body.model, { content: "Done." }, "stop");
    if (calls(body, "delegate") === 0) return completion(body.model, toolCall("delegate", { agent_id: "agent:researcher", title: "Find battery research", context_summary: "A person asked what is new in batteries." }), "tool_calls");
    if (back === 1 && calls(body, "delegate") === 1) return completion(body.model, toolCall("delegate", { agent_id: "agent:analyst", title: "Analyze the findings", context_summary: "Findings: solid-state cells at 500 Wh/kg." }), "tool_calls");
    if (back === 2) return completion(body.model, toolCall("submit_result", { summary: "Batteries: 500 Wh/kg solid-state cells, energy density up 40%." }), "tool_calls");
    return completion(body.model, { content: "Waiting." }, "stop");
  }
  const start = () =>
    testClutch({ workspaceDir: dir, dataDir, deployment: "test.promptpack", modelFor: (agent) => resolveModel({ provider: "openai-compatible", baseURL: model.baseURL, apiKey: "test-key", model: agent.manifest.id }) });
  const post = (as: TestPrincipal, body: unknown) =>
    importRoute.POST(requestAs(as, "http://test/api/workspace/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }), undefined as never);

  beforeAll(async () => {
    model = await startScriptedModel(answer);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-"));
    fs.mkdirSync(path.join(dir, "agents"));
    fs.writeFileSync(path.join(dir, "agents", "helper-1.json"), JSON.stringify({ id: "helper-1", system_prompt: "You are a helper.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [] }));
    fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: "helpdesk", entry_agent: "helper-1", answers: "every_message" }] }));
    rt = await start();
    admin = await testPerson(rt, "admin", "Ada Admin");
    member = await testPerson(rt, "member", "Max Member");
  });
  afterAll(async () => {
    await rt?.stop();
    model?.close();
  });

  it("imports the example as a working team: its agents are registered and it answers a request in its channel", async () => {
    expect((await post(member, { pack: EXAMPLE })).status).toBe(403);
    const res = await post(admin, { pack: EXAMPLE });
    expect(res.status).toBe(201);
    const out = (await res.json()) as PackImport;
    expect(out).toMatchObject({ pack: { id: "research-team" }, channel: { name: "research-team" }, agents: ["agent:coordinator", "agent:researcher", "agent:analyst"] });
    expect(out.warnings).toHaveLength(2);

    const agents = (await (await agentsRoute.GET(requestAs(admin, "http://test/api/agents"), undefined as never)).json()) as { agents: { agent_id: string; name: string; source: string }[] };
    expect(agents.agents.find((a) => a.agent_id === "agent:coordinator")).toMatchObject({ name: "Research Coordinator", source: "workspace" });

    await say(rt, out.channel.thread_id, "What is new in battery research?");
    const done = await waitFor(rt, out.channel.thread_id, "the coordinator's result", (evs) => evs.find((e) => e.type === "task.result" && e.from.agent_id === "agent:coordinator"));
    expect(done.payload.summary).toBe("Batteries: 500 Wh/kg solid-state cells, energy density up 40%.");
    const events = (await threadEvents(rt, out.channel.thread_id)).filter((e) => e.run_id === done.run_id);
    expect(events.filter((e) => e.type === "task.result").map((e) => e.from.agent_id)).toEqual(["agent:researcher", "agent:analyst", "agent:coordinator"]);
    // Each agent's model calls use its prompt's parameters.
    const sent = (m: string) => model.requests.find((r) => r.model === m) as unknown as { temperature?: number; max_tokens?: number };
    expect(sent("coordinator")).toMatchObject({ temperature: 0.3, max_tokens: 2000 });
    expect(sent("analyst")).toMatchObject({ temperature: 0.2, max_tokens: 3000 });
  });

  it("refuses the same pack again, and a pack with problems, with their JSONPaths; nothing of either is imported", async () => {
    const again = await post(admin, { pack: EXAMPLE });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("pack_exists");

    const bad = await post(admin, { pack: { id: "broken", name: "Broken", prompts: { a: { name: "A", system_template: "x" } }, agents: { entry: "b", members: { c: {} } } } });
    expect(bad.status).toBe(400);
    const error = ((await bad.json()) as { error: { code: string; message: string; issues: { path: string }[] } }).error;
    expect(error.code).toBe("invalid_pack");
    expect(error.message).toBe('the pack cannot be imported: $.agents.entry: names prompt "b", which is not in prompts (a) (and 1 more); nothing was imported');
    expect(error.issues.map((i) => i.path)).toEqual(["$.agents.entry", "$.agents.members.c"]);

    const clash = await post(admin, { pack: { id: "clash", name: "Clash", prompts: { "helper-1": { name: "H", system_template: "x" } }, agents: { entry: "helper-1" } } });
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as { error: { message: string } }).error.message).toMatch(/already has agent:helper-1/);
    // A channel people made is not taken over by a team.
    await rt.store.createThread({ name: "lunch" }, { agent_id: admin.agent_id });
    const taken = await post(admin, { pack: { id: "lunch", name: "Lunch", prompts: { chef: { name: "Chef", system_template: "x" } }, agents: { entry: "chef" } } });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { error: { message: string } }).error.message).toMatch(/a channel #lunch exists already/);
    expect(rt.channels.map((c) => c.name)).toEqual(["helpdesk", "research-team"]);
  });

  it("the team is there again after a restart", async () => {
    await rt.stop();
    rt = await start();
    expect([...rt.workspace.agents.keys()]).toEqual(["agent:helper-1", "agent:coordinator", "agent:researcher", "agent:analyst"]);
    expect(rt.channels.find((c) => c.name === "research-team")).toMatchObject({ entry_agent: "agent:coordinator" });
  });

  it("a team imported on one node is live on the deployment's other nodes within seconds", async () => {
    // A second node of the same deployment; the import route reaches it (the newest Clutch of the process).
    const importer = await start();
    try {
      expect(rt.workspace.agents.has("agent:scout")).toBe(false);
      const res = await post(admin, { pack: { id: "scouts", name: "Scouts", prompts: { scout: { name: "Scout", system_template: "You scout." } }, agents: { entry: "scout" } } });
      expect(res.status).toBe(201);
      expect(importer.channels.filter((c) => c.name === "scouts")).toHaveLength(1);
      // The first node adds it from the log, once.
      await expect.poll(() => rt.channels.filter((c) => c.name === "scouts"), { timeout: 5_000 }).toEqual([expect.objectContaining({ entry_agent: "agent:scout" })]);
      expect(rt.workspace.agents.has("agent:scout")).toBe(true);
      expect(rt.registry.get("agent:scout")?.card.display.name).toBe("Scout");
      await new Promise((r) => setTimeout(r, 300));
      expect(importer.channels.filter((c) => c.name === "scouts")).toHaveLength(1);
    } finally {
      await importer.stop();
    }
  });
});
