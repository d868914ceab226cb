/**
 * A run that fails for configuration says so in people's words (docs/adapters.md "AutoGen"): an
 * agent whose model cannot be set up ends its task with task.error MODEL_NOT_CONFIGURED, and the
 * run's card reads what is missing and which setting to change, not a model error or a prompt.
 * Real PostgreSQL.
 */
import fs from "node:fs";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunSummary } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import { UnconfiguredModel } from "@/server/agents/models";
import { threadRuns } from "@/server/events/runs";
import { say, scratchWorkspace, waitFor } from "./agents";
import { testClutch } from "./helpers";

let rt: Clutch;
let thread_id: string;
beforeAll(async () => {
  const ws = scratchWorkspace();
  rt = await testClutch({
    workspaceDir: ws.dir,
    dataDir: fs.mkdtempSync(`${os.tmpdir()}/clutch-data-`),
    modelFor: (agent) => new UnconfiguredModel(agent.agent_id, "its imported model cannot be used here: the OpenAI-compatible model needs a base URL: set OPENAI_BASE_URL"),
  });
  thread_id = rt.channels.find((c) => c.name === ws.channel)!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
});

describe("an agent with no model it can use", () => {
  it("ends its task saying what to set, and the run's card reads it", async () => {
    const asked = await say(rt, thread_id, "Analyze last quarter's sales trends");
    const error = await waitFor(rt, thread_id, "the task's error", (evs) => evs.find((e) => e.type === "task.error" && e.run_id !== asked.run_id));
    expect(error.payload).toMatchObject({ code: "MODEL_NOT_CONFIGURED", retryable: false });
    expect(String(error.payload.message)).toMatch(/^pm-1 has no model to work with: .*set OPENAI_BASE_URL/);
    expect(String(error.payload.message)).toContain("CLUTCH_MODEL_PM_1");
    const runOf = async (): Promise<RunSummary | undefined> => (await threadRuns(rt.store.queries, thread_id)).find((r) => r.run_id === error.run_id);
    await expect.poll(async () => (await runOf())?.state, { timeout: 15_000 }).toBe("failed");
    expect((await runOf())!.outcome).toMatchObject({ kind: "error", text: expect.stringMatching(/^pm-1 has no model to work with/) });
  });
});
