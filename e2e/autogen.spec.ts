/**
 * AutoGen (docs/adapters.md "AutoGen"): an admin imports AutoGen Studio's gallery
 * (test/fixtures/autogen/gallery-default.json, its team labels made unique to this run: every e2e
 * test shares one database) through "Import a team…", sees the agent that joined, the note that
 * the first of its two teams was imported and the calculator FunctionTool left out with its path;
 * the team's channel opens. Then a running AutoGen team is watched live there: the recorded
 * round-robin stream (AutoGen's test_round_robin_group_chat_with_tools) is posted with an API key
 * as the forwarder posts it, and the run shows in the channel with its agents' messages and its
 * stop reason. axe-core finds no serious violation in the dialog.
 */
import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { newId } from "../lib/protocol/ids";
import { messageLog } from "./helpers";

const suffix = newId("task").slice(-6).toLowerCase();
const gallery = fs.readFileSync("test/fixtures/autogen/gallery-default.json", "utf8").replaceAll('"label": "Default Team"', `"label": "Default Team ${suffix}"`);
const stream = (JSON.parse(fs.readFileSync("test/fixtures/autogen/streams/round-robin-tools.json", "utf8")) as { task: string; stream: Record<string, unknown>[] });

test("an admin imports the AutoGen gallery and watches an AutoGen run live in the team's channel", async ({ page, request }, info) => {
  const file = info.outputPath("gallery-default.json");
  fs.writeFileSync(file, gallery);
  await page.goto("/agents");
  await page.getByRole("button", { name: "Import a team" }).click();
  const dialog = page.getByRole("dialog", { name: "Import a team" });
  await dialog.locator('input[type="file"]').setInputFiles(file);
  await expect(dialog.getByLabel("PromptPack or AutoGen team")).toHaveValue(/autogen_agentchat\.teams\.RoundRobinGroupChat/);
  await dialog.getByRole("button", { name: "Import" }).click();
  await expect(dialog.getByText(`Default Team ${suffix} joined the workspace: 1 agent`)).toBeVisible();
  const team = `default-team-${suffix}`;
  await expect(dialog.getByRole("list", { name: "New agents" }).getByRole("listitem")).toHaveText([`${team}-assistant_agent (entry)`]);
  await expect(dialog.getByText(/the gallery has 2 teams/)).toBeVisible();
  await expect(dialog.getByText(/\$\.items\.teams\[0\]\.config\.participants\[0\]\.config\.tools\[0\]: assistant_agent's tool calculator is a Python function/)).toBeVisible();
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  await dialog.getByRole("link", { name: `Open #${team}` }).click();
  await expect(page).toHaveURL(/\/c\/thr_/);
  await expect(page.getByRole("heading", { name: team }).first()).toBeVisible();

  // The AutoGen process's forwarder, with the admin's API key.
  const made = await request.post("/api/keys", { data: { name: "autogen forwarder" } });
  expect(made.status(), await made.text()).toBe(201);
  const headers = { authorization: `Bearer ${((await made.json()) as { key: string }).key}` };
  const started = await request.post("/api/autogen/runs", { headers, data: { channel: team, task: stream.task, team: `Default Team ${suffix}` } });
  expect(started.status(), await started.text()).toBe(201);
  const { run_id } = (await started.json()) as { run_id: string };
  for (const m of stream.stream) {
    const res = await request.post(`/api/autogen/runs/${run_id}/messages`, { headers, data: m });
    expect([200, 201], await res.text()).toContain(res.status());
  }
  const card = messageLog(page, team).getByRole("article", { name: `Run: ${stream.task}` });
  await expect(card).toContainText("Succeeded");
  await expect(card).toContainText("stopped: Text 'TERMINATE' mentioned");
  const shot = info.outputPath("channel-autogen-run.png");
  await page.screenshot({ path: shot });
  await info.attach("channel-autogen-run", { path: shot, contentType: "image/png" });

  // The run's page names the team's agents as the channel does, once its events have loaded.
  await page.goto(`/runs/${run_id}`);
  await expect(page.locator(".react-flow__node").filter({ hasText: "AutoGen · " }).first()).toBeVisible();
  await expect(page.locator(".react-flow__node").filter({ hasText: /\bautogen-/ })).toHaveCount(0);
  const runShot = info.outputPath("run-autogen.png");
  await page.screenshot({ path: runShot });
  await info.attach("run-autogen", { path: runShot, contentType: "image/png" });
});
