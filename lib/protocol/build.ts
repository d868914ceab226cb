/**
 * Building messages: `makeMessage` fills `v`, `id` and `ts` so callers state only what matters.
 */
import { PROTOCOL_VERSION, type ClutchMessage } from "./envelope";
import { newId } from "./ids";
import type { MessageType, PayloadOf } from "./payloads";

export type MessageDraft<T extends MessageType> = Omit<ClutchMessage, "v" | "id" | "ts" | "type" | "payload"> & {
  type: T;
  payload: PayloadOf<T>;
  id?: string;
  ts?: string;
};

/** A complete ClutchMessage from a draft: `v` set, `id` a new `msg_` id and `ts` now unless given. */
export function makeMessage<T extends MessageType>(draft: MessageDraft<T>): ClutchMessage {
  return {
    ...draft,
    v: PROTOCOL_VERSION,
    id: draft.id ?? newId("message"),
    ts: draft.ts ?? new Date().toISOString(),
    payload: draft.payload as Record<string, unknown>,
  };
}
