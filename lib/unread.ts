/**
 * Which events count towards a channel's unread badge: what a person sees in the channel's
 * conversation (docs/channels.md "Welcome, drafts and reading"), never agents' machinery:
 *
 *   chat.message     a person's new message, or a reply also sent to the channel; an agent's
 *                    message to the channel or to people (not one between agents)
 *   chat.system      a notice, except the one that announces a new channel
 *   approval.requested, routing.failure
 *
 * Not: task steps and results (the run card shows them), replies that stay in a thread, message
 * actions (they decorate a message), a fork's or an import's copies (read once where they came
 * from). `countsAsUnread` is the rule for one event (the append path keeps `message_count` with
 * it); `UNREAD_SQL` is the same rule as a condition on a row of `events` (for counts over many,
 * server/events/read-marks.ts). test/unread-rule.test.ts checks that the two agree.
 */
import { isCopy } from "./conversation";
import { isPeopleRecipient } from "./fold/questions";

/** `meta.kind` of the chat.system notice that announces a new channel: not news to anyone. */
export const THREAD_CREATED = "thread.created";

type Addressed = { agent_id: string; role?: string };

/** What the rule reads of an event. */
export interface UnreadInput {
  type: string;
  from?: Addressed;
  to?: readonly Addressed[];
  payload?: unknown;
  meta?: Record<string, unknown>;
}

const isPerson = (p: Addressed | undefined) => p !== undefined && isPeopleRecipient(p);

/** True when the event adds one to its thread's unread count (see the file comment). */
export function countsAsUnread(ev: UnreadInput): boolean {
  if (isCopy(ev)) return false;
  switch (ev.type) {
    case "chat.system":
      return ev.meta?.kind !== THREAD_CREATED;
    case "approval.requested":
    case "routing.failure":
      return true;
    case "chat.message": {
      const p = (ev.payload ?? {}) as { reply_to?: unknown; also_in_channel?: unknown };
      if (isPerson(ev.from)) return typeof p.reply_to !== "string" || p.also_in_channel === true;
      const to = ev.to ?? [];
      return to.length === 0 || to.some(isPerson);
    }
    default:
      return false;
  }
}

/**
 * `countsAsUnread` as a SQL condition on a row of `events` aliased `e` (`rest` holds `from`,
 * `to` and `meta`; `$kind` is bound to THREAD_CREATED by the caller as the parameter named).
 */
export function unreadSql(kindParam: string): string {
  const person = (p: string) => `(${p}->>'agent_id' = 'user' OR ${p}->>'agent_id' LIKE 'user:%' OR ${p}->>'role' = 'human')`;
  return `(
    coalesce(jsonb_typeof(e.rest->'meta'->'forked_from'), 'null') NOT IN ('object', 'array')
    AND coalesce(jsonb_typeof(e.rest->'meta'->'imported'), 'null') = 'null'
    AND (
      (e.type = 'chat.system' AND coalesce(e.rest->'meta'->>'kind', '') <> ${kindParam})
      OR e.type IN ('approval.requested', 'routing.failure')
      OR (e.type = 'chat.message' AND (
        CASE WHEN ${person("e.rest->'from'")}
          THEN jsonb_typeof(e.payload->'reply_to') IS DISTINCT FROM 'string' OR e.payload->'also_in_channel' = 'true'::jsonb
          ELSE jsonb_array_length(coalesce(e.rest->'to', '[]'::jsonb)) = 0
            OR EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(e.rest->'to', '[]'::jsonb)) AS t(p) WHERE ${person("t.p")})
        END))
    )
  )`;
}
