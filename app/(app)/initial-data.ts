/**
 * A page's first data, sent with its HTML (docs/architecture.md "A page's first data"): the API's
 * own answers for the person whose page is being rendered, asked in this process (no HTTP hop)
 * through the same route modules, wrapper and checks as the browser's requests, and shaped by the
 * same `fetch*` helpers (components/live/api.ts), so the browser's cache starts with exactly what
 * it would have fetched. The browser then asks nothing for it after the page loads.
 *
 * Only for a full page load: a move within the page (Next's RSC request, header `rsc: 1`) gets
 * nothing here, as the browser may already hold the data and starts its own requests when a
 * sidebar link is pressed (components/workspace/sidebar.tsx). Any failure (an unknown channel,
 * the database away) gives `undefined`: the browser then asks as it always did and shows what the
 * API says.
 */
import { headers } from "next/headers";
import { GET as threadsRoute } from "@/app/api/threads/route";
import { GET as threadEventsRoute } from "@/app/api/threads/[thread_id]/events/route";
import { GET as threadRunsRoute } from "@/app/api/threads/[thread_id]/runs/route";
import { fetchNewestEvents, fetchThreadRuns, fetchThreads, type ApiGet } from "@/components/live/api";
import type { ThreadEventsData } from "@/components/live/query-keys";
import type { RunSummary, ThreadSummary } from "@/lib/api/types";

type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** The GET routes a page's first data may come from, by path (named groups are the path's params). */
const ROUTES: { path: RegExp; handler: RouteHandler }[] = [
  { path: /^\/api\/threads$/, handler: threadsRoute },
  { path: /^\/api\/threads\/(?<thread_id>[^/]+)\/events$/, handler: threadEventsRoute },
  { path: /^\/api\/threads\/(?<thread_id>[^/]+)\/runs$/, handler: threadRunsRoute },
];

/**
 * An `ApiGet` answering as the API would answer the person's browser for this request (their
 * cookie, in this process), or null on a move within the page (see the module doc). Throws on
 * a path not in ROUTES (a programming error) and on an error status.
 */
async function inProcessGet(): Promise<ApiGet | null> {
  const incoming = await headers();
  if (incoming.get("rsc") === "1") return null;
  const forward = new Headers({ cookie: incoming.get("cookie") ?? "" });
  return async <T>(path: string): Promise<T> => {
    const url = new URL(path, "http://clutch.internal");
    const route = ROUTES.find((r) => r.path.test(url.pathname));
    if (!route) throw new Error(`no in-process route for GET ${url.pathname}`);
    const params = url.pathname.match(route.path)!.groups ?? {};
    const res = await route.handler(new Request(url, { headers: forward }), { params: Promise.resolve({ ...params }) });
    if (!res.ok) throw new Error(`GET ${url.pathname}: ${res.status}`);
    return (await res.json()) as T;
  };
}

/** `fn(get)`, or undefined when there is no in-process get or it fails. */
async function load<T>(get: ApiGet | null, fn: (get: ApiGet) => Promise<T>): Promise<T | undefined> {
  if (!get) return undefined;
  try {
    return await fn(get);
  } catch {
    return undefined;
  }
}

/** The workspace's first data: the channel list (the sidebar, every channel's header). */
export async function initialWorkspace(): Promise<{ threads?: ThreadSummary[] }> {
  const get = await inProcessGet();
  return { threads: await load(get, (g) => fetchThreads(g)) };
}

/** A channel's first data: its newest page of events and its runs. */
export async function initialChannel(threadId: string): Promise<{ events?: ThreadEventsData; runs?: RunSummary[] }> {
  const get = await inProcessGet();
  const [events, runs] = await Promise.all([load(get, (g) => fetchNewestEvents(threadId, g)), load(get, (g) => fetchThreadRuns(threadId, g))]);
  return { events, runs };
}
