/**
 * Two browsers in the same channel see each other's messages live, and a person's
 * messages are grouped like Slack.
 */
import { expect, test } from "@playwright/test";
import { createChannel, messageLog, openChannel, personContext, send, uniqueName } from "./helpers";

test("two people in one channel see each other's messages live", async ({ browser, request }) => {
  const thread = await createChannel(request, uniqueName("live"));
  const alice = await personContext(browser, request, "Alice Example");
  const bob = await personContext(browser, request, "Bob Example");
  try {
    const a = await alice.newPage();
    const b = await bob.newPage();
    await openChannel(a, thread);
    await openChannel(b, thread);

    await send(a, thread.name, "Hello from **Alice**");
    const fromAlice = messageLog(b, thread.name).getByRole("article", { name: "Message from Alice Example" });
    await expect(fromAlice).toContainText("Hello from Alice");
    await expect(fromAlice.locator("strong")).toHaveText("Alice");

    await send(b, thread.name, "Hi Alice, Bob here");
    await expect(messageLog(a, thread.name).getByRole("article", { name: "Message from Bob Example" })).toContainText(
      "Hi Alice, Bob here",
    );

    // A second message right after the first is grouped: no second name line.
    await send(b, thread.name, "and a follow-up");
    const log = messageLog(a, thread.name);
    await expect(log.getByText("and a follow-up")).toBeVisible();
    await expect(log.getByText("Bob Example", { exact: true })).toHaveCount(1);
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("the composer keeps the text and shows an error when sending fails", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("send-fail"));
  await openChannel(page, thread);
  await page.route("**/messages", (route) =>
    route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable", message: "Server is busy" } }) }),
  );
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await box.fill("a message that must not be lost");
  await box.press("Enter");
  const error = page.getByRole("alert").filter({ hasText: "Couldn’t send" });
  await expect(error).toContainText("Server is busy");
  await expect(box).toHaveValue("a message that must not be lost");

  await page.unroute("**/messages");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  await expect(messageLog(page, thread.name).getByText("a message that must not be lost")).toBeVisible();
  await expect(error).toHaveCount(0);
});

test("Shift+Enter adds a line instead of sending", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("multiline"));
  await openChannel(page, thread);
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await box.fill("first line");
  await box.press("Shift+Enter");
  await box.pressSequentially("second line");
  await expect(box).toHaveValue("first line\nsecond line");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const msg = messageLog(page, thread.name).getByRole("article").filter({ hasText: "first line" });
  await expect(msg).toContainText("second line");
});
