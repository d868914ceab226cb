/**
 * GET /api/search?q=&thread_id=&type=&agent=&after=&before=&limit=: full-text search over the
 * channels the principal may read (docs/channels.md, Search). 200 { results: SearchHit[] } best
 * first; 400 invalid_query naming the field (an empty `q`, an unknown type, a bad date); 404
 * unknown_thread for a `thread_id` the principal may not read.
 */
import { z } from "zod";
import type { SearchHit } from "@/lib/api/types";
import { MESSAGE_TYPES, type MessageType } from "@/lib/protocol";
import { runTitles } from "@/server/events/runs";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Day = z.iso.date().or(z.iso.datetime({ offset: true }));

const Query = z.strictObject({
  q: z.string().trim().min(1, "type something to search for").max(200, "a search is at most 200 characters"),
  thread_id: z.string().min(1).max(200).optional(),
  type: z.enum(MESSAGE_TYPES as [MessageType, ...MessageType[]]).optional(),
  agent: z.string().min(1).max(200).optional(),
  after: Day.optional(),
  before: Day.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(30),
});

/** A date (`2026-11-24`) means that day's start; `before` a date means before the next day. */
function dateOf(value: string | undefined, endOfDay = false): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (endOfDay && value.length === 10) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}

export const GET = route({ auth: "signed-in", query: Query }, async ({ principal, query }) => {
  const { store, identity } = getClutch();
  let thread_ids: string[] | "all";
  if (query.thread_id) {
    await identity.channels.assertRead(principal, query.thread_id);
    thread_ids = [query.thread_id];
  } else {
    const readable = await identity.channels.readable(principal);
    thread_ids = readable.all ? "all" : [...readable.ids];
  }
  const hits = await store.queries.search({
    q: query.q,
    thread_ids,
    type: query.type,
    from: query.agent,
    after: dateOf(query.after),
    before: dateOf(query.before, true),
    limit: query.limit,
  });
  const names = await store.queries.threadNames(hits.map((h) => h.event.thread_id));
  const titles = await runTitles(store.queries, await store.queries.runs(hits.map((h) => h.event.run_id)));
  const results: SearchHit[] = hits.map((h) => ({
    ...h,
    thread_name: names.get(h.event.thread_id) ?? null,
    run_title: titles.get(h.event.run_id) ?? null,
  }));
  return json({ results });
});
