/**
 * GET /api/threads/:thread_id → { thread }. PATCH { visibility?, answers? }, at least one:
 * - `visibility` ("public" | "private"): a manager of the channel (admins and members who may
 *   read it, not guests) changes who can see it;
 * - `answers` ("mentions" | "every_message"): an admin changes who answers a new top-level
 *   message (docs/channels.md "Who answers").
 * 200 { thread }; 400 invalid_body; 403 forbidden; 404 unknown (or unreadable) thread; 409
 * direct_message: a DM stays private and every message in it is for the other party
 * (docs/channels.md "Direct messages").
 */
import { z } from "zod";
import { ANSWER_MODES } from "@/lib/answers";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";
import { assertManager } from "./members/manage";

export const dynamic = "force-dynamic";

const Params = z.object({ thread_id: z.string().min(1) });
const Body = z
  .strictObject({
    visibility: z.enum(["public", "private"], { error: 'visibility is "public" or "private"' }).optional(),
    answers: z.enum(ANSWER_MODES, { error: 'answers is "mentions" or "every_message"' }).optional(),
  })
  .refine((b) => b.visibility !== undefined || b.answers !== undefined, "say what to change: visibility or answers");

export const GET = route({ auth: "signed-in", params: Params }, async ({ principal, params: { thread_id } }) => {
  const { store, identity } = getClutch();
  await identity.channels.assertRead(principal, thread_id);
  return json({ thread: await store.getThread(thread_id) });
});

export const PATCH = route({ auth: "person", params: Params, body: Body }, async ({ principal, params: { thread_id }, body }) => {
  const { store, identity, channels, registry } = getClutch();
  await assertManager(principal, thread_id);
  if (body.visibility && (await store.getThread(thread_id))?.visibility !== body.visibility) {
    if (body.visibility === "private") await identity.addMember(principal, thread_id, principal.agent_id);
    await identity.setVisibility(principal, thread_id, body.visibility);
  }
  if (body.answers) {
    const binding = channels.find((c) => c.thread_id === thread_id);
    const entry = binding?.entry_agent ?? null;
    const entryName = entry ? (registry.get(entry)?.card.display?.name ?? entry.replace(/^agent:/, "")) : "the entry agent";
    await identity.setAnswers(principal, thread_id, body.answers, { entryName, fallback: binding?.answers ?? "mentions" });
  }
  return json({ thread: await store.getThread(thread_id) });
});
