/**
 * Replies that stream as they are written (docs/channels.md "Streaming replies"), seen by a
 * person in Chromium: an external agent's reply, written through the streaming API, grows word
 * by word with a caret; a reload mid-reply shows the text so far and then the rest; the person
 * who may stop it presses Stop and what was written stays, marked "Stopped by …"; a colleague
 * typing shows "… is typing" and it goes away; the page stays free of serious axe violations.
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { createChannel, messageLog, openChannel, personContext, recordStreamLengths, seriousViolations, uniqueName } from "./helpers";

/** An external agent with an API key, and a way to call the streaming API as it. */
async function streamingAgent(request: APIRequestContext) {
  const agent_id = `agent:${uniqueName("writer")}`;
  const made = await request.post(`/api/agents/${encodeURIComponent(agent_id)}/keys`, { data: { name: "e2e" } });
  expect(made.status(), await made.text()).toBe(201);
  const { key } = (await made.json()) as { key: string };
  const headers = { authorization: `Bearer ${key}` };
  return {
    agent_id,
    async start(thread_id: string, markdown_text: string): Promise<string> {
      const res = await request.post("/api/streams", { headers, data: { thread_id, markdown_text } });
      expect(res.status(), await res.text()).toBe(201);
      return ((await res.json()) as { stream_id: string }).stream_id;
    },
    append: (id: string, markdown_text: string) => request.post(`/api/streams/${encodeURIComponent(id)}/append`, { headers, data: { markdown_text } }),
    stop: (id: string, markdown_text?: string) => request.post(`/api/streams/${encodeURIComponent(id)}/stop`, { headers, data: markdown_text ? { markdown_text } : {} }),
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("an agent's reply grows word by word, survives a reload mid-reply, and becomes one message", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("stream"));
  const agent = await streamingAgent(request);
  await openChannel(page, thread, "conversation");
  const lengths = await recordStreamLengths(page);
  const words = "Revenue grew in the West and the East, while the Central region stayed flat for the quarter.".split(" ");
  const id = await agent.start(thread.id, `${words[0]} `);
  const live = page.getByTestId("streaming-reply");
  await expect(live).toBeVisible();
  await expect(live).toHaveAttribute("data-state", "open");
  await expect(live.getByRole("button", { name: "Stop" })).toBeVisible();
  for (const w of words.slice(1, 8)) {
    expect((await agent.append(id, `${w} `)).status()).toBe(200);
    await pause(120);
  }
  await expect(live).toContainText("Revenue grew in the West and the East,");
  // Several distinct lengths were drawn, each longer than the last: it grew in place.
  const seen = await lengths();
  expect(new Set(seen).size).toBeGreaterThanOrEqual(4);
  expect(seen).toEqual([...seen].sort((a, b) => a - b));

  // A reload mid-reply: the text so far at once, then the rest as it comes.
  await page.reload();
  await expect(page.getByTestId("streaming-reply")).toContainText("Revenue grew in the West and the East,");
  for (const w of words.slice(8)) expect((await agent.append(id, `${w} `)).status()).toBe(200);
  await expect(page.getByTestId("streaming-reply")).toContainText("stayed flat for the quarter.");
  expect(await seriousViolations(page)).toEqual([]);

  // The end: one stored message with the final text, and no reply being written any more.
  expect((await agent.stop(id)).status()).toBe(201);
  const log = messageLog(page, thread.name);
  await expect(log.getByRole("article", { name: /Message from/ }).filter({ hasText: "stayed flat for the quarter." })).toHaveCount(1);
  await expect(page.getByTestId("streaming-reply")).toHaveCount(0);
});

test("Stop keeps what was written, marked with who stopped it, and the agent can write no more", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("stop"));
  const agent = await streamingAgent(request);
  await openChannel(page, thread, "conversation");
  const id = await agent.start(thread.id, "The first half of a long answer ");
  await expect(page.getByTestId("streaming-reply")).toContainText("The first half of a long answer");
  await page.getByTestId("streaming-reply").getByRole("button", { name: "Stop" }).click();
  const stopped = messageLog(page, thread.name).getByRole("article", { name: /Message from/ }).filter({ hasText: "The first half of a long answer" });
  await expect(stopped).toHaveCount(1);
  await expect(stopped).toContainText("Stopped by Dana Whitfield");
  await expect(page.getByTestId("streaming-reply")).toHaveCount(0);
  const late = await agent.append(id, "and more");
  expect(late.status()).toBe(409);
  expect(((await late.json()) as { error: { message: string } }).error.message).toContain("Dana Whitfield");
});

test("a colleague typing shows '… is typing' in the channel, and it goes away when they stop", async ({ page, request, browser }) => {
  const thread = await createChannel(request, uniqueName("typing"));
  const lee = await personContext(browser, request, uniqueName("Lee"));
  try {
    const leePage = await lee.newPage();
    await openChannel(page, thread, "conversation");
    await openChannel(leePage, thread, "conversation");
    await leePage.getByRole("combobox", { name: `Message #${thread.name}` }).pressSequentially("Looking at the numbers for the West", { delay: 60 });
    const line = page.getByTestId("live-line");
    await expect(line).toContainText(/Lee\S* is typing…/);
    // Lee does not see themselves typing.
    await expect(leePage.getByTestId("live-line")).not.toContainText("typing");
    // Five seconds after Lee's last keystroke, it is gone.
    await expect(line).not.toContainText("typing", { timeout: 9_000 });
  } finally {
    await lee.close();
  }
});
