/**
 * GET /api/threads/:thread_id/pins → { pins: [{ message, state, pinned }] } (PinsResponse): the
 * channel's pinned messages, newest pin first (docs/channels.md "Message actions"). `message` is
 * the chat.message as first sent, `state` its MessageState now (current text, reactions, …,
 * lib/fold/message-actions.ts), `pinned` who pinned it and when. A deleted message is not pinned;
 * a fork's or an import's copies are not the channel's pins. One query (server/events/queries.ts
 * `pinnedInThread`), then the fold. 404 unknown_thread for a channel the principal may not read.
 */
import { z } from "zod";
import type { PinnedMessage, PinsResponse } from "@/lib/api/message-actions";
import { foldMessageActions, pinnedMessages } from "@/lib/fold/message-actions";
import { isEvent, type StoredEvent } from "@/lib/protocol";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ thread_id: z.string().min(1).max(200) }) }, async ({ principal, params: { thread_id } }) => {
  const { store, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  const events = await store.queries.pinnedInThread(thread_id);
  const states = foldMessageActions(events);
  const messages = new Map<string, StoredEvent>();
  for (const ev of events) if (isEvent(ev, "chat.message") && !messages.has(ev.id)) messages.set(ev.id, ev);
  const pins: PinnedMessage[] = pinnedMessages(events)
    .reverse()
    .map((id) => ({ message: messages.get(id)!, state: states.get(id)!, pinned: states.get(id)!.pinned! }));
  return json({ pins } satisfies PinsResponse);
});
