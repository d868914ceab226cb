/**
 * Search over the channels the person may read (`GET /api/search`, docs/channels.md "Search"),
 * and where a hit opens: the channel with the event in context. A message of the conversation
 * is scrolled to in the channel; the machinery of a run (a tool result, a task's result) opens
 * the run's thread beside it.
 */
import type { SearchHit } from "@/lib/api/types";
import { inConversation } from "@/lib/conversation";
import { apiRequest } from "@/components/live/api";

/** The filters of a search; empty strings are left out. */
export interface SearchQuery {
  q: string;
  thread_id?: string;
  type?: string;
  agent?: string;
  /** ISO dates (yyyy-mm-dd or full timestamps). */
  after?: string;
  before?: string;
  limit?: number;
}

/** `GET /api/search`: hits best first. Throws ApiRequestError with the server's message (e.g. an empty query). */
export async function search(query: SearchQuery, signal?: AbortSignal): Promise<SearchHit[]> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  return (await apiRequest<{ results: SearchHit[] }>(`/api/search?${params}`, { signal })).results;
}

/**
 * Where a hit opens: `/c/<thread>?event=<id>&hl=<words>`, with `&run=<run_id>` for an event that
 * lives in its run's thread. `hl` is the matched words of the excerpt, which the thread unfolds
 * and highlights (components/search/reveal-match.ts).
 */
export function hitHref(hit: SearchHit): string {
  const ev = hit.event;
  const q = new URLSearchParams({ event: ev.id });
  if (!inConversation(ev)) q.set("run", ev.run_id);
  const words = matchedWords(hit.snippet);
  if (words.length) q.set("hl", words.join(" "));
  return `/c/${encodeURIComponent(ev.thread_id)}?${q}`;
}

/** The distinct matched words of an excerpt, as marked (« »), at most 10. */
export function matchedWords(snippet: string): string[] {
  return [...new Set(snippetParts(snippet).filter((p) => p.hit).map((p) => p.text.trim()).filter(Boolean))].slice(0, 10);
}

/** The snippet's parts: plain text and the matched words (between « and »). */
export function snippetParts(snippet: string): { text: string; hit: boolean }[] {
  const parts: { text: string; hit: boolean }[] = [];
  const re = /«([^»]*)»/g;
  let at = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    if (m.index > at) parts.push({ text: snippet.slice(at, m.index), hit: false });
    parts.push({ text: m[1]!, hit: true });
    at = m.index + m[0].length;
  }
  if (at < snippet.length) parts.push({ text: snippet.slice(at), hit: false });
  return parts;
}

/** The URL parameters of a search (the `/search` page keeps its search in the URL). */
export const SEARCH_FIELDS = ["q", "thread_id", "type", "agent", "after", "before"] as const;

/** The search named by a URL's parameters (the page passes its searchParams). */
export function queryFromParams(params: Record<string, string | string[] | undefined>): SearchQuery {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";
  const q: SearchQuery = { q: one(params.q) };
  for (const f of SEARCH_FIELDS) if (f !== "q" && one(params[f])) q[f] = one(params[f]);
  return q;
}
