/**
 * After a network drop the view fills in exactly what was missed — no gap, no
 * duplicate (the client re-subscribes after the last seq it holds).
 */
import { expect, test } from "@playwright/test";
import { createChannel, event, markdownRendered, messageLog, postEvents, postMessage, uniqueName } from "./helpers";

test("events posted while the browser was offline appear once, in order, after reconnecting", async ({ page, context, request }) => {
  const thread = await createChannel(request, uniqueName("reconnect"));
  // socket.io-client drops its connection on the browser's "offline" event, except on a
  // "localhost" host name; so this test talks to 127.0.0.1.
  const base = String(test.info().project.use.baseURL).replace("//localhost", "//127.0.0.1");
  // The session cookie was set for localhost: carry it to 127.0.0.1.
  await context.addCookies((await context.cookies()).map(({ name, value, path, httpOnly, secure, sameSite, expires }) => ({ name, value, path, httpOnly, secure, sameSite, expires, domain: "127.0.0.1" })));
  await page.goto(`${base}/c/${thread.id}`);
  await expect(page.getByRole("heading", { level: 1, name: thread.name })).toBeVisible();
  const log = messageLog(page, thread.name);
  await postMessage(request, thread.id, "before the drop", "Grace");
  await expect(log.getByText("before the drop")).toBeVisible();

  await context.setOffline(true);
  await expect(page.getByRole("status").filter({ hasText: "Reconnecting" })).toBeVisible({ timeout: 20_000 });
  await postEvents(
    request,
    Array.from({ length: 5 }, (_, i) => event(thread.id, "chat.message", { text: `missed ${i + 1}` })),
  );
  await context.setOffline(false);

  for (let i = 1; i <= 5; i++) await expect(log.getByText(`missed ${i}`, { exact: true })).toHaveCount(1);
  await postMessage(request, thread.id, "after the drop", "Grace");
  await expect(log.getByText("after the drop")).toHaveCount(1);

  const seqs = await log.getByRole("article").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seq"))));
  expect(new Set(seqs).size).toBe(seqs.length);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  // Identical to what a fresh load shows.
  await markdownRendered(page);
  const texts = await log.getByRole("article").allInnerTexts();
  await page.reload();
  await expect(log.getByText("after the drop")).toBeVisible();
  await markdownRendered(page);
  expect(await log.getByRole("article").allInnerTexts()).toEqual(texts);
});
