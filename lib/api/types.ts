/**
 * Shapes of the HTTP API's responses (issue 2 §4), shared by route handlers and the browser.
 *
 * Errors are always `{ error: { code, message, issues? } }` with a 4xx/5xx status.
 */
import type { StoredEvent } from "../protocol/envelope";

/** A channel as listed by `GET /api/threads`. Times are ISO 8601 strings. */
export interface ThreadSummary {
  id: string;
  name: string;
  topic: string;
  created_at: string;
  /** seq of the newest event in the thread; 0 when empty. */
  last_seq: number;
  last_event_at: string | null;
  /** How many events in the thread count as unread for a person (lib/unread.ts). */
  message_count: number;
}

export interface ApiError {
  error: { code: string; message: string; issues?: unknown[] };
}

/** `GET /api/threads/:id/events` and `GET /api/runs/:id/events`. */
export interface EventPage {
  events: StoredEvent[];
  /** seq to pass as `after` for the next page; null when this page reached the end. */
  next_after: number | null;
}

/** `GET /api/health`. */
export interface Health {
  ok: boolean;
  version: string;
  database: { ok: boolean; kind: "embedded" | "postgres"; error?: string };
}
