/**
 * The schema registry `/schemas` (docs/schemas.md).
 *
 * 1. The built-in payload types are listed; review.feedback.v1 shows qa-1 (its AgentCard's
 *    `produces`) as its producer, with a link to its card.
 * 2. A person adds a payload type with the form, lands on it, adds a second version from "New
 *    version" (prefilled with the next payload type and the current schema), and compares the
 *    two: the diff shows the field v2 added. Both versions are listed side by side.
 * 3. Adding a version that exists, or a JSON Schema that is not one, is refused in the form with
 *    the server's reason, and nothing is added.
 * 4. A message naming the new type is refused on ingest (a run's import) with the pointer of the
 *    failing field.
 * axe-core finds no serious violation on the list, the schema, the diff and the form.
 *
 * Every e2e test shares one database, so the payload types have a domain unique to the run.
 * Screenshots (1280×800 and 390×844) go to the test's output folder.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { newId } from "../lib/protocol/ids";
import { createChannel, event, screenshots, uniqueName } from "./helpers";

async function serious(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad, `${what}: serious axe violations`).toEqual([]);
}

const domain = `e${newId("task").slice(-8).toLowerCase()}`;
const V1 = {
  type: "object",
  properties: { region: { type: "string" }, amount: { type: "number" } },
  required: ["region", "amount"],
};

test("people browse the registry, add a payload type and a second version, and compare them", async ({ page, request }, info) => {
  // Four pages, each with axe and screenshots: about 30 s alone, and past the default 45 s while
  // the sales-team specs' agents work beside it in CI.
  test.setTimeout(120_000);
  await page.goto("/schemas");
  await expect(page.getByRole("heading", { level: 1, name: "Schemas" })).toBeVisible();
  const list = page.getByRole("region", { name: "Schema list" });
  await expect(list.getByRole("link", { name: /research\.summary/ })).toBeVisible();
  await expect(list.getByRole("link", { name: /task\.request/ })).toBeVisible();
  await serious(page, "/schemas");

  // qa-1 produces the review verdicts.
  await list.getByRole("link", { name: /review\.feedback/ }).click();
  await expect(page).toHaveURL(/\/schemas\/clutch\/review\/feedback@1$/);
  await expect(page.getByRole("heading", { name: "review.feedback.v1" })).toBeVisible();
  await expect(page.getByRole("link", { name: "qa-1" })).toHaveAttribute("href", "/agents/agent%3Aqa-1");
  await expect(page.getByLabel("JSON Schema of schema://clutch/review/feedback@1")).toContainText('"blocking_issues"');
  await serious(page, "a built-in schema");
  await screenshots(page, info, "builtin");

  // A new payload type through the form.
  await page.getByRole("button", { name: "New payload type" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New payload type" });
  await dialog.getByLabel("Payload type").fill(`${domain}.forecast.v1`);
  await dialog.getByLabel(/Description/).fill("A regional sales forecast");
  await dialog.getByLabel(/JSON Schema/).fill(JSON.stringify(V1, null, 2));
  await serious(page, "the new schema form");
  await dialog.getByRole("button", { name: "Add schema" }).click();
  await expect(page).toHaveURL(new RegExp(`/schemas/clutch/${domain}/forecast@1$`));
  await expect(page.getByRole("heading", { name: `${domain}.forecast.v1` })).toBeVisible();
  await expect(page.getByText(/Added by/)).toBeVisible();

  // Its second version, from "New version": the next payload type and the schema to edit.
  await page.getByRole("button", { name: "New version" }).click();
  const next = page.getByRole("dialog", { name: `New version: ${domain}.forecast.v2` });
  await expect(next.getByLabel("Payload type")).toHaveValue(`${domain}.forecast.v2`);
  const v2 = { ...V1, properties: { ...V1.properties, currency: { type: "string", enum: ["EUR", "USD"] } }, required: ["region", "amount", "currency"] };
  await next.getByLabel(/JSON Schema/).fill(JSON.stringify(v2, null, 2));
  await next.getByRole("button", { name: "Add schema" }).click();
  await expect(page).toHaveURL(new RegExp(`/schemas/clutch/${domain}/forecast@2$`));
  const versions = page.getByRole("navigation", { name: "Versions" });
  await expect(versions.getByRole("link")).toHaveText(["v1", "v2"]);
  await expect(versions.getByRole("link", { name: "v2" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("region", { name: "Schema list" }).getByRole("link", { name: new RegExp(`${domain}\\.forecast`) })).toContainText("2 versions");

  await page.getByLabel("Compare with").selectOption({ label: "v1" });
  const diff = page.getByLabel("Differences between the versions");
  await expect(diff).toContainText('"currency"');
  await expect(page.getByText(/Changes from v1 to v2/)).toBeVisible();
  await serious(page, "the comparison");
  await screenshots(page, info, "compare");

  // A version that exists and a JSON Schema that is not one are refused in the form.
  await page.getByRole("button", { name: "New payload type" }).first().click();
  const again = page.getByRole("dialog", { name: "New payload type" });
  await again.getByLabel("Payload type").fill(`${domain}.forecast.v1`);
  await again.getByRole("button", { name: "Add schema" }).click();
  await expect(again.getByRole("alert")).toContainText(`add ${domain}.forecast.v3 instead`);
  await again.getByLabel("Payload type").fill(`${domain}.broken.v1`);
  await again.getByLabel(/JSON Schema/).fill('{ "type": "object", "properties": { "n": { "type": "numbr" } } }');
  await again.getByRole("button", { name: "Add schema" }).click();
  await expect(again.getByRole("alert")).toContainText("json_schema/properties/n/type");
  await again.getByRole("button", { name: "Cancel" }).click();
  expect((await request.get(`/api/schemas/clutch/${domain}/broken@1`)).status()).toBe(404);

  // On ingest (here a run's import), a message naming the type must match it.
  const channel = await createChannel(request, uniqueName("schemas"));
  const bad = event(channel.id, "chat.message", { text: "forecast" }, { run_id: newId("run"), payload_type: `${domain}.forecast.v2` });
  const refused = await request.post("/api/runs/import", { data: JSON.stringify({ ...bad, payload: { text: "forecast", region: "EMEA", amount: "lots", currency: "EUR" } }), headers: { "content-type": "application/x-ndjson" } });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error.message).toContain("/payload/amount must be number");
});
