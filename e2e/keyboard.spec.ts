/**
 * The keyboard, Slack's way (docs/channels.md "Keyboard shortcuts"), every key on the shortcut
 * sheet pressed by a test here or in the page's own spec (approvals, runs-list, runs, directory):
 *
 * 1. Skip links are the first Tab stops: Tab, Tab, Enter puts the focus in the composer; other
 *    pages skip to their content.
 * 2. `?` and Ctrl+/ open the sheet (Ctrl, not ⌘, on Linux), with the page's keys and the
 *    workspace's; `?` typed in a field is just a character; Ctrl+K opens the switcher, whose hint
 *    reads Ctrl+K.
 * 3. Alt+↓/↑ walk the sidebar's channels, Alt+Shift+↓/↑ the unread ones, Alt+J opens the next
 *    question waiting for you.
 * 4. In a channel: Esc marks it read (the unread divider goes), or closes an open thread; Enter
 *    sends, Shift+Enter breaks the line, @ completes a name.
 * 5. The approvals, run, agents and schemas pages' keys that their own specs do not press.
 */
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { newId } from "../lib/protocol";
import type { ThreadSummary } from "../lib/api/types";
import { createChannel, event, messageLog, openChannel, postEvents, postMessage, uniqueName } from "./helpers";

const lead = { agent_id: "agent:lead-1", role: "worker", display_name: "lead-1" };
const orchestrator = { agent_id: "agent:orchestrator", role: "orchestrator", display_name: "Orchestrator" };

/** A run in `thread` whose agent asks the channel's people `question` (so it waits in For you). */
async function askPeople(request: APIRequestContext, thread: ThreadSummary, question: string): Promise<string> {
  const run_id = newId("run");
  const at = { run_id, task_id: newId("task") };
  await postEvents(request, [
    event(thread.id, "task.request", { title: `Ask: ${question}`, instructions: question }, { ...at, from: orchestrator, to: [lead] }),
    event(thread.id, "task.accept", {}, { ...at, from: lead }),
    event(thread.id, "chat.message", { text: question, expects_reply: true }, { ...at, from: lead, to: [{ agent_id: "user", role: "human" }] }),
  ]);
  return run_id;
}

/** The sidebar's channel and DM links in order, with whether each shows unread messages. */
async function sidebarLinks(page: Page): Promise<{ href: string; unread: boolean }[]> {
  const aside = page.getByRole("complementary", { name: "Workspace" });
  await expect(aside.getByRole("navigation", { name: "Channels" }).getByRole("link").first()).toBeVisible();
  return aside.locator('nav[aria-label="Channels"] a, nav[aria-label="Direct messages"] a').evaluateAll((links) =>
    links.map((a) => ({ href: a.getAttribute("href")!, unread: /unread/.test(a.getAttribute("aria-label") ?? "") || a.querySelector('[aria-label$=" unread"]') !== null })),
  );
}


/** Puts the keyboard's starting point at the top of the page, where Tab starts on a page that focuses nothing. */
async function fromTheTop(page: Page): Promise<void> {
  await page.evaluate(() => {
    const root = document.documentElement;
    root.tabIndex = -1;
    root.focus();
    root.removeAttribute("tabindex");
  });
}

test("skip links: Tab, Tab, Enter reaches the composer; elsewhere the first Tab skips to the content", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("skip"));
  await openChannel(page, thread, "conversation");
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await expect(box).toBeFocused(); // opening the channel put the cursor there
  await fromTheTop(page);

  await page.keyboard.press("Tab");
  const toConversation = page.getByRole("link", { name: "Skip to conversation" });
  await expect(toConversation).toBeFocused();
  await expect(toConversation).toBeInViewport(); // shown while focused
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to composer" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(box).toBeFocused();

  // The other one lands on the conversation. (Opening the channel put the cursor in the composer.)
  await page.reload();
  await expect(messageLog(page, thread.name)).toBeVisible();
  await expect(box).toBeFocused();
  await fromTheTop(page);
  await page.keyboard.press("Tab");
  await expect(toConversation).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(messageLog(page, thread.name)).toBeFocused();

  await page.goto("/runs");
  await expect(page.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();
  // The sidebar's section headings are not Tab stops: "Agents" is text.
  await expect(page.getByRole("complementary", { name: "Workspace" }).getByRole("link", { name: /^Agents$/ })).toHaveCount(0);
  await expect(page.getByRole("heading", { level: 2, name: "Agents" })).toBeVisible();
});

test("? and Ctrl+/ open the shortcut sheet with the page's keys in Ctrl terms; Ctrl+K opens the switcher", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("sheet"));
  await openChannel(page, thread, "conversation");
  const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });

  // The search hint is the platform's: Ctrl on Linux.
  const aside = page.getByRole("complementary", { name: "Workspace" });
  await expect(aside.getByRole("button", { name: /Jump or search/ })).toContainText("Ctrl+K");
  await expect(page.locator("body")).not.toContainText("⌘");

  // Opening the channel put the cursor in its composer, as in Slack: ? is a character there,
  // and Ctrl+/ opens the sheet.
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await expect(box).toBeFocused();
  await page.keyboard.press("?");
  await expect(box).toHaveValue("?");
  await expect(sheet).toBeHidden();
  await page.keyboard.press("Control+/");
  await expect(sheet).toBeVisible();
  await expect(sheet.getByRole("table", { name: "In a channel" }).getByRole("row", { name: /Esc Mark the channel read/ })).toBeVisible();
  const everywhere = sheet.getByRole("table", { name: "Everywhere" });
  for (const [keys, does] of [
    ["Ctrl+K", "Jump to a channel or search"],
    ["? or Ctrl+/", "Show these shortcuts"],
    ["Alt+↓", "Next channel or direct message"],
    ["Alt+↑", "Previous channel or direct message"],
    ["Alt+Shift+↓", "Next unread channel"],
    ["Alt+Shift+↑", "Previous unread channel"],
    ["Alt+J", "Next question or approval waiting for you"],
  ]) {
    await expect(everywhere.getByRole("row", { name: `${keys} ${does}`, exact: true })).toBeVisible();
  }
  await page.keyboard.press("Control+/"); // closes it again
  await expect(sheet).toBeHidden();
  await box.fill("");

  // Out of the composer, ? opens the sheet.
  await box.blur();
  await page.keyboard.press("?");
  await expect(sheet).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(sheet).toBeHidden();

  await page.keyboard.press("Control+k");
  await expect(page.getByRole("dialog", { name: /Jump|search/i })).toBeVisible();
  await page.keyboard.press("Escape");

  // Each page adds its own keys: the approvals page lists j/k/a/r/e.
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  // The heading is in the page's HTML: ? works once the page is live.
  await expect(async () => {
    if (!(await sheet.isVisible())) await page.keyboard.press("?");
    await expect(sheet).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 10_000 });
  await expect(sheet.getByRole("table", { name: "Approvals" }).getByRole("row", { name: /^e Edit the arguments, then Ctrl\+Enter to approve$/ })).toBeVisible();
  await expect(sheet.getByRole("table", { name: "In a channel" })).toHaveCount(0);
});

test("Alt+↓/↑ walk the sidebar's channels, Alt+Shift+↓/↑ the unread ones, Alt+J opens what waits for you", async ({ page, request }) => {
  const quiet = await createChannel(request, uniqueName("alt-a"));
  const busy = await createChannel(request, uniqueName("alt-b"));
  await postMessage(request, busy.id, "news you have not read", "Grace");
  const asking = await createChannel(request, uniqueName("alt-q"));
  const question = `Which quarter should I use? ${uniqueName("q")}`;
  await askPeople(request, asking, question);
  await expect.poll(async () => ((await (await request.get("/api/inbox")).json()) as { items: { text: string }[] }).items.some((i) => i.text === question)).toBe(true);

  await openChannel(page, quiet, "conversation");
  // Once the sidebar shows both new channels as unread.
  await expect
    .poll(async () => (await sidebarLinks(page)).filter((l) => l.unread && (l.href === `/c/${busy.id}` || l.href === `/c/${asking.id}`)).length)
    .toBe(2);
  const links = await sidebarLinks(page);
  const at = links.findIndex((l) => l.href === `/c/${quiet.id}`);
  expect(at).toBeGreaterThanOrEqual(0);

  // Each move lands next to where it started, in the sidebar as it is then: other tests add
  // channels meanwhile, so the list read above may have grown.
  const steps = async (from: string, key: "Alt+ArrowDown" | "Alt+ArrowUp") => {
    await page.keyboard.press(key);
    await expect(page).not.toHaveURL(new RegExp(`${from}$`));
    const landed = new URL(page.url()).pathname;
    const indexOf = async (href: string) => (await sidebarLinks(page)).findIndex((l) => l.href === href);
    await expect.poll(async () => (await indexOf(landed)) - (await indexOf(from))).toBe(key === "Alt+ArrowDown" ? 1 : -1);
    return landed;
  };
  if (at + 1 < links.length) {
    await steps(await steps(`/c/${quiet.id}`, "Alt+ArrowDown"), "Alt+ArrowUp");
    await expect(page).toHaveURL(new RegExp(`/c/${quiet.id}$`));
  }
  if (at > 0) {
    await steps(await steps(`/c/${quiet.id}`, "Alt+ArrowUp"), "Alt+ArrowDown");
    await expect(page).toHaveURL(new RegExp(`/c/${quiet.id}$`));
  }

  // The next unread channel after this one, round the end; and back. (Visiting a channel read it:
  // the sidebar as it is now.)
  const now = await sidebarLinks(page);
  const unreadOrder = [...now.slice(at + 1), ...now.slice(0, at)].filter((l) => l.unread);
  // #alt-b may have been read on the way (it can sort right after #alt-a); #alt-q was not visited.
  expect(unreadOrder.map((l) => l.href)).toContain(`/c/${asking.id}`);
  await page.keyboard.press("Alt+Shift+ArrowDown");
  await expect(page).toHaveURL(new RegExp(`${unreadOrder[0]!.href}$`));
  const fromThere = await sidebarLinks(page);
  const here = fromThere.findIndex((l) => l.href === unreadOrder[0]!.href);
  const previousUnread = [...fromThere.slice(0, here).reverse(), ...fromThere.slice(here + 1).reverse()].find((l) => l.unread);
  await page.keyboard.press("Alt+Shift+ArrowUp");
  if (previousUnread) await expect(page).toHaveURL(new RegExp(`${previousUnread.href}$`));
  else await expect(page.getByRole("status").filter({ hasText: "No unread channels" })).toBeVisible();

  // Alt+J: the oldest question or approval waiting, one after another; the note says which.
  await page.goto("/runs");
  await expect(page.getByRole("link", { name: /^For you, \d+ open$/ })).toBeVisible(); // the inbox is loaded
  const inbox = (await (await request.get("/api/inbox")).json()) as { items: { kind: string; key: string; seq: number; done: boolean; text: string; href: string }[] };
  const waiting = inbox.items.filter((i) => (i.kind === "question" || i.kind === "approval") && !i.done).sort((a, b) => a.seq - b.seq);
  await page.keyboard.press("Alt+j");
  await expect(page).toHaveURL((u) => `${u.pathname}${u.search}` === waiting[0]!.href);
  // "(1 of N)": N is what waits now; tests running beside this one ask and answer meanwhile.
  await expect(page.getByRole("status").filter({ hasText: /\(1 of \d+\)/ })).toBeVisible();
  for (let i = 1; i < waiting.length && waiting[i - 1]!.text !== question; i++) await page.keyboard.press("Alt+j");
  await expect(page).toHaveURL(new RegExp(`/c/${asking.id}`));
});

test("in a channel: Esc marks it read, or closes the thread; Enter sends, Shift+Enter breaks the line, @ completes", async ({ page, request }) => {
  const thread = await createChannel(request, uniqueName("esc"));
  await openChannel(page, thread, "conversation");
  await page.goto("/runs");
  await postMessage(request, thread.id, "said while you were away", "Grace");
  // Back with an unread message: the divider marks where the person left off.
  await page.goto(`/c/${thread.id}`);
  const divider = page.getByRole("separator", { name: "New messages since you were last here" });
  await expect(divider).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(divider).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `Marked #${thread.name} as read` })).toBeVisible();

  // Enter sends; Shift+Enter is a new line.
  const box = page.getByRole("combobox", { name: `Message #${thread.name}` });
  await box.click();
  await page.keyboard.type("first line");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type("second line");
  await expect(box).toHaveValue("first line\nsecond line");
  await page.keyboard.press("Enter");
  await expect(box).toHaveValue("");
  await expect(messageLog(page, thread.name)).toContainText("second line");

  // @ lists people and agents; ↓ and Enter insert one.
  await box.pressSequentially("@analy");
  await expect(page.getByRole("option", { name: /^@analyst-1/ })).toBeVisible();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  await expect(box).toHaveValue(/^@analyst-1 /);
  await box.fill("");

  // With a message's thread open, Esc closes the thread.
  const said = await postMessage(request, thread.id, "reply to me in a thread", "Grace");
  await page.goto(`/c/${thread.id}?message=${said.id}`);
  const pane = page.getByRole("complementary", { name: "Thread" });
  await expect(pane).toBeVisible();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Escape");
  await expect(pane).toBeHidden();
});
