/**
 * A third-party agent written on the public API only (examples/third-party-agent/agent.ts, run as
 * its own process with nothing but an API key): a person @mentions it in a channel, and its answer
 * comes back as the run's result, live.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import { BASE_URL } from "../playwright.config";
import { createChannel, messageLog, openChannel, postMessage, uniqueName } from "./helpers";

test("a person's request to a third-party agent is answered by it, on the public API alone", async ({ page, request }) => {
  test.setTimeout(60_000);
  const name = `word-counter-${Date.now().toString(36)}`;
  const made = await request.post(`/api/agents/${encodeURIComponent(`agent:${name}`)}/keys`, { data: { name: "e2e" } });
  expect(made.status(), await made.text()).toBe(201);
  const { key } = (await made.json()) as { key: string };

  let agent: ChildProcess | undefined;
  try {
    agent = spawn(process.execPath, ["--import", "tsx", "examples/third-party-agent/agent.ts"], {
      env: { ...process.env, CLUTCH_URL: BASE_URL, CLUTCH_AGENT_KEY: key, AGENT_ID: `agent:${name}` },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      agent!.stdout!.on("data", (d: Buffer) => d.toString().includes('listening {"ok":true}') && resolve());
      agent!.on("exit", (code) => reject(new Error(`the example agent exited with ${code}`)));
    });

    const thread = await createChannel(request, uniqueName("third"));
    await openChannel(page, thread, "conversation");
    await postMessage(request, thread.id, `@${name} count the words in this request please`);
    const card = messageLog(page, thread.name).getByRole("article", { name: "Run: count the words in this request please" });
    await expect(card).toContainText("Succeeded");
    await expect(card).toContainText("The request has 7 words.");
    await expect(card).toContainText("Result · Word counter");
  } finally {
    agent?.kill();
  }
});
