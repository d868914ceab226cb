/**
 * GET /api/workspace: the workspace's channels the principal may read, each with its entry agent
 * and the requests it suggests to people new to it (the welcome; docs/channels.md).
 * 200 { channels: [{ thread_id, name, topic, entry_agent, suggestions }] }.
 */
import type { WorkspaceChannel } from "@/lib/api/types";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async ({ principal }) => {
  const { channels, identity, store } = getClutch();
  const readable = await identity.channels.readable(principal);
  const threads = await store.getThreads(channels.map((c) => c.thread_id));
  const list: WorkspaceChannel[] = channels
    .filter((c) => readable.all || readable.ids.has(c.thread_id))
    .map((c) => ({
      thread_id: c.thread_id,
      name: c.name,
      topic: threads.find((t) => t.id === c.thread_id)?.topic ?? "",
      entry_agent: c.entry_agent,
      suggestions: c.suggestions ?? [],
    }));
  return json({ channels: list });
});
