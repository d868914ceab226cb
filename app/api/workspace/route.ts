/**
 * GET /api/workspace: the workspace's channels the principal may read, each with its entry agent
 * and the requests it suggests to people new to it (the welcome; docs/channels.md), and who
 * answers a new message there (an admin's choice, else the workspace's; docs/channels.md "Who answers").
 * 200 { channels: [{ thread_id, name, topic, entry_agent, answers, suggestions }] }.
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
    .map((c) => {
      const thread = threads.find((t) => t.id === c.thread_id);
      return {
        thread_id: c.thread_id,
        name: c.name,
        topic: thread?.topic ?? "",
        entry_agent: c.entry_agent,
        answers: thread?.answers ?? c.answers,
        suggestions: c.suggestions ?? [],
      };
    });
  return json({ channels: list });
});
