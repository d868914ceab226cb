/**
 * Threads (channels). A thread is created together with its first event, a chat.system
 * "channel created" message, in one transaction through the append path, so the creation is
 * in the log like everything else.
 */
import { conversationIds } from "@/lib/conversation";
import { z } from "zod";
import { makeMessage, newId, type ClutchMessage } from "@/lib/protocol";
import type { ThreadSummary } from "@/lib/api/types";
import { THREAD_CREATED } from "@/lib/unread";
import type { Thread as ThreadRow } from "../db/generated/client";
import type { Prisma } from "../db/client";

/** `POST /api/threads` body. Names are Slack-style: lowercase letters, digits, - and _. */
export const NewThreadSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, "a channel needs a name")
    .max(80, "a channel name is at most 80 characters")
    .regex(/^[a-z0-9][a-z0-9_-]*$/, "use lowercase letters, digits, - and _ (e.g. sales-q4)"),
  topic: z.string().trim().max(250, "a topic is at most 250 characters").optional(),
  /** public (default): every member of the workspace sees it; private: only its members. */
  visibility: z.enum(["public", "private"], { error: 'visibility is "public" or "private"' }).optional(),
});
export type NewThread = z.infer<typeof NewThreadSchema>;

/** The wire shape of a thread row. */
export function toSummary(row: ThreadRow): ThreadSummary {
  return {
    id: row.id,
    name: row.name,
    topic: row.topic,
    created_at: row.created_at.toISOString(),
    last_seq: Number(row.last_seq),
    last_event_at: row.last_event_at?.toISOString() ?? null,
    message_count: row.message_count,
    visibility: row.visibility === "private" ? "private" : "public",
    kind: row.dm_between?.length ? "dm" : "channel",
    dm_between: row.dm_between ?? [],
    entry_agent: row.entry_agent ?? null,
    answers: row.answers === "mentions" || row.answers === "every_message" ? row.answers : null,
  };
}

/** A direct message's name: not shown to people (the sidebar names the other party), unique, and no one's name in it. */
export function dmName(): string {
  return `dm-${newId("thread").slice(-12).toLowerCase()}`;
}

export { conversationIds };

/**
 * Insert the thread row and return the chat.system message that announces it. Its creator
 * (a person `user:<id>` or an agent `agent:<id>`) becomes its first member.
 */
export async function insertThread(
  tx: Prisma.TransactionClient,
  input: NewThread,
  by: { agent_id: string; display_name?: string },
  dm?: { between: string[]; entry_agent: string | null; with_name: string; deployment?: string },
) {
  const row = await tx.thread.create({
    data: {
      id: newId("thread"),
      name: input.name,
      topic: input.topic ?? "",
      visibility: dm ? "private" : (input.visibility ?? "public"),
      ...(dm ? { dm_between: dm.between, entry_agent: dm.entry_agent, ...(dm.deployment ? { deployment: dm.deployment } : {}) } : {}),
    },
  });
  if (/^(user|agent):/.test(by.agent_id)) await tx.threadMember.create({ data: { thread_id: row.id, member: by.agent_id, added_by: by.agent_id } });
  for (const member of dm?.between ?? []) {
    if (member !== by.agent_id) await tx.threadMember.create({ data: { thread_id: row.id, member, added_by: by.agent_id } });
  }
  const announce: ClutchMessage = makeMessage({
    type: "chat.system",
    thread_id: row.id,
    ...conversationIds(row.id),
    from: { agent_id: "system", role: "system" },
    to: [],
    payload: {
      text: dm
        ? `${by.display_name ?? by.agent_id} started a direct message with ${dm.with_name}`
        : `${by.display_name ?? by.agent_id} created ${row.visibility === "private" ? "the private channel " : ""}#${row.name}${row.topic ? `: ${row.topic}` : ""}`,
      level: "info",
    },
    meta: { kind: THREAD_CREATED },
  });
  return { row, announce };
}
