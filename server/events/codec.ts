/**
 * Mapping between a ClutchMessage and its `events` row (prisma/schema.prisma).
 *
 * Queried envelope fields are columns; `payload` is one JSONB column and every other envelope
 * field (including `from`, `to`, `v` and `parent_task_id` as given) is kept in `rest`, so a
 * message read back is the message stored. `ts` is normalised to milliseconds in UTC
 * (`toISOString()`) when stored.
 */
import type { ClutchMessage, StoredEvent } from "@/lib/protocol";
import type { Event as EventRow, Prisma } from "../db/generated/client";

/** The `events` row for a message and its seq. */
export function toRow(msg: ClutchMessage, seq: number): Prisma.EventCreateManyInput {
  const { id, ts, thread_id, run_id, task_id, type, payload, idempotency_key, ...rest } = msg;
  return {
    seq: BigInt(seq),
    id,
    ts: new Date(ts),
    thread_id,
    run_id,
    task_id,
    parent_task_id: msg.parent_task_id ?? null,
    type,
    from_agent_id: msg.from.agent_id,
    idempotency_key: idempotency_key ?? null,
    payload: payload as Prisma.InputJsonValue,
    rest: rest as Prisma.InputJsonValue,
  };
}

/**
 * The columns of `events` that make a stored event, for raw SELECTs (`SELECT ${eventColumns("e")}`):
 * every column but the generated `search` vector, which is for the index, not for reading.
 */
export function eventColumns(alias?: string): string {
  const p = alias ? `${alias}.` : "";
  return ["seq", "id", "run_id", "thread_id", "task_id", "parent_task_id", "type", "from_agent_id", "ts", "idempotency_key", "payload", "rest", "stored_at"]
    .map((c) => p + c)
    .join(", ");
}

/** The stored event of a row. */
export function fromRow(row: EventRow): StoredEvent {
  const rest = row.rest as Omit<ClutchMessage, "id" | "ts" | "thread_id" | "run_id" | "task_id" | "type" | "payload">;
  const event = {
    ...rest,
    id: row.id,
    ts: row.ts.toISOString(),
    thread_id: row.thread_id,
    run_id: row.run_id,
    task_id: row.task_id,
    type: row.type as ClutchMessage["type"],
    payload: row.payload as Record<string, unknown>,
    seq: Number(row.seq),
  } as StoredEvent;
  if (row.idempotency_key !== null) event.idempotency_key = row.idempotency_key;
  return event;
}

/**
 * The columns for `eventLine`: those of `eventColumns` with `payload` and `rest` as the JSON text
 * PostgreSQL writes and `ts` as the text `toISOString()` gives, so a large read is not parsed into
 * objects only to be written out again.
 */
export function eventLineColumns(alias?: string): string {
  const p = alias ? `${alias}.` : "";
  return (
    `${p}seq, ${p}id, to_char(${p}ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts, ${p}thread_id, ${p}run_id, ${p}task_id, ${p}type, ` +
    `${p}idempotency_key, ${p}payload::text AS payload, ${p}rest::text AS rest`
  );
}

/** A row read with `eventLineColumns`. */
export interface EventLineRow {
  seq: bigint;
  id: string;
  /** `2026-11-28T16:12:41.123Z` */
  ts: string;
  thread_id: string;
  run_id: string;
  task_id: string;
  type: string;
  idempotency_key: string | null;
  payload: string;
  rest: string;
}

/**
 * The stored event of a row read with `eventLineColumns`, as one line of JSON (no newline): it
 * parses to what `fromRow` gives for the same row (keys in another order, the JSONB columns as
 * PostgreSQL spaces them). `rest` comes first, so the columns win over a key it repeats, as in
 * `fromRow`. JSON text never holds a raw newline, so lines can be joined with "\n" (JSON Lines).
 */
export function eventLine(row: EventLineRow): string {
  const rest = row.rest === "{}" ? "{" : `${row.rest.slice(0, -1)},`;
  const key = row.idempotency_key === null ? "" : `,"idempotency_key":${JSON.stringify(row.idempotency_key)}`;
  return (
    `${rest}"id":${JSON.stringify(row.id)},"ts":"${row.ts}","thread_id":${JSON.stringify(row.thread_id)},"run_id":${JSON.stringify(row.run_id)},` +
    `"task_id":${JSON.stringify(row.task_id)},"type":${JSON.stringify(row.type)},"payload":${row.payload},"seq":${row.seq}${key}}`
  );
}

/** The message with `ts` normalised as it will be stored. */
export function normalise(msg: ClutchMessage): ClutchMessage {
  return { ...msg, ts: new Date(msg.ts).toISOString() };
}
