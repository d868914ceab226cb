/**
 * The audit trail is the log (docs/identity.md): every change to who may do what is an
 * `audit.change` event, from the principal who made it, in the `_audit` system thread (admins
 * read it) or, for a channel's membership and visibility, in that channel.
 */
import { makeMessage, newId, type PayloadOf } from "@/lib/protocol";
import type { EventStore } from "../events/store";
import { conversationIds } from "../events/threads";
import type { Principal } from "./principal";

export const AUDIT_THREAD = "_audit";

/** Append one audit.change by `by`; in `thread_id` when given, else in `_audit`. */
export async function recordAudit(store: EventStore, by: Principal, change: PayloadOf<"audit.change">, thread_id?: string): Promise<void> {
  const thread = thread_id ?? (await store.systemThread(AUDIT_THREAD, "Who may do what: members, keys, agents"));
  const name = by.kind === "person" ? by.name : undefined;
  await store.append(
    makeMessage({
      type: "audit.change",
      thread_id: thread,
      ...conversationIds(thread),
      from: { agent_id: by.agent_id, role: by.kind === "agent" ? "worker" : by.kind === "person" ? "human" : "system", ...(name ? { display_name: name } : {}) },
      to: [],
      payload: change,
      id: newId("message"),
    }),
  );
}
