/**
 * The runs list from the browser (`GET /api/runs`, docs/channels.md "Runs"): the page's filters,
 * how they read from and write to the URL (so a view can be linked), and the fetch.
 */
import type { RunList } from "@/lib/api/types";
import { apiRequest } from "@/components/live/api";

/** Which runs the segmented control shows: waiting on me, in progress, ended, or all. */
export const RUN_VIEWS = [
  { id: "waiting_on_me", label: "Waiting on me" },
  { id: "running", label: "Running" },
  { id: "ended", label: "Ended" },
  { id: "all", label: "All" },
] as const;
export type RunView = (typeof RUN_VIEWS)[number]["id"];

/** The page's filters; empty strings mean "any". */
export interface RunFilters {
  view: RunView;
  /** A channel id. */
  channel: string;
  /** An agent id (`agent:pm-1`). */
  agent: string;
  /** A person's id (`user:<id>`). */
  requester: string;
}

export const NO_RUN_FILTERS: RunFilters = { view: "all", channel: "", agent: "", requester: "" };

/** The filters named by the page's URL parameters (`show`, `channel`, `agent`, `requester`); unknown values read as "any". */
export function filtersFromParams(params: Record<string, string | string[] | undefined>): RunFilters {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";
  const show = one(params.show);
  return {
    view: RUN_VIEWS.some((v) => v.id === show) ? (show as RunView) : "all",
    channel: one(params.channel),
    agent: one(params.agent),
    requester: one(params.requester),
  };
}

/** The page's URL query for `f` ("" for no filter): `?show=waiting_on_me&channel=thr_…`. */
export function filtersToSearch(f: RunFilters): string {
  const q = new URLSearchParams();
  if (f.view !== "all") q.set("show", f.view);
  for (const k of ["channel", "agent", "requester"] as const) if (f[k]) q.set(k, f[k]);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** True when any filter is set besides the view. */
export function hasSelects(f: RunFilters): boolean {
  return Boolean(f.channel || f.agent || f.requester);
}

/** The API query of `f`: Running is every run in progress (`status=active`), waiting ones too. */
export function apiQuery(f: RunFilters, before?: string, limit = 50): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (f.view === "waiting_on_me") q.set("waiting_on_me", "true");
  if (f.view === "running") q.set("status", "active");
  if (f.view === "ended") q.set("status", "ended");
  for (const k of ["channel", "agent", "requester"] as const) if (f[k]) q.set(k, f[k]);
  if (before) q.set("before", before);
  return q.toString();
}

/** `GET /api/runs`: a page of runs newest first. Throws ApiRequestError with the server's message. */
export function fetchRuns(f: RunFilters, before?: string, signal?: AbortSignal): Promise<RunList> {
  return apiRequest<RunList>(`/api/runs?${apiQuery(f, before)}`, { signal });
}

/** Where a run opens in its channel: the channel with the run's thread beside it. */
export function runChannelHref(run: { thread_id: string; run_id: string }): string {
  return `/c/${encodeURIComponent(run.thread_id)}?run=${encodeURIComponent(run.run_id)}`;
}
