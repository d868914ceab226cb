/**
 * Typed fetch helpers for the HTTP API (shapes in lib/api/types.ts). Every non-2xx answer becomes
 * an `ApiRequestError` carrying the server's `{ error: { code, message, issues? } }`.
 */
import type { AgentSummary, ApiError, EventPage, PackImport, RunSummary, SchemaDetail, SchemaSummary, ThreadSummary, WorkflowDetail, WorkflowSummary } from "@/lib/api/types";
import type { StoredEvent } from "@/lib/protocol";
import type { ThreadEventsData } from "./query-keys";

/** An HTTP error from the API, or a network failure (`code: "network"`). `body` is the whole answer. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues?: unknown[],
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = "ApiRequestError";
  }
}

/** `GET …/events?before=` answers an EventPage plus whether older events exist. */
export interface EventPageBefore extends EventPage {
  has_more_before: boolean;
}

/**
 * How the `fetch*` helpers GET a path of the API: `apiRequest` in the browser; on the server, the
 * route's own answer for the page being rendered (app/(app)/initial-data.ts), so a page's first
 * data comes with its HTML in the very shape the browser's cache holds.
 */
export type ApiGet = <T>(path: string) => Promise<T>;

/**
 * A JSON call to the API: `no-store` unless `init.cache` says otherwise, a JSON content type when
 * there is a body and no other type is given. Throws ApiRequestError (status 0 on a network
 * failure) with the server's code, message and issues.
 */
export async function apiRequest<T>(url: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      cache: "no-store",
      ...init,
      headers: { accept: "application/json", ...(init?.body ? { "content-type": "application/json" } : {}), ...init?.headers },
    });
  } catch (err) {
    throw new ApiRequestError(0, "network", err instanceof Error ? `Network error: ${err.message}` : "Network error");
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json().catch(() => null)) as T;
}

/**
 * The ApiRequestError of a non-2xx answer, from its `{ error: { code, message, issues? } }` body.
 * A 401 in the browser also sends the person to sign in (the session ended elsewhere or expired),
 * then back here.
 */
export async function errorOf(res: Response): Promise<ApiRequestError> {
  const body: unknown = await res.json().catch(() => null);
  if (res.status === 401 && typeof window !== "undefined") {
    window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  const e = (body as ApiError | null)?.error;
  return new ApiRequestError(res.status, e?.code ?? `http_${res.status}`, e?.message ?? `${res.status} ${res.statusText}`, e?.issues, body);
}

/** All channels, sorted by name. */
export async function fetchThreads(get: ApiGet = apiRequest): Promise<ThreadSummary[]> {
  return (await get<{ threads: ThreadSummary[] }>("/api/threads")).threads;
}

/** Creates a channel; throws `name_taken` (409) or a 400 with issues. */
export async function createThread(input: { name: string; topic?: string; visibility?: "public" | "private" }): Promise<ThreadSummary> {
  return (await apiRequest<{ thread: ThreadSummary }>("/api/threads", { method: "POST", body: JSON.stringify(input) })).thread;
}

/** The `limit` events just before `before` (a seq, or "end" for the newest), ascending. */
export async function fetchEventsBefore(threadId: string, before: number | "end", limit = 100, get: ApiGet = apiRequest): Promise<EventPageBefore> {
  const q = new URLSearchParams({ before: String(before), limit: String(limit) });
  const page = await get<Partial<EventPageBefore>>(`/api/threads/${encodeURIComponent(threadId)}/events?${q}`);
  const events = page.events ?? [];
  return {
    events,
    next_after: page.next_after ?? null,
    // Servers that do not say fall back to "a full page means there may be more".
    has_more_before: page.has_more_before ?? events.length >= limit,
  };
}

/** Events in a channel's first page, and in each older page loaded as the person scrolls up. */
export const CHANNEL_PAGE = 100;

/** A channel's newest page (`CHANNEL_PAGE` events), as the channel's cache holds it (query-keys.ts `ThreadEventsData`). */
export async function fetchNewestEvents(threadId: string, get: ApiGet = apiRequest): Promise<ThreadEventsData> {
  const page = await fetchEventsBefore(threadId, "end", CHANNEL_PAGE, get);
  return { events: page.events, hasMoreBefore: page.has_more_before };
}

/**
 * Posts the person's chat.message; answers the stored event. `replyTo`: the id of the message it
 * replies to in its thread (an agent's question: the answer); `null` or `undefined`: a new
 * message (docs/channels.md).
 */
export async function postMessage(threadId: string, text: string, replyTo?: string | null, how: { chatOnly?: boolean; alsoInChannel?: boolean } = {}): Promise<StoredEvent> {
  const body: { text: string; reply_to?: string | null; chat_only?: true; also_in_channel?: true } = { text };
  if (replyTo !== undefined) body.reply_to = replyTo;
  if (how.chatOnly) body.chat_only = true;
  if (how.alsoInChannel) body.also_in_channel = true;
  return (
    await apiRequest<{ event: StoredEvent }>(`/api/threads/${encodeURIComponent(threadId)}/messages`, {
      method: "POST",
      body: JSON.stringify(body),
    })
  ).event;
}

/** The workspace's agents with their status (`GET /api/agents`). */
export async function fetchAgents(): Promise<AgentSummary[]> {
  return (await apiRequest<{ agents: AgentSummary[] }>("/api/agents")).agents;
}

/** A channel's runs, oldest first (`GET /api/threads/:id/runs`). */
export async function fetchThreadRuns(threadId: string, get: ApiGet = apiRequest): Promise<RunSummary[]> {
  const runs = (await get<{ runs: RunSummary[] }>(`/api/threads/${encodeURIComponent(threadId)}/runs`)).runs;
  return runs.slice().sort((a, b) => a.first_seq - b.first_seq);
}

/** Where the whole of a truncated tool result can be read (`GET /api/artifacts/:ref`). */
export function artifactUrl(ref: string): string {
  return `/api/artifacts/${encodeURIComponent(ref)}`;
}

/** Every schema of the registry (`GET /api/schemas`), by name then version. */
export async function fetchSchemas(): Promise<SchemaSummary[]> {
  return (await apiRequest<{ schemas: SchemaSummary[] }>("/api/schemas")).schemas;
}

/** One schema with its JSON Schema and every version of its name; throws unknown_schema (404). */
export async function fetchSchema(ref: string): Promise<{ schema: SchemaDetail; versions: SchemaSummary[] }> {
  const path = ref.replace(/^schema:\/\//, "").split("/").map(encodeURIComponent).join("/");
  return apiRequest(`/api/schemas/${path}`);
}

/** Adds a payload type's schema; throws invalid_body / invalid_schema (400) or schema_exists (409) with a message to show. */
export async function addSchema(input: { payload_type: string; description: string; json_schema: unknown }): Promise<SchemaDetail> {
  return (await apiRequest<{ schema: SchemaDetail }>("/api/schemas", { method: "POST", body: JSON.stringify(input) })).schema;
}

/** Imports a PromptPack or an AutoGen team (its JSON or YAML text; `team` picks a gallery's team) as a team; throws invalid_pack (400, issues with JSONPaths) or a 409. */
export async function importPack(pack: string, variables: Record<string, string>, team?: string): Promise<PackImport> {
  return apiRequest<PackImport>("/api/workspace/import", { method: "POST", body: JSON.stringify({ pack, variables, ...(team ? { team } : {}) }) });
}

/** Every workflow (`GET /api/workflows`), by name. */
export async function fetchWorkflows(): Promise<WorkflowSummary[]> {
  return (await apiRequest<{ workflows: WorkflowSummary[] }>("/api/workflows")).workflows;
}

/** One workflow with its source; throws unknown_workflow (404). */
export async function fetchWorkflow(name: string): Promise<WorkflowDetail> {
  return (await apiRequest<{ workflow: WorkflowDetail }>(`/api/workflows/${encodeURIComponent(name)}`)).workflow;
}

/** Saves a workflow's source; `version` is the one the editor started from (none for a new one). Throws invalid_workflow (400, issues with paths) or workflow_changed (409). */
export async function saveWorkflow(source: string, version?: number): Promise<WorkflowDetail> {
  return (await apiRequest<{ workflow: WorkflowDetail }>("/api/workflows", { method: "POST", body: JSON.stringify({ source, ...(version !== undefined ? { version } : {}) }) })).workflow;
}

/** Starts a run of workflow `name` in channel `thread_id` with `text` as its request. */
export async function runWorkflow(name: string, text: string, thread_id?: string): Promise<{ run_id: string; thread_id: string }> {
  return apiRequest(`/api/workflows/${encodeURIComponent(name)}/runs`, { method: "POST", body: JSON.stringify({ text, ...(thread_id ? { thread_id } : {}) }) });
}
