/**
 * Message actions people take (docs/protocol.md "Message actions (Clutch extension)";
 * docs/channels.md "Message actions"): react, edit, delete, pin. Each is an event that names the
 * chat.message it acts on and is stored in that message's thread, run, task and parent task,
 * from the person acting, to nobody; the message itself is never changed. Its state now is the
 * fold of lib/fold/message-actions.ts.
 *
 * Who may (checked here for the routes, and by the append authorizer for any principal's
 * `POST /api/events`, server/auth/authorize-append.ts, with the same `refusal`):
 *
 * | action   | who                                       | refused with                                  |
 * | -------- | ----------------------------------------- | --------------------------------------------- |
 * | reaction | anyone who may write in the channel       | 409 message_deleted                           |
 * | pin      | anyone who may write in the channel       | 409 copy, 409 message_deleted                 |
 * | edit     | the message's author only                 | 409 copy, 403 not_author, 409 message_deleted |
 * | delete   | the message's author, or an admin         | 409 copy, 403 not_author, 409 message_deleted |
 *
 * The target must be a chat.message of the channel (422 unknown_message naming the id). A copy
 * (a fork's or an import's, lib/conversation.ts `isCopy`) is not edited, deleted or pinned.
 * An action that changes nothing (a reaction already there, a reaction removed that is not, a
 * pin of a pinned message, an unpin of an unpinned one, an edit to the same text) stores
 * nothing: the route answers 200 with the state as it is.
 */
import { isCopy } from "@/lib/conversation";
import { applyAction, foldMessageActions, type MessageActionEvent, type MessageState } from "@/lib/fold/message-actions";
import { mentionIds, parseMentions, type MentionablePerson } from "@/lib/mentions";
import { isEvent, makeMessage, MESSAGE_ACTION_TYPES, type ClutchMessage, type MessageActionType, type PayloadOf, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { ClutchError } from "../errors";
import type { Queries } from "./queries";

/** What a person asks to do to a message (the route's body, validated). */
export type ActionRequest =
  | { type: "chat.reaction"; emoji: string; op: "add" | "remove" }
  | { type: "chat.edit"; text: string }
  | { type: "chat.delete"; reason?: string }
  | { type: "chat.pin"; pinned: boolean };

/** Who acts: `user:<id>` (or an agent, through the authorizer), their name, whether they are an admin. */
export interface Actor {
  agent_id: string;
  display_name?: string;
  admin: boolean;
}

/** What a person's action comes to: the event to append (null: nothing changes) and the message's state now. */
export interface PlannedAction {
  /** The action event, or null when it would change nothing (answer 200 with `state`). */
  event: ClutchMessage | null;
  /** The chat.message acted on. */
  target: StoredEventOf<"chat.message">;
  /** Its state before the action. */
  state: MessageState;
}

const VERB: Record<MessageActionType, string> = { "chat.reaction": "react to", "chat.edit": "edit", "chat.delete": "delete", "chat.pin": "pin" };

/**
 * Why `actor` may not take action `type` on message `target` in state `state`, or null when they
 * may (the table in the module doc; the channel itself is checked by the caller). Pure.
 */
export function refusal(type: MessageActionType, target: StoredEventOf<"chat.message">, state: MessageState, actor: { agent_id: string; admin: boolean }): ClutchError | null {
  if (type !== "chat.reaction" && isCopy(target)) {
    return new ClutchError("copy", `message ${target.id} is a copy (a fork's or an import's) and cannot be ${type === "chat.edit" ? "edited" : type === "chat.delete" ? "deleted" : "pinned"}; act on the original`, 409);
  }
  const author = target.from.agent_id;
  if (type === "chat.edit" && author !== actor.agent_id) {
    return new ClutchError("not_author", `only the person who wrote a message can edit it; message ${target.id} is ${author}'s`, 403);
  }
  if (type === "chat.delete" && author !== actor.agent_id && !actor.admin) {
    return new ClutchError("not_author", `only the person who wrote a message, or an admin, can delete it; message ${target.id} is ${author}'s`, 403);
  }
  if (state.deleted) {
    return new ClutchError("message_deleted", `message ${target.id} was deleted by ${state.deleted.by} at ${state.deleted.at}; there is nothing left to ${VERB[type]}`, 409);
  }
  return null;
}

/** The chat.message `message_id` of `thread_id`, folded with its actions. Throws unknown_message (422). */
export async function messageState(queries: Queries, thread_id: string, message_id: string): Promise<{ target: StoredEventOf<"chat.message">; state: MessageState; events: StoredEvent[] }> {
  const events = await queries.messageWithActions(thread_id, message_id);
  const target = events[0];
  if (!target || !isEvent(target, "chat.message")) {
    throw new ClutchError("unknown_message", `there is no message ${message_id} in this channel`, 422);
  }
  const state = foldMessageActions(events).get(target.id)!;
  return { target, state, events };
}

/** True when `request` would leave `state` as it is. */
function changesNothing(request: ActionRequest, state: MessageState, actor: string, mentions: string[]): boolean {
  switch (request.type) {
    case "chat.reaction": {
      const had = state.reactions.some((r) => r.emoji === request.emoji && r.by.includes(actor));
      return request.op === "add" ? had : !had;
    }
    case "chat.pin":
      return request.pinned === (state.pinned !== null);
    case "chat.edit":
      return request.text === state.text && mentions.join("\n") === state.mentions.join("\n");
    case "chat.delete":
      return false;
  }
}

/**
 * Plan `actor`'s action `request` on message `message_id` of `thread_id`: the event to append in
 * the message's scope (from the actor, role human, to nobody), or null when it changes nothing.
 * An edit's `mentions` are read from its text like a new message's (lib/mentions.ts: `isAgent`
 * says which names are agents, `people` are the channel's people); an edit starts no run.
 * Throws ClutchError unknown_message (422), copy (409), not_author (403), message_deleted (409).
 */
export async function planAction(
  queries: Queries,
  thread_id: string,
  message_id: string,
  request: ActionRequest,
  actor: Actor,
  mention: { isAgent?: (agent_id: string) => boolean; people?: readonly MentionablePerson[] } = {},
): Promise<PlannedAction> {
  const { target, state } = await messageState(queries, thread_id, message_id);
  const refused = refusal(request.type, target, state, actor);
  if (refused) throw refused;
  let mentions: string[] = [];
  if (request.type === "chat.edit") {
    mentions = mentionIds(parseMentions(request.text, mention.isAgent ?? (() => false), mention.people ?? []));
  }
  if (changesNothing(request, state, actor.agent_id, mentions)) return { event: null, target, state };
  const base = { message_id: target.id };
  const payload: PayloadOf<MessageActionType> =
    request.type === "chat.reaction"
      ? { ...base, emoji: request.emoji, op: request.op }
      : request.type === "chat.edit"
        ? { ...base, text: request.text, ...(mentions.length ? { mentions } : {}) }
        : request.type === "chat.delete"
          ? { ...base, ...(request.reason ? { reason: request.reason } : {}) }
          : { ...base, pinned: request.pinned };
  const event = makeMessage({
    type: request.type,
    thread_id,
    run_id: target.run_id,
    task_id: target.task_id,
    ...(target.parent_task_id ? { parent_task_id: target.parent_task_id } : {}),
    from: { agent_id: actor.agent_id, role: "human", ...(actor.display_name ? { display_name: actor.display_name } : {}) },
    to: [],
    payload,
  } as Parameters<typeof makeMessage>[0]);
  return { event, target, state };
}

/** The state after `stored`, the action as appended (lib/fold/message-actions.ts `applyAction`). */
export function stateAfter(state: MessageState, stored: StoredEvent): MessageState {
  return applyAction(state, stored as MessageActionEvent);
}

/**
 * The append authorizer's check of message actions (server/auth/authorize-append.ts), for any
 * principal's messages (a person's route or `POST /api/events`): each action names a chat.message
 * of its thread and is stored in that message's run and task (else 422 unknown_message), to
 * nobody (else 400 invalid_event), and `refusal` allows it. The target must be stored already
 * (not earlier in the same batch). Returns the first refusal with the message's index, or null.
 */
export async function actionRefusal(
  actor: { agent_id: string; admin: boolean },
  messages: readonly ClutchMessage[],
  queries: Queries,
): Promise<{ index: number; error: ClutchError } | null> {
  for (const [index, m] of messages.entries()) {
    if (!isEvent(m, ...MESSAGE_ACTION_TYPES)) continue;
    const message_id = m.payload.message_id;
    const events = await queries.messageWithActions(m.thread_id, message_id);
    const target = events[0];
    if (!target || !isEvent(target, "chat.message") || target.run_id !== m.run_id || target.task_id !== m.task_id) {
      const error = new ClutchError("unknown_message", `${m.type} names message ${message_id}, which is not a message of thread ${m.thread_id} in run ${m.run_id}, task ${m.task_id}; an action is stored in the thread, run and task of the message it acts on`, 422);
      return { index, error };
    }
    if (m.to.length) return { index, error: new ClutchError("invalid_event", `${m.type} is addressed to nobody: send it with to: []`, 400) };
    const error = refusal(m.type, target, foldMessageActions(events).get(target.id)!, actor);
    if (error) return { index, error };
  }
  return null;
}
