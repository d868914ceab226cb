/**
 * AutoGen team import (Clutch Protocol §7.3 `autogen`; docs/adapters.md "AutoGen"): the real
 * AutoGen Studio gallery (test/fixtures/autogen/README.md) becomes teams with the right prompts,
 * model specs, channel, pattern, notes and warnings; bad specs are refused with the JSONPath of
 * each problem and nothing stored; through the API an admin imports both gallery teams into a
 * running Clutch, and they are there again after a restart.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { PackImport } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import { PackError } from "@/server/workspace/promptpack";
import { autogenToTeam, importedModelSpec } from "@/server/workspace/autogen";
import { generateText } from "ai";
import { modelForAgent } from "@/server/agents/models";
import * as importRoute from "@/app/api/workspace/import/route";
import * as agentsRoute from "@/app/api/agents/route";
import { requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";

const GALLERY = fs.readFileSync("test/fixtures/autogen/gallery-default.json", "utf8");
const STUDIO = JSON.parse(fs.readFileSync("test/fixtures/autogen/gallery-studio-frontend.json", "utf8")) as { components: { teams: unknown[]; workbenches: unknown[] } };
const gallery = () => JSON.parse(GALLERY) as { items: { teams: { config: { participants: { config: { system_message: string } }[] } }[] } };
const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PackError) return err.issues;
    throw err;
  }
  throw new Error("no PackError");
};

const assistant = (name: string, extra: Record<string, unknown> = {}) => ({
  provider: "autogen_agentchat.agents.AssistantAgent",
  component_type: "agent",
  config: { name, description: `${name} helps`, system_message: `You are ${name}.`, model_client: { provider: "OpenAIChatCompletionClient", component_type: "model", config: { model: "gpt-4o" } }, ...extra },
});
const teamOf = (provider: string, config: Record<string, unknown>, label = "Tiny") => ({ provider: `autogen_agentchat.teams.${provider}`, component_type: "team", label, config });

describe("AutoGen team spec → team", () => {
  it("maps the gallery's round-robin team: one agent with its prompt and model, the calculator tool warned with its path", () => {
    const team = autogenToTeam(JSON.parse(GALLERY), { team: 0 });
    expect(team.pack).toEqual({ id: "default-team", name: "Default Team", version: "1" });
    // The channel's name says "Default Team": the topic is the team's description alone.
    expect(team.channel).toEqual({ name: "default-team", entry_agent: "default-team-assistant_agent", topic: "A single AssistantAgent (with a calculator tool) in a RoundRobinGroupChat team." });
    const [agent] = team.manifests;
    expect(team.manifests).toHaveLength(1);
    expect(agent).toMatchObject({ id: "default-team-assistant_agent", display: { name: "assistant_agent", desc: "An agent that provides assistance with ability to use tools." }, allowed_agents: [], mcp_bindings: [] });
    expect(agent!.system_prompt).toBe(gallery().items.teams[0]!.config.participants[0].config.system_message);
    expect(agent!.system_prompt).toMatch(/^You are a helpful assistant/);
    expect(importedModelSpec(agent!)).toEqual({ provider: "openai-compatible", name: "openai", model: "gpt-4o-mini" });
    expect(team.warnings).toEqual([
      "$.items.teams[0].config.participants[0].config.tools[0]: assistant_agent's tool calculator is a Python function (its source is not run by Clutch); left out. Bind an MCP server that offers it to give assistant_agent the tool",
    ]);
    expect(team.autogen.pattern).toMatchObject({
      kind: "round_robin",
      participants: [{ name: "assistant_agent", kind: "agent", agent_id: "agent:default-team-assistant_agent" }],
      termination: { kind: "or", conditions: [{ kind: "text_mention", text: "TERMINATE", sources: null }, { kind: "max_message", max_messages: 10, include_agent_event: false }] },
      max_turns: null,
    });
  });

  it("maps the gallery's selector team: the web surfer left out with a warning, the user proxy asking the people, the selector's prompt and model kept", () => {
    const team = autogenToTeam(JSON.parse(GALLERY), { team: "Web Agent Team (Operator)" });
    expect(team.pack.id).toBe("web-agent-team-operator");
    expect(team.manifests.map((m) => m.id)).toEqual(["web-agent-team-operator-assistant_agent"]);
    expect(team.manifests[0]!.system_prompt).toMatch(/^You are a task verification assistant/);
    expect(team.channel.entry_agent).toBe("web-agent-team-operator-assistant_agent");
    expect(team.warnings).toEqual(["$.items.teams[1].config.participants[0]: websurfer_agent is a MultimodalWebSurfer, which Clutch cannot run; left out of the team (its turns are skipped)"]);
    expect(team.notes).toEqual([
      "$.items.teams[1].config.participants[2]: user_proxy (UserProxyAgent) asks the people in the channel: its turn is a question to them",
      "$.items.teams[1].config.participants: the first participant Clutch runs, assistant_agent, is the channel's entry agent",
    ]);
    const p = team.autogen.pattern;
    expect(p.kind).toBe("selector");
    expect(p.participants.map((x) => [x.name, x.kind])).toEqual([["websurfer_agent", "left_out"], ["assistant_agent", "agent"], ["user_proxy", "people"]]);
    expect(p.selector_prompt).toMatch(/select the next role from \{participants\}/);
    expect(p.team_model).toEqual({ provider: "openai-compatible", name: "openai", model: "gpt-4o-mini" });
    expect(p.allow_repeated_speaker).toBe(false);
    expect(p.termination).toMatchObject({ kind: "or", conditions: [{ kind: "max_message", max_messages: 20 }, { kind: "text_mention", text: "TERMINATE" }] });
  });

  it("imports the first team of a gallery when none is picked, and says so", () => {
    const team = autogenToTeam(JSON.parse(GALLERY));
    expect(team.pack.id).toBe("default-team");
    expect(team.notes[0]).toBe("the gallery has 2 teams (0: Default Team, 1: Web Agent Team (Operator)); the first was imported: import again with team=<index or label> for another");
  });

  it("maps Anthropic, Ollama and OpenAI-compatible clients, model_context limits, handoffs and an MCP workbench", () => {
    const mcp = STUDIO.components.workbenches[1];
    const team = autogenToTeam(
      teamOf("Swarm", {
        participants: [
          assistant("planner", { handoffs: [{ target: "writer", description: "Hand the outline to the writer", name: "transfer_to_writer", message: "Over to you" }, "user"], model_client: { provider: "autogen_ext.models.anthropic.AnthropicChatCompletionClient", component_type: "model", config: { model: "claude-3-7-sonnet-20250219", api_key: "sk-secret", temperature: 0.2 } }, model_context: { provider: "autogen_core.model_context.BufferedChatCompletionContext", component_type: "chat_completion_context", config: { buffer_size: 5 } }, workbench: [mcp] }),
          assistant("writer", { handoffs: ["planner"], model_client: { provider: "OllamaChatCompletionClient", component_type: "model", config: { model: "llama3.2", host: "http://gpu:11434" } } }),
          assistant("local", { model_client: { provider: "autogen_ext.models.openai.OpenAIChatCompletionClient", component_type: "model", config: { model: "mistral", base_url: "http://vllm:8000/v1", max_tokens: 512 } } }),
        ],
        termination_condition: { provider: "autogen_agentchat.conditions.HandoffTermination", component_type: "termination", config: { target: "user" } },
      }),
    );
    const [planner, writer, local] = team.manifests;
    expect(importedModelSpec(planner!)).toEqual({ provider: "anthropic", model: "claude-3-7-sonnet-20250219" });
    expect(planner).toMatchObject({ model_parameters: { temperature: 0.2 }, allowed_agents: ["tiny-writer"], delegate_rules: { "tiny-writer": { when_to_delegate: "Hand the outline to the writer" } }, autogen: { model_context: { kind: "buffered", buffer_size: 5 } } });
    expect(planner!.mcp_bindings).toEqual([{ server_id: "web_content_fetch_workbench", description: expect.stringMatching(/^An MCP workbench/), scopes: [], allowed_tools: [] }]);
    expect(JSON.stringify(team.manifests)).not.toContain("sk-secret");
    expect(team.warnings).toEqual(
      expect.arrayContaining([
        "$.config.participants[0].config.model_client.config.api_key: not kept; set ANTHROPIC_API_KEY on the server instead",
        expect.stringMatching(/^\$\.config\.participants\[0\]\.config\.workbench\[0\]: planner is bound to the MCP server web_content_fetch_workbench; add it to the workspace's MCP file \("web_content_fetch_workbench": \{"command":"uvx","args":\["mcp-server-fetch"\]\}\)/),
      ]),
    );
    expect(importedModelSpec(writer!)).toEqual({ provider: "openai-compatible", name: "ollama", model: "llama3.2", baseURL: "http://gpu:11434/v1" });
    expect(writer!.allowed_agents).toEqual(["tiny-planner"]);
    expect(importedModelSpec(local!)).toEqual({ provider: "openai-compatible", name: "openai-compatible", model: "mistral", baseURL: "http://vllm:8000/v1" });
    expect(local).toMatchObject({ model_parameters: { max_tokens: 512 } });
    expect(team.autogen.pattern.handoffs).toEqual([
      { from: "planner", target: "writer", name: "transfer_to_writer", description: "Hand the outline to the writer", message: "Over to you" },
      { from: "planner", target: "user", name: null, description: null, message: null },
      { from: "writer", target: "planner", name: null, description: null, message: null },
    ]);
    expect(team.autogen.pattern.termination).toEqual({ kind: "handoff", target: "user" });
  });

  it("an imported agent runs on its model client's spec when the server has its key; else on the deployment's real model, saying why; with only the built-in model it says what to set", async () => {
    const spec = importedModelSpec(autogenToTeam(JSON.parse(GALLERY), { team: 0 }).manifests[0]!);
    const id = "agent:default-team-assistant_agent";
    const withKey = modelForAgent({ OPENAI_API_KEY: "sk-test" }, id, spec) as { provider: string; modelId: string };
    expect([withKey.provider, withKey.modelId]).toEqual(["openai.chat", "gpt-4o-mini"]);
    const why: string[] = [];
    const deployment = modelForAgent({ CLUTCH_MODEL: "anthropic:claude-x", ANTHROPIC_API_KEY: "k" }, id, spec, {}, (err) => why.push(err.message)) as { provider: string };
    expect(deployment.provider).toBe("anthropic.messages");
    expect(why).toEqual([expect.stringMatching(/needs a base URL: set OPENAI_BASE_URL/)]);
    // Only the built-in model, which knows nothing of the team's work: every call says what to set.
    const none = modelForAgent({ CLUTCH_MODEL: "builtin" }, id, spec);
    await expect(generateText({ model: none, prompt: "hi", maxRetries: 0 })).rejects.toThrow(
      /^default-team-assistant_agent has no model to work with: its imported model cannot be used here: .*OPENAI_BASE_URL[\s\S]*CLUTCH_MODEL_DEFAULT_TEAM_ASSISTANT_AGENT/,
    );
    // The agent's own variable wins over the import.
    expect((modelForAgent({ OPENAI_API_KEY: "sk-test", CLUTCH_MODEL_DEFAULT_TEAM_ASSISTANT_AGENT: "builtin" }, id, spec) as { provider: string }).provider).toBe("clutch.builtin");
  });

  it("says the team's label in its channel's topic only when the channel's name does not", () => {
    const rr = (description?: string) => ({ ...teamOf("RoundRobinGroupChat", { participants: [assistant("a")] }, "Tiny Helpers"), ...(description ? { description } : {}) });
    expect(autogenToTeam(rr("Answers small questions")).channel).toMatchObject({ name: "tiny-helpers", topic: "Answers small questions" });
    expect(autogenToTeam(rr("Answers small questions"), { id: "helpdesk-2" }).channel).toMatchObject({ name: "helpdesk-2", topic: "Tiny Helpers: Answers small questions" });
    expect(autogenToTeam(rr()).channel).toMatchObject({ name: "tiny-helpers", topic: "" });
  });

  it("refuses unknown providers, missing participants and endless handoff cycles, each with its JSONPath", () => {
    const rr = (participants: unknown[], extra: Record<string, unknown> = {}) => teamOf("RoundRobinGroupChat", { participants, ...extra });
    expect(issuesOf(() => autogenToTeam({ ...rr([assistant("a")]), provider: "my_pkg.MyTeam" }))).toEqual([{ path: "$.provider", message: expect.stringMatching(/^unknown team provider "my_pkg.MyTeam"/) }]);
    expect(issuesOf(() => autogenToTeam(rr([{ ...assistant("a"), provider: "my_pkg.agents.Custom" }])))).toEqual([{ path: "$.config.participants[0].provider", message: expect.stringMatching(/^unknown agent provider "my_pkg.agents.Custom"/) }]);
    expect(issuesOf(() => autogenToTeam(rr([assistant("a", { model_client: { provider: "acme.LLM", config: { model: "x" } } })])))).toEqual([{ path: "$.config.participants[0].config.model_client.provider", message: expect.stringMatching(/^unknown model client provider "acme.LLM"/) }]);
    expect(issuesOf(() => autogenToTeam(rr([assistant("a")], { termination_condition: { provider: "acme.Stop", config: {} } })))).toEqual([{ path: "$.config.termination_condition.provider", message: 'unknown termination condition provider "acme.Stop"' }]);
    expect(issuesOf(() => autogenToTeam(rr([])))).toEqual([{ path: "$.config.participants", message: "a team needs at least one participant" }]);
    expect(issuesOf(() => autogenToTeam(teamOf("Swarm", { participants: [assistant("a", { handoffs: ["ghost"] })], max_turns: 3 })))).toEqual([{ path: "$.config.participants[0].config.handoffs[0].target", message: "hands off to ghost, who is not a participant of the team (a)" }]);
    expect(issuesOf(() => autogenToTeam(rr([assistant("a"), assistant("a")])))).toEqual([{ path: "$.config.participants[1].config.name", message: "two participants are named a" }]);
    expect(issuesOf(() => autogenToTeam(rr([assistant("a")], { termination_condition: { provider: "autogen_agentchat.conditions.SourceMatchTermination", config: { sources: ["b"] } } })))).toEqual([{ path: "$.config.termination_condition.config.sources[0]", message: "names b, who is not a participant of the team (a)" }]);
    const cycle = teamOf("Swarm", { participants: [assistant("a", { handoffs: ["b"] }), assistant("b", { handoffs: ["a"] })] });
    expect(issuesOf(() => autogenToTeam(cycle))).toEqual([{ path: "$.config.termination_condition", message: "the handoffs a → b → a form a cycle and the team has neither termination_condition nor max_turns: it would never end" }]);
    expect(autogenToTeam({ ...cycle, config: { ...cycle.config, max_turns: 10 } }).manifests).toHaveLength(2);
    expect(issuesOf(() => autogenToTeam(rr([{ provider: "autogen_agentchat.agents.UserProxyAgent", config: { name: "u" } }])))).toEqual([{ path: "$.config.participants", message: "the team has no AssistantAgent: Clutch needs at least one agent it can run" }]);
    expect(issuesOf(() => autogenToTeam(JSON.parse(GALLERY), { team: "Nope" }))).toEqual([{ path: "$.items.teams", message: 'the gallery has no team "Nope"; it has 0: Default Team, 1: Web Agent Team (Operator)' }]);
  });
});

describe("POST /api/workspace/import with AutoGen specs", () => {
  let rt: Clutch;
  let admin: TestPrincipal;
  let dir: string;
  const start = () => testClutch({ workspaceDir: dir, deployment: "test.autogen-import", modelFor: () => { throw new Error("no model in this test"); } });
  const post = (body: unknown) =>
    importRoute.POST(requestAs(admin, "http://test/api/workspace/import", { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) }), undefined as never);
  /** The ids of the deployment's stored imports, read from the table itself. */
  const stored = async () => {
    const c = new pg.Client({ connectionString: inject("databaseUrl") });
    await c.connect();
    try {
      return (await c.query<{ id: string }>("SELECT id FROM promptpacks WHERE deployment = $1 ORDER BY id", ["test.autogen-import"])).rows.map((r) => r.id);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
    fs.mkdirSync(path.join(dir, "agents"));
    fs.writeFileSync(path.join(dir, "agents", "helper-1.json"), JSON.stringify({ id: "helper-1", system_prompt: "You are a helper.", allowed_agents: [], delegate_rules: {}, overseer: null, mcp_bindings: [] }));
    fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    fs.writeFileSync(path.join(dir, "workspace.json"), JSON.stringify({ channels: [{ name: "helpdesk", entry_agent: "helper-1", answers: "every_message" }] }));
    rt = await start();
    admin = await testPerson(rt, "admin", "Ada Admin");
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it("imports both gallery teams from the gallery's JSON text: agents registered by their AutoGen names, channels made, warnings and notes returned", async () => {
    const first = await post({ pack: GALLERY });
    expect(first.status).toBe(201);
    const a = (await first.json()) as PackImport;
    expect(a).toMatchObject({ pack: { id: "default-team", name: "Default Team" }, channel: { name: "default-team" }, agents: ["agent:default-team-assistant_agent"] });
    expect(a.warnings).toEqual([expect.stringMatching(/^\$\.items\.teams\[0\]\.config\.participants\[0\]\.config\.tools\[0\]: assistant_agent's tool calculator is a Python function/)]);
    expect(a.notes[0]).toMatch(/^the gallery has 2 teams/);

    const second = await post({ pack: GALLERY, team: 1 });
    expect(second.status).toBe(201);
    const b = (await second.json()) as PackImport;
    expect(b).toMatchObject({ pack: { id: "web-agent-team-operator" }, agents: ["agent:web-agent-team-operator-assistant_agent"] });
    expect(b.warnings).toEqual([expect.stringMatching(/^\$\.items\.teams\[1\]\.config\.participants\[0\]: websurfer_agent is a MultimodalWebSurfer/)]);

    const agents = (await (await agentsRoute.GET(requestAs(admin, "http://test/api/agents"), undefined as never)).json()) as { agents: { agent_id: string; name: string; source: string }[] };
    expect(agents.agents.find((x) => x.agent_id === "agent:default-team-assistant_agent")).toMatchObject({ name: "assistant_agent", source: "workspace" });
    expect(rt.channels.find((c) => c.name === "web-agent-team-operator")).toMatchObject({ entry_agent: "agent:web-agent-team-operator-assistant_agent" });
    expect(await rt.store.queries.threadByName("default-team")).toBeTruthy();
    expect(await stored()).toEqual(["default-team", "web-agent-team-operator"]);
  });

  it("refuses bad specs with 400 and the JSONPath of each problem; nothing is stored", async () => {
    const before = await stored();
    const refused = async (body: unknown) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { code: string; message: string; issues?: { path: string; message: string }[] } }).error;
    };
    const unknown = await refused({ pack: teamOf("RoundRobinGroupChat", { participants: [{ ...assistant("a"), provider: "evil.Agent" }] }, "Unknown") });
    expect(unknown.code).toBe("invalid_pack");
    expect(unknown.message).toMatch(/^the AutoGen team cannot be imported: \$\.config\.participants\[0\]\.provider: unknown agent provider "evil.Agent"/);
    expect(unknown.issues!.map((i) => i.path)).toEqual(["$.config.participants[0].provider"]);
    const missing = await refused({ pack: teamOf("Swarm", { participants: [assistant("a", { handoffs: ["b", "c"] })], max_turns: 2 }, "Missing") });
    expect(missing.issues!.map((i) => i.path)).toEqual(["$.config.participants[0].config.handoffs[0].target", "$.config.participants[0].config.handoffs[1].target"]);
    const cycle = await refused({ pack: teamOf("Swarm", { participants: [assistant("a", { handoffs: ["b"] }), assistant("b", { handoffs: ["a"] })] }, "Cycle") });
    expect(cycle.issues).toEqual([{ path: "$.config.termination_condition", message: expect.stringMatching(/a → b → a form a cycle/) }]);
    const text = await refused({ pack: '{"provider": "autogen_agentchat.teams.RoundRobinGroupChat", "component_type": "team", "config": {' });
    expect(text.issues![0]!.path).toBe("$");
    const notJson = await post('{"pack": ');
    expect(notJson.status).toBe(400);
    expect(await stored()).toEqual(before);
    expect(rt.channels.map((c) => c.name)).toEqual(["helpdesk", "default-team", "web-agent-team-operator"]);
  });

  it("the imported teams are there again after a restart, with their models and channels", async () => {
    await rt.stop();
    rt = await start();
    expect([...rt.workspace.agents.keys()]).toEqual(["agent:helper-1", "agent:default-team-assistant_agent", "agent:web-agent-team-operator-assistant_agent"]);
    expect(rt.channels.find((c) => c.name === "default-team")).toMatchObject({ entry_agent: "agent:default-team-assistant_agent" });
    expect(importedModelSpec(rt.workspace.agents.get("agent:default-team-assistant_agent")!.manifest)).toMatchObject({ model: "gpt-4o-mini" });
  });
});
