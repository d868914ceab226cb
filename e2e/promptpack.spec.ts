/**
 * Importing a team from a PromptPack on the Agents page (docs/promptpacks.md): an admin opens
 * "Import a team…", chooses the RFC's Example 1 (examples/promptpacks/research-team.pack.yaml,
 * its id and prompt keys made unique to this run: every e2e test shares one database), and sees
 * the three agents that joined, how the coordinator's tools were read and what was left out; the
 * team's channel opens and its agents are in the directory. A pack with problems is refused in
 * the dialog with each problem's JSONPath. axe-core finds no serious violation in the dialog.
 */
import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { newId } from "../lib/protocol/ids";
import { screenshots } from "./helpers";

const suffix = newId("task").slice(-6).toLowerCase();
const pack = fs
  .readFileSync("examples/promptpacks/research-team.pack.yaml", "utf8")
  .replace("id: research-team", `id: research-${suffix}`)
  .replace(/\b(coordinator|researcher|analyst)\b(?=:|\s*\{\}|$)/gm, `$1_${suffix}`);

test("an admin imports a team from a PromptPack and finds it at work in its own channel", async ({ page }, info) => {
  const file = info.outputPath("research-team.pack.yaml");
  fs.writeFileSync(file, pack);
  await page.goto("/agents");
  await page.getByRole("button", { name: "Import a team" }).click();
  const dialog = page.getByRole("dialog", { name: "Import a team" });

  // A pack with problems first: each is named by its JSONPath.
  await dialog.getByLabel("PromptPack").fill("id: broken\nname: Broken\nprompts:\n  a: { name: A, system_template: x }\nagents:\n  entry: b\n  members: { c: {} }\n");
  await dialog.getByRole("button", { name: "Import" }).click();
  const alert = dialog.getByRole("alert");
  await expect(alert).toContainText("2 problems");
  await expect(alert).toContainText("$.agents.entry");
  await expect(alert).toContainText("$.agents.members.c");
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  await dialog.locator('input[type="file"]').setInputFiles(file);
  await expect(dialog.getByLabel("PromptPack")).toHaveValue(/Research Coordinator/);
  await dialog.getByRole("button", { name: "Import" }).click();
  await expect(dialog.getByText(/Research Team joined the workspace: 3 agents/)).toBeVisible();
  await expect(dialog.getByRole("list", { name: "New agents" }).getByRole("listitem")).toHaveText([`coordinator_${suffix} (entry)`, `researcher_${suffix}`, `analyst_${suffix}`]);
  await expect(dialog.getByText(/the tool research is the agent researcher_/)).toBeVisible();
  await expect(dialog.getByText(/web_search \(Web Search\), which has no implementation here/)).toBeVisible();
  await screenshots(page, info, "imported");

  await dialog.getByRole("link", { name: `Open #research-${suffix}` }).click();
  await expect(page).toHaveURL(/\/c\/thr_/);
  await expect(page.getByRole("heading", { name: `research-${suffix}` }).first()).toBeVisible();

  await page.goto(`/agents/${encodeURIComponent(`agent:coordinator_${suffix}`)}`);
  await expect(page.getByRole("heading", { name: "Research Coordinator" }).first()).toBeVisible();
});
