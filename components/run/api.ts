/**
 * HTTP calls of the run page: a run with its forks and tasks, its events page by page or as one
 * stream, fork, export and import. Errors are `ApiRequestError`s carrying the server's
 * `{ error: { code, message, issues? } }` (import's issues are `{ line, path, message }`).
 */
import type { EventPage, ForkCompareResponse, RunDetail, RunImportResult, RunSummary } from "@/lib/api/types";
import type { StoredEvent } from "@/lib/protocol";
import { apiRequest, ApiRequestError, errorOf } from "@/components/live/api";

const enc = encodeURIComponent;

/** A fork of a run as `GET /api/runs/:id` lists it. */
export interface ForkRef {
  run_id: string;
  at_seq: number;
  created_at?: string;
  started_at?: string;
  /** Its number in its channel, "#13". */
  run_number?: number;
  /** "Analyze sales (fork at #46)". */
  title?: string | null;
}

/** `GET /api/runs/:id`: the run (with forked_from and forks) and its tasks from the projection. */
export type RunDetailResponse = Omit<RunDetail, "run"> & {
  run: RunSummary & { forks?: ForkRef[] };
};

/** The URL of `GET /api/runs/:id` (the run page preloads it with its HTML). */
export function runDetailUrl(runId: string): string {
  return `/api/runs/${enc(runId)}`;
}

/**
 * `GET /api/runs/:id`; 404 `unknown_run`. The first call may take the response the page
 * preloaded (`<link rel="preload" as="fetch">`), so it uses the default cache mode: the server
 * answers `no-store`, so nothing is kept beyond that.
 */
export function fetchRunDetail(runId: string): Promise<RunDetailResponse> {
  return apiRequest<RunDetailResponse>(runDetailUrl(runId), { cache: "default" });
}

/** `GET /api/runs/:id/compare`: a fork beside its parent; 400 `not_a_fork`, 404 `unknown_run`. */
export function fetchForkComparison(runId: string): Promise<ForkCompareResponse> {
  return apiRequest<ForkCompareResponse>(`/api/runs/${enc(runId)}/compare`);
}

/** Largest page the server serves. */
export const EVENT_PAGE = 5000;

/**
 * `GET /api/runs/:id/events?after=&limit=`: events with seq > after, ascending; with `before`
 * (a seq, or "end" for the newest page) also below it (`after` and a numeric `before`: the
 * slice between them, paged forward).
 */
export function fetchRunEvents(runId: string, after: number | null, limit = EVENT_PAGE, signal?: AbortSignal, before?: number | "end"): Promise<EventPage> {
  const q = new URLSearchParams({ limit: String(limit) });
  if (after !== null) q.set("after", String(after));
  if (before !== undefined) q.set("before", String(before));
  return apiRequest<EventPage>(`/api/runs/${enc(runId)}/events?${q}`, { signal });
}

/**
 * `GET /api/runs/:id/events/stream?after=`: every event of the run with seq > after, up to its
 * newest when asked, in seq order, handed to `onEvents` in batches as the JSON Lines arrive (each
 * batch the complete lines received so far, parsed at once). Resolves once the body has ended;
 * throws ApiRequestError for an error answer, and for a body broken off (status 0, "network").
 */
export async function streamRunEvents(runId: string, after: number, signal: AbortSignal, onEvents: (events: StoredEvent[]) => void): Promise<void> {
  const url = `/api/runs/${enc(runId)}/events/stream?${new URLSearchParams({ after: String(after) })}`;
  let res: Response;
  try {
    res = await fetch(url, { cache: "no-store", signal, headers: { accept: "application/x-ndjson" } });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ApiRequestError(0, "network", err instanceof Error ? `Network error: ${err.message}` : "Network error");
  }
  if (!res.ok) throw await errorOf(res);
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value;
      const end = rest.lastIndexOf("\n");
      if (end < 0) continue;
      // JSON text holds no raw newline: the lines joined with commas are one JSON array.
      const lines = rest.slice(0, end);
      rest = rest.slice(end + 1);
      onEvents(JSON.parse(`[${lines.replaceAll("\n", ",")}]`) as StoredEvent[]);
    }
  } catch (err) {
    if (signal.aborted || err instanceof SyntaxError) throw err;
    throw new ApiRequestError(0, "network", err instanceof Error ? `Network error: ${err.message}` : "Network error");
  }
  if (rest.trim()) throw new ApiRequestError(0, "network", "Network error: the run's events ended mid-line");
}

/** `POST /api/runs/:id/fork { at_seq }` → the new run. */
export async function forkRun(runId: string, atSeq: number): Promise<RunSummary> {
  const body = await apiRequest<{ run: RunSummary }>(`/api/runs/${enc(runId)}/fork`, {
    method: "POST",
    body: JSON.stringify({ at_seq: atSeq }),
  });
  return body.run;
}

/** Where the JSON Lines export of a run downloads from. */
export function exportUrl(runId: string): string {
  return `/api/runs/${enc(runId)}/export`;
}

/** One bad line of an import, as the server reports it. */
export interface ImportIssue {
  line: number;
  path: (string | number)[];
  message: string;
}

/** Import options: the channel to put the run in, whether to give it a new run id, and whether only to ask what it would do. */
export interface ImportOptions {
  threadId?: string;
  newRun?: boolean;
  dryRun?: boolean;
}

/**
 * `POST /api/runs/import` with the JSON Lines text → what was done (`?dry_run=true`: what would
 * be, nothing stored); 400 `invalid_jsonl` with issues.
 */
export async function importRun(text: string, opts: ImportOptions = {}): Promise<RunImportResult> {
  const q = new URLSearchParams();
  if (opts.threadId) q.set("thread_id", opts.threadId);
  if (opts.newRun) q.set("new_run", "true");
  if (opts.dryRun) q.set("dry_run", "true");
  return apiRequest<RunImportResult>(`/api/runs/import${q.size ? `?${q}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: text,
  });
}

/** The issues of an import error, when they have the `{ line, path, message }` shape. */
export function importIssues(err: unknown): ImportIssue[] {
  if (!(err instanceof ApiRequestError) || !Array.isArray(err.issues)) return [];
  return err.issues.filter(
    (i): i is ImportIssue => Boolean(i) && typeof (i as ImportIssue).line === "number" && typeof (i as ImportIssue).message === "string",
  );
}

/** `POST /api/runs/:id/cancel { reason? }`: cancels every task of the run that has not ended; 409 `run_ended`. */
export async function cancelRun(runId: string, reason?: string): Promise<{ cancelled: string[] }> {
  return apiRequest<{ cancelled: string[] }>(`/api/runs/${enc(runId)}/cancel`, { method: "POST", body: JSON.stringify(reason ? { reason } : {}) });
}

/** `POST /api/tasks/:id/cancel { reason? }`: cancels the task and what is under it; 409 `task_ended`. */
export async function cancelTask(taskId: string, reason?: string): Promise<{ cancelled: string[] }> {
  return apiRequest<{ cancelled: string[] }>(`/api/tasks/${enc(taskId)}/cancel`, { method: "POST", body: JSON.stringify(reason ? { reason } : {}) });
}

/** `POST /api/tasks/:id/retry`: a new attempt of a failed, cancelled or timed-out task; 409 `task_not_retryable` / `parent_ended`. */
export async function retryTask(taskId: string): Promise<{ attempt: number }> {
  return apiRequest<{ attempt: number }>(`/api/tasks/${enc(taskId)}/retry`, { method: "POST", body: "{}" });
}
