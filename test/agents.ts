/**
 * Test harness for the agent system: the sales-analysis workspace in a channel of its own
 * (so test files sharing the database do not see each other's runs), on the built-in model.
 */
import { personId } from "@/lib/people";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { newId, type StoredEvent } from "@/lib/protocol";
import { builtinModel, loadPlaybooks } from "@/server/agents/models";
import type { Clutch } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { indexQuestions } from "@/lib/fold/questions";
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
    JSON.stringify({ agents: "agents", mcp: path.join(EXAMPLE, "mcp.json"), channels: [{ name: channel, entry_agent: "pm-1" }], ...settings }),
  );
  return { dir, channel };
}

/** A Clutch on the test database running the agents of `workspaceDir` on the built-in model with the example's playbooks. */
export async function startAgents(workspaceDir: string): Promise<Clutch> {
  const playbooks = await loadPlaybooks(EXAMPLE);
  return testClutch({
    workspaceDir,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-data-")),
    modelFor: () => builtinModel({ playbooks }),
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

/** Poll the thread until `find` returns something (or time out with what was seen). */
export async function waitFor<T>(rt: Clutch, thread_id: string, what: string, find: (events: StoredEvent[]) => T | undefined, ms = 90_000): Promise<T> {
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
