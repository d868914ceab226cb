/**
 * The built-in model's engine: the playbook registry (a workspace's playbooks loaded by path,
 * the generic playbook for everything else), what an agent without a playbook says, and the
 * model interface (determinism, streaming). Called the way the runner calls a model
 * (test/fixtures/simulated-runner.ts). The sales team's playbooks are tested next to them, in
 * examples/sales-analysis/playbooks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { event, meta, names, SimulatedAgent } from "@/test/fixtures/simulated-runner";
import { BuiltinLanguageModel } from "./builtin";
import { loadPlaybooks, type Playbooks } from "./playbooks";

const PERSON = { agent_id: "user:dana", role: "human", display_name: "Dana" };

/** A task.request the orchestrator opened for Dana's message `text` (server/orchestrator openRun). */
function personRequest(to: string, text: string, task_id = "T1") {
  return event(
    "task.request",
    "agent:orchestrator",
    to,
    { title: text, instructions: text, context_summary: `User request from Dana in #sales: ${text}`, input: { message_id: "msg_dana", from: PERSON } },
    { task_id },
  );
}

function agent(agent_id: string, system: string, playbooks?: Playbooks) {
  return new SimulatedAgent(new BuiltinLanguageModel({ playbooks }), meta(agent_id, "T9"), system);
}

describe("an agent without a playbook", () => {
  it("asked by another agent, declines with a reason that names the request", async () => {
    const w = agent("agent:writer-2", "You write things.");
    w.inbound(event("task.request", "agent:orchestrator", "agent:writer-2", { title: "Draft a haiku about invoices" }, { task_id: "T9" }));
    const calls = await w.turn((c) => w.ack(c));
    expect(names(calls)).toEqual(["decline"]);
    expect(String(calls[0].input.reason)).toContain("Draft a haiku about invoices");
    expect(String(calls[0].input.reason)).toMatch(/^No playbook for this agent/);
  });

  it("asked by a person, tells them in the channel that it did nothing and how to connect a real model, then declines", async () => {
    const w = agent("agent:writer-2", "You write things.");
    w.inbound(personRequest("agent:writer-2", "Draft a haiku about invoices", "T9"));
    const calls = await w.turn((c) => w.ack(c));
    expect(names(calls)).toEqual(["reply", "decline"]);
    expect(calls[0].input.to).toBe("user");
    const text = String(calls[0].input.text);
    expect(text).toMatch(/built-in model/);
    expect(text).toContain("no playbook for this agent");
    expect(text).toContain("> Draft a haiku about invoices");
    for (const v of ["CLUTCH_MODEL=openai:<model>", "OPENAI_BASE_URL", "CLUTCH_MODEL=anthropic:<model>", "ANTHROPIC_API_KEY", "CLUTCH_MODEL_WRITER_2"]) expect(text).toContain(v);
    expect(String(calls[1].input.reason)).toContain("Draft a haiku about invoices");
    expect((await w.step()).calls).toEqual([]);
  });

  it("answers a question put to it just as plainly", async () => {
    const w = agent("agent:writer-2", "You write things.");
    w.inbound(event("task.request", "agent:pm-1", "agent:writer-2", { title: "Draft a haiku about invoices" }, { task_id: "T9" }));
    const q = w.inbound(event("chat.message", "agent:pm-1", "agent:writer-2", { text: "How long will it be?", expects_reply: true }, { task_id: "T9" }));
    const { calls } = await w.step();
    expect(names(calls)).toEqual(["reply"]);
    expect(calls[0].input).toMatchObject({ to: "agent:pm-1", reply_to: q.id });
    expect(String(calls[0].input.text)).toContain('has not worked on "How long will it be?"');
    expect(String(calls[0].input.text)).toContain("CLUTCH_MODEL_WRITER_2");
  });

  it("is every agent of a workspace without playbooks, pm-1 included", async () => {
    const pm = agent("agent:pm-1", "You are the ProjectManager agent.");
    pm.inbound(personRequest("agent:pm-1", "Analyze last quarter's sales trends", "T9"));
    const calls = await pm.turn((c) => pm.ack(c));
    expect(names(calls)).toEqual(["reply", "decline"]);
    expect(String(calls[0].input.text)).toContain("CLUTCH_MODEL_PM_1");
  });
});

describe("the playbook registry", () => {
  it("loads a workspace's playbooks/index.ts by path and lets them play their agents; the rest get the generic playbook", async () => {
    const playbooks = await loadPlaybooks("test/fixtures/echo-workspace");
    expect(playbooks).toBeDefined();
    const echo = agent("agent:echo-1", "You echo.", playbooks);
    echo.inbound(personRequest("agent:echo-1", "Say it back", "T9"));
    const echoed = await echo.turn((c) => echo.ack(c));
    expect(echoed.map((c) => c.input)).toEqual([{ summary: "Echo: Say it back" }]);

    const other = agent("agent:other-1", "You do other things.", playbooks);
    other.inbound(personRequest("agent:other-1", "Say it back", "T9"));
    expect(names(await other.turn((c) => other.ack(c)))).toEqual(["reply", "decline"]);
  });

  it("names the role that answered in the response's provider metadata", async () => {
    const model = new BuiltinLanguageModel({ playbooks: await loadPlaybooks("test/fixtures/echo-workspace") });
    const prompt = (agent_id: string) => [
      { role: "system" as const, content: "", providerOptions: { clutch: { ...meta(agent_id, "T9") } } },
      { role: "user" as const, content: [{ type: "text" as const, text: "Say it back", providerOptions: { clutch: { event: personRequest(agent_id, "Say it back", "T9") as never } } }] },
    ];
    expect((await model.doGenerate({ prompt: prompt("agent:echo-1") })).providerMetadata?.clutch).toEqual({ role: "echo", builtin: true });
    expect((await model.doGenerate({ prompt: prompt("agent:other-1") })).providerMetadata?.clutch).toEqual({ role: "generic", builtin: true });
  });

  it("finds no playbooks in a folder without playbooks/index.ts, and refuses a module that does not export them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-playbooks-"));
    try {
      expect(await loadPlaybooks(dir)).toBeUndefined();
      fs.mkdirSync(path.join(dir, "playbooks"));
      fs.writeFileSync(path.join(dir, "playbooks", "index.ts"), "export default { roles: { pm: 42 } };\n");
      await expect(loadPlaybooks(dir)).rejects.toMatchObject({ code: "MODEL_CONFIG", message: expect.stringMatching(/must export default \{ roles/) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the model interface", () => {
  it("streams the same action it generates, and the same prompt gives the same call ids", async () => {
    const w = agent("agent:writer-2", "You write things.");
    w.inbound(personRequest("agent:writer-2", "Draft a haiku about invoices", "T9"));
    const a = await w.step();
    const b = await w.step();
    const s = await w.step(true);
    expect(a.calls).toEqual(b.calls);
    expect(s.calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input }))).toEqual(
      a.calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    );
    expect(a.calls[0].toolName).toBe("reply");
  });
});
