/**
 * Workflows in the UI (docs/workflows.md): a person creates a workflow from the template's shape
 * on /workflows/new, finds it listed with its steps, edits it (saved as v2), and runs it. The
 * run view shows the workflow's steps above the task tree: its step waits for an agent with a
 * capability nobody offers ("Routing"). Cancelling the run ends the step and the workflow. A
 * definition with problems is refused in the editor with each problem's path. axe-core finds no
 * serious violation on the page and the run view. Names are unique to the run (a shared database).
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { newId } from "../lib/protocol/ids";
import { screenshots } from "./helpers";

async function serious(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad, `${what}: serious axe violations`).toEqual([]);
}

const name = `vendor-${newId("task").slice(-6).toLowerCase()}`;
const source = (description: string) => `workflow: ${name}
description: ${description}
steps:
  - id: check
    title: Check the vendor
    capability: skill:vendor-check-${name}
    expects:
      payload_type: vendor.check.v1
      required: [verdict]
  - id: decide
    title: Decide
    capability: skill:planning
`;

test("a person creates, edits and runs a workflow, and watches its steps in the run view", async ({ page, request }, info) => {
  test.setTimeout(90_000);
  await page.goto("/workflows/new");
  await expect(page.getByRole("heading", { level: 1, name: "Workflows" })).toBeVisible();
  const editor = page.getByRole("textbox", { name: /Definition/ });
  // The template names capabilities the example's agents offer.
  await expect(editor).toHaveValue(/capability: skill:data-analysis/);

  // Problems first, each with its path.
  await editor.fill(`workflow: ${name}\nsteps:\n  - id: a\n    capability: skill:x@not-a-range\n  - id: a\n    capability: skill:y\n`);
  await page.getByRole("button", { name: "Create workflow" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Not saved" });
  await expect(alert).toContainText("2 problems");
  await expect(alert).toContainText("steps.0.capability");
  await expect(alert).toContainText("steps.1.id");

  await editor.fill(source("Check a vendor, then decide"));
  await page.getByRole("button", { name: "Create workflow" }).click();
  await expect(page).toHaveURL(new RegExp(`/workflows/${name}$`));
  await expect(page.getByRole("heading", { name: new RegExp(`^${name} v1`) })).toBeVisible();
  await expect(page.getByRole("list", { name: "Steps" }).getByRole("listitem")).toHaveCount(2);
  // Nobody offers the vendor check: flagged.
  await expect(page.getByRole("alert").filter({ hasText: "No agent can take this step now" })).toContainText(`skill:vendor-check-${name}`);
  await expect(page.getByRole("region", { name: "Workflow list" }).getByRole("link", { name: new RegExp(name) })).toContainText("2 steps · v1");
  await serious(page, "a workflow");

  // An edit is saved as the next version.
  await page.getByRole("textbox", { name: /Definition/ }).fill(source("Check a vendor's paperwork, then decide"));
  await page.getByRole("button", { name: "Save as v2" }).click();
  await expect(page.getByRole("heading", { name: new RegExp(`^${name} v2`) })).toBeVisible();
  await expect(page.getByText("Check a vendor's paperwork, then decide").first()).toBeVisible();
  await screenshots(page, info, "workflow");

  // Run it: the run view shows its steps.
  await page.getByLabel("Run it on").fill("Check Acme Corp");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  const strip = page.getByRole("region", { name: `Workflow ${name}` });
  await expect(strip).toContainText(`${name} v2`);
  await expect(strip.getByText("Step 1: Routing", { exact: true }).first()).toBeVisible();
  await expect(strip.getByText("Step 2: Waiting", { exact: true }).first()).toBeVisible();
  await serious(page, "the run view of a workflow run");
  await screenshots(page, info, "run");

  const run_id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  expect((await request.post(`/api/runs/${encodeURIComponent(run_id)}/cancel`, { data: { reason: "not needed" } })).status()).toBe(200);
  await expect(strip.getByText("Step 1: Failed", { exact: true }).first()).toBeVisible();
});

test("the template, as New workflow offers it, runs to its reviewed result", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto("/workflows/new");
  const editor = page.getByRole("textbox", { name: /Definition/ });
  await expect(editor).toHaveValue(/capability: skill:data-analysis/);
  // The template as offered; only its name is this run's own (a shared database).
  const template = await editor.inputValue();
  const own = `sales-check-${newId("task").slice(-6).toLowerCase()}`;
  await editor.fill(template.replace(/^workflow: .+$/m, `workflow: ${own}`));
  await page.getByRole("button", { name: "Create workflow" }).click();
  await expect(page).toHaveURL(new RegExp(`/workflows/${own}$`));
  await page.getByLabel("Run it on").fill("Analyze last quarter's sales trends");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  // Both steps end done (the review's inquiry to the analyst, whose step had ended, is answered for it) and the run succeeds.
  const strip = page.getByRole("region", { name: `Workflow ${own}` });
  await expect(strip.getByText("Step 2: Done", { exact: true }).first()).toBeVisible({ timeout: 150_000 });
  await expect(page.getByText("Run state: Succeeded").first()).toBeVisible();
});
