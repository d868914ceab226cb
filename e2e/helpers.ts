/**
 * Helpers for the UI's end-to-end tests: unique channel names, API calls to create
 * channels and post events, and a ClutchMessage builder. Tests make their own channels, so
 * they run on a database that holds other data.
 */
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import type { ThreadSummary } from "../lib/api/types";
import { makeMessage, type MessageType, type PayloadOf, type StoredEvent, type ClutchMessage } from "../lib/protocol";

/** A channel name no other test run uses: `<prefix>-<time>-<random>`, lowercase. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Creates a channel through the API. */
export async function createChannel(request: APIRequestContext, name: string, topic?: string): Promise<ThreadSummary> {
  const res = await request.post("/api/threads", { data: { name, ...(topic ? { topic } : {}) } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).thread as ThreadSummary;
}

/** Posts one ClutchMessage or several to `POST /api/events`; answers the stored events. */
export async function postEvents(request: APIRequestContext, events: ClutchMessage | ClutchMessage[]): Promise<StoredEvent[]> {
  const res = await request.post("/api/events", { data: events });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).events as StoredEvent[];
}

/** Posts a person's chat message to a channel. */
export async function postMessage(request: APIRequestContext, threadId: string, text: string, display_name?: string) {
  const res = await request.post(`/api/threads/${threadId}/messages`, { data: { text, ...(display_name ? { display_name } : {}) } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).event as StoredEvent;
}

/** A ClutchMessage of `type` in a thread; run and task ids default to fixed test ids. */
export function event<T extends MessageType>(
  threadId: string,
  type: T,
  payload: PayloadOf<T>,
  extra: Partial<ClutchMessage> = {},
): ClutchMessage {
  return makeMessage({
    thread_id: threadId,
    run_id: extra.run_id ?? "run_e2e",
    task_id: extra.task_id ?? "task_e2e",
    from: extra.from ?? { agent_id: "agent:ken", role: "worker", display_name: "Ken" },
    to: extra.to ?? [],
    ...extra,
    type,
    payload,
  });
}

/** Sets the person's display name before the app loads (localStorage, as the settings do). */
export async function useDisplayName(page: Page, name: string): Promise<void> {
  await page.addInitScript((n) => window.localStorage.setItem("clutch:display-name", JSON.stringify(n)), name);
}

/** Opens a channel and waits for its message list. */
export async function openChannel(page: Page, thread: ThreadSummary): Promise<void> {
  await page.goto(`/c/${thread.id}`);
  await expect(page.getByRole("heading", { level: 1, name: thread.name })).toBeVisible();
  await expect(page.getByRole("log", { name: `Messages in #${thread.name}` })).toBeVisible();
}

/** The channel's message list. */
export function messageLog(page: Page, name: string) {
  return page.getByRole("log", { name: `Messages in #${name}` });
}

/** Sends a message with the composer (typing, then Enter). */
export async function send(page: Page, channel: string, text: string): Promise<void> {
  const box = page.getByRole("combobox", { name: `Message #${channel}` });
  await box.fill(text);
  await box.press("Enter");
  await expect(box).toHaveValue("");
}
