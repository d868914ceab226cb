/**
 * Typed events: a stored event narrowed to its message type, so its payload is read with the
 * payload schema of Clutch Protocol §2 (`PAYLOAD_BY_TYPE`) instead of a cast.
 *
 *   if (isEvent(ev, "task.result", "task.error")) ev.payload   // PayloadOf<"task.result"> | PayloadOf<"task.error">
 *   if (isEvent(ev, "chat.message")) ev.payload.text            // string
 *
 * The narrowing is sound because every event is checked against its type's payload schema on
 * ingest (`ClutchMessageSchema`), and payload objects are loose: fields a schema does not name
 * stay `unknown`. Pure; runs in the browser and on the server.
 */
import type { ClutchMessage, StoredEvent } from "./envelope";
import type { MessageType, PayloadOf } from "./payloads";

/**
 * `E` (a ClutchMessage or a StoredEvent) with `type` fixed to `T` and the payload of that type.
 * Distributes over a union of types, so `EventOf<"a" | "b">` is `EventOf<"a"> | EventOf<"b">`.
 */
export type EventOf<T extends MessageType, E extends ClutchMessage = StoredEvent> = T extends MessageType
  ? Omit<E, "type" | "payload"> & { type: T; payload: PayloadOf<T> & Record<string, unknown> }
  : never;

/** A stored event of type `T`, e.g. `StoredEventOf<"task.request">`. */
export type StoredEventOf<T extends MessageType> = EventOf<T, StoredEvent>;

/** True when `ev` is of one of `types`; narrows `ev` to that type and its payload. */
export function isEvent<E extends ClutchMessage, T extends MessageType>(ev: E, ...types: T[]): ev is E & EventOf<T, E> {
  return (types as string[]).includes(ev.type);
}
