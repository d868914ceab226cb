/**
 * Test harness for the agent system: the sales-analysis workspace in a channel of its own
 * (so test files sharing the database do not see each other's runs), on the built-in model.
 */
import { personId } from "@/lib/people";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { newId, type StoredEvent } from "@/lib/protocol";
import { builtinModel, loadPlaybooks } from "@/server/agents/models";
import type { Clutch, ClutchOptions } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { indexQuestions } from "@/lib/fold/questions";
import { expect, inject } from "vitest";
import { testClutch } from "./helpers";

const EXAMPLE = path.resolve("examples/sales-analysis");

/**
 * A workspace folder like the example's, with one channel `sales-<random>`, optional manifest
 * edits, an optional clutch.policy.yaml (none: everything allowed) and optional extra
 * workspace.json settings (`routing`, `registry`).
 */
export function scratchWorkspace(
  edit?: (manifests: Record<string, Record<string, unknown>>) => void,
  policy?: string,
  settings: Record<string, unknown> = {},
): { dir: string; channel: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-ws-"));
  const channel = `sales-${newId("thread").slice(-8).toLowerCase()}`;
  const manifests: Record<string, Record<string, unknown>> = {};
  for (const f of fs.readdirSync(path.join(EXAMPLE, "agents"))) {
    manifests[f] = JSON.parse(fs.readFileSync(path.join(EXAMPLE, "agents", f), "utf8"));
  }
  edit?.(manifests);
  fs.mkdirSync(path.join(dir, "agents"));
  for (const [f, m] of Object.entries(manifests)) fs.writeFileSync(path.join(dir, "agents", f), JSON.stringify(m));
  if (policy) fs.writeFileSync(path.join(dir, "clutch.policy.yaml"), policy);
  fs.writeFileSync(
    path.join(dir, "workspace.json"),
    JSON.stringify({ agents: "agents", mcp: path.join(EXAMPLE, "mcp.json"), channels: [{ name: channel, entry_agent: "pm-1", answers: "every_message" }], ...settings }),
  );
  return { dir, channel };
}

/**
 * A Clutch on the test database running the agents of `workspaceDir` on the built-in model with
 * the example's playbooks; `options` add to or override testClutch's (e.g. `deployment`, for a
 * second node of the same deployment).
 */
export async function startAgents(workspaceDir: string, options: Partial<ClutchOptions> = {}): Promise<Clutch> {
  const playbooks = await loadPlaybooks(EXAMPLE);
  return testClutch({
    workspaceDir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => builtinModel({ playbooks }),
    ...options,
  });
}

/** Post a person's message as the API does (`user:<slug of name>`, as people were named before accounts). */
export async function say(rt: Clutch, thread_id: string, text: string, display_name = "Dana"): Promise<StoredEvent> {
  const msg = await personMessage(rt.store.queries, thread_id, { text }, { agent_id: personId(display_name), display_name }, (id) => rt.registry.has(id));
  return (await rt.store.append(msg)).events[0]!;
}

/**
 * The person answers the newest open question to people in the thread (the composer's Answer:
 * a reply that names the question; a message without `reply_to` is a new request).
 * Throws when no question waits.
 */
export async function answer(rt: Clutch, thread_id: string, text: string, display_name = "Dana"): Promise<StoredEvent> {
  const open = indexQuestions(await threadEvents(rt, thread_id)).openToPeople;
  const question = open[open.length - 1];
  if (!question) throw new Error(`no open question to answer in ${thread_id}`);
  const msg = await personMessage(rt.store.queries, thread_id, { text, reply_to: question.id }, { agent_id: personId(display_name), display_name }, (id) => rt.registry.has(id));
  return (await rt.store.append(msg)).events[0]!;
}

/** All events of a thread, in seq order. */
export function threadEvents(rt: Clutch, thread_id: string): Promise<StoredEvent[]> {
  return rt.store.readAll({ thread_id });
}

/**
 * Poll the thread until `find` returns something, or fail after `ms` with what it waited for and the
 * thread's last events. The default is under Vitest's test timeout (60 s, vitest.config.ts), so a
 * wait that never ends says which one it was.
 */
export async function waitFor<T>(rt: Clutch, thread_id: string, what: string, find: (events: StoredEvent[]) => T | undefined, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const events = await threadEvents(rt, thread_id);
    const found = find(events);
    if (found !== undefined && found !== false) return found;
    if (Date.now() > end) {
      const tail = events.slice(-15).map((e) => `${e.seq} ${e.type} ${e.from.agent_id} ${JSON.stringify(e.payload).slice(0, 160)}`);
      throw new Error(`timed out waiting for ${what}; last events:\n${tail.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Assert that a finished sales run (pm-1 → analyst-1 → qa-1 review) happened once: no agent
 * action stored twice (one event per instance, step, call and type), every task accepted and
 * ended once, every tool call with exactly one outcome, and the report reached the person after
 * qa's approval. `events` are the run's, in seq order.
 */
export function expectSalesRunOnce(events: StoredEvent[]): void {
  const actionKey = (e: StoredEvent) => {
    const a = e.meta?.agent as { instance_id: string; step: number; call_id?: string } | undefined;
    return a ? `${e.type}|${a.instance_id}|${a.step}|${a.call_id ?? ""}` : null;
  };
  const keys = events.map(actionKey).filter(Boolean);
  expect(keys.length).toBeGreaterThan(20);
  expect(new Set(keys).size).toBe(keys.length);
  for (const type of ["task.accept", "task.result"]) {
    const tasks = events.filter((e) => e.type === type).map((e) => e.task_id);
    expect(new Set(tasks).size, type).toBe(tasks.length);
  }
  const calls = events.filter((e) => e.type === "tool.call").map((e) => e.payload.call_id);
  const outcomes = events.filter((e) => e.type === "tool.result" || e.type === "tool.error").map((e) => e.payload.call_id);
  expect([...outcomes].sort()).toEqual([...calls].sort());
  expect(events.some((e) => e.type === "task.result" && e.payload_type === "review.feedback.v1" && e.payload.decision === "approved")).toBe(true);
  expect(events.some((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.to[0]?.agent_id === "user" && /Q4 2017/.test(String(e.payload.text)))).toBe(true);
}

/** A Clutch node in a process of its own (test/fixtures/agent-process.ts), and where its agents work. */
export interface AgentNode {
  process: ChildProcess;
  agents: "here" | "standby";
  /** How many model calls its agents have made so far. */
  modelCalls(): number;
}

/**
 * Start a Clutch node with the workspace's agents in a process of its own, in `deployment` (nodes
 * of one deployment elect one leader), on the test database. Resolves once it has started; the
 * caller kills it (SIGKILL for a hard stop) and collects it in `children` for the cleanup. `env`
 * adds to its environment (CLUTCH_NODE_NAME, CLUTCH_AGENT_CONCURRENCY, CLUTCH_TEST_MODEL_DELAY_MS:
 * test/fixtures/agent-process.ts).
 */
export function startAgentNode(workspaceDir: string, deployment: string, children: ChildProcess[], env: Record<string, string> = {}): Promise<AgentNode> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/agent-process.ts", workspaceDir, deployment], {
    env: { ...process.env, DATABASE_URL: inject("databaseUrl"), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let calls = 0;
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      const out = d.toString();
      calls += out.match(/model call/g)?.length ?? 0;
      const ready = /ready (here|standby)/.exec(out);
      if (ready) resolve({ process: child, agents: ready[1] as AgentNode["agents"], modelCalls: () => calls });
    });
    child.on("exit", (code) => reject(new Error(`agent process exited with ${code} before it was ready`)));
  });
}
