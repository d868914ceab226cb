/**
 * Nothing in an event can run script, call a third party or break the page. Raw HTML in a message shows
 * as text; links open in a new tab with rel=noopener; an event whose renderer cannot handle it
 * falls back to JSON.
 */
import { expect, test } from "@playwright/test";
import { createChannel, event, messageLog, openChannel, postEvents, postMessage, send, uniqueName } from "./helpers";

const XSS = "<img src=x onerror=alert(1)>";

test("a message containing HTML renders as text and runs nothing", async ({ page, request }) => {
  const dialogs: string[] = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  const thread = await createChannel(request, uniqueName("xss"));
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);

  await send(page, thread.name, XSS);
  await postMessage(request, thread.id, `inline ${XSS} and <script>alert(2)</script> and [js](javascript:alert(3))`, "Mallory");

  await expect(log.getByText(XSS, { exact: true })).toBeVisible();
  const inline = log.getByRole("article").filter({ hasText: "and <script>alert(2)</script> and" });
  await expect(inline).toContainText(`inline ${XSS}`);
  await expect(log.locator("img")).toHaveCount(0);
  await expect(log.locator("script")).toHaveCount(0);
  // The javascript: link keeps its text but loses its target.
  // Its text, then the note a new-tab link carries for screen readers.
  const js = inline.getByText(/^js( \(opens in a new tab\))?$/);
  await expect(js).toBeVisible();
  expect(await js.evaluate((el) => el.closest("a")?.getAttribute("href") ?? "")).not.toContain("javascript:");

  await page.waitForTimeout(500);
  expect(dialogs).toEqual([]);
});

test("markdown links open in a new tab with rel=noopener; code blocks and tables render", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("markdown"));
  await openChannel(page, thread);
  await postMessage(
    request,
    thread.id,
    "See [the brief](https://example.com/brief)\n\n```\nconst x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    "Grace",
  );
  const log = messageLog(page, thread.name);
  const link = log.getByRole("link", { name: "the brief" });
  await expect(link).toHaveAttribute("href", "https://example.com/brief");
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("rel", /noopener/);
  await expect(log.locator("pre code")).toHaveText("const x = 1;");
  await expect(log.getByRole("table").getByRole("cell", { name: "2" })).toBeVisible();
});

test("a remote image is not loaded: it shows as a link naming its host, so no third party sees who reads", async ({ page, request }) => {
  const remote: string[] = [];
  await page.route("https://tracker.example/**", (route) => {
    remote.push(route.request().url());
    return route.abort();
  });
  const thread = await createChannel(request, uniqueName("pixel"));
  await openChannel(page, thread);
  await postMessage(request, thread.id, "Quarterly chart ![chart](https://tracker.example/pixel.gif?reader=1)", "Mallory");
  const log = messageLog(page, thread.name);
  const link = log.getByRole("link", { name: "chart (tracker.example)" });
  await expect(link).toHaveAttribute("href", "https://tracker.example/pixel.gif?reader=1");
  await expect(log.locator("img")).toHaveCount(0);
  await page.waitForTimeout(300);
  expect(remote).toEqual([]);
});

test("a result with a custom payload type shows its fields and its JSON", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("custom-result"));
  await openChannel(page, thread);
  const log = messageLog(page, thread.name);
  await postEvents(request, [
    event(thread.id, "task.result", { nested: { deeper: { list: [1, 2, { x: "<b>bold?</b>" }] } } }, { payload_type: "custom.thing.v1" }),
    event(thread.id, "chat.message", { text: "still here after the odd one" }),
  ]);
  await expect(log.getByText("still here after the odd one")).toBeVisible();
  const result = log.getByRole("article", { name: /^Result/ });
  await expect(result).toContainText("custom.thing.v1");
  await expect(result).toContainText("Fields: nested");
  await result.getByRole("button", { name: "Details" }).click();
  await expect(result.getByLabel("task.result payload")).toContainText('"x": "<b>bold?</b>"');
  await expect(log.locator("b")).toHaveCount(0);
});

test("events of unknown types or unexpected shapes render as JSON and break nothing", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("odd-shape"));
  const good = event(thread.id, "chat.message", { text: "a normal message after the odd ones" });
  const odd = [
    { ...event(thread.id, "chat.message", { text: "x" }), payload: { text: 42 } },
    { ...event(thread.id, "chat.message", { text: "x" }), type: "custom.thing", payload: { hello: "<script>alert(1)</script>" } },
    { ...event(thread.id, "tool.call", { call_id: "c", tool: "t" }), from: undefined },
  ];
  // The store only holds valid events, so a misbehaving source is simulated in the browser.
  await page.route(`**/api/threads/${thread.id}/events?*`, (route) =>
    route.fulfill({
      contentType: "application/json",
      body: JSON.stringify({
        events: [...odd, good].map((e, i) => ({ ...e, seq: 900_000_000 + i })),
        next_after: null,
        has_more_before: false,
      }),
    }),
  );
  const dialogs: string[] = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  // A full load carries the channel's first page in its HTML (docs/architecture.md "A page's
  // first data"): the browser asks the API for it when the channel is opened from the sidebar.
  await page.addInitScript(([key, value]) => window.localStorage.setItem(key!, JSON.stringify(value)), [`clutch:view:${thread.id}`, "all"]);
  await page.goto("/runs");
  await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: thread.name }).click();
  const log = messageLog(page, thread.name);
  await expect(log.getByText("a normal message after the odd ones")).toBeVisible();
  const unknown = log.getByRole("article", { name: "Event custom.thing" });
  await expect(unknown.getByLabel("custom.thing payload")).toContainText('"hello": "<script>alert(1)</script>"');
  await expect(log.getByRole("article", { name: "Event chat.message" })).toContainText("Payload has an unexpected shape");
  await expect(log.getByRole("article", { name: "Event tool.call" })).toContainText("missing envelope fields");
  expect(dialogs).toEqual([]);
});

test("URLs that cannot be decoded get a JSON 400, double-encoded ids a JSON 404, and every page an image policy", async ({ request }) => {
  for (const url of ["/api/threads/%ZZ/events", "/api/threads/%C0%AE%C0%AE/events", "/api/threads/thr%00x/events", "/api/approvals?thread_id=%00"]) {
    const res = await request.get(url);
    expect(res.status(), url).toBe(400);
    expect((await res.json()).error.code, url).toBe("invalid_url");
  }
  const beat = await request.post("/api/agents/agent%3A%25x/heartbeat", { data: {} });
  expect(beat.status()).toBe(404);
  expect((await beat.json()).error.code).toBe("unknown_agent");
  const artifact = await request.get("/api/artifacts/artifact%3A%25");
  expect(artifact.status()).toBe(400);
  expect((await artifact.json()).error.code).toBe("invalid_ref");
  const page = await request.get("/");
  expect(page.headers()["content-security-policy"]).toBe("img-src 'self' data: blob:");
});
