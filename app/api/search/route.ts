/**
 * GET /api/search?q=&thread_id=&type=&agent=&after=&before=&limit=: full-text search over the
 * channels the principal may read (docs/channels.md, Search). `q` is the search box as typed:
 * words, "phrases" and the operators of lib/search/query.ts (`in:#sales`, `from:pm-1`,
 * `from:@dana`, `before:`/`after:`/`on:`, `is:result`), which narrow as the other parameters do.
 * 200 { results: SearchHit[] } best first, one per event across a run and its forks; 400
 * invalid_query naming the field (path ["q"] with the operator's message for a bad operator or a
 * name that matches no channel, agent or person; an unknown type, a bad date); 404
 * unknown_thread for a `thread_id` the principal may not read.
 */
import { z } from "zod";
import type { SearchHit } from "@/lib/api/types";
import { personHandle } from "@/lib/mentions";
import { MESSAGE_TYPES, type MessageType } from "@/lib/protocol";
import { parseSearch, type FromName } from "@/lib/search/query";
import type { Principal } from "@/server/auth/principal";
import type { Clutch } from "@/server/clutch";
import { ClutchError } from "@/server/errors";
import { runTitles } from "@/server/events/runs";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Day = z.iso.date().or(z.iso.datetime({ offset: true }));

const Query = z.strictObject({
  q: z.string().trim().min(1, "type something to search for").max(400, "a search is at most 400 characters"),
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

/** A 400 on `q` that says what is wrong with it. */
function badQuery(message: string): ClutchError {
  return new ClutchError("invalid_query", `q: ${message}`, 400, [{ path: ["q"], message }]);
}

/** `from:` names as sender ids: people by id, handle or first name; agents by id or display name. */
async function senders(rt: Clutch, names: FromName[]): Promise<string[]> {
  if (!names.length) return [];
  const { store, identity } = rt;
  const people = await identity.people();
  const cards = await store.queries.latestCards();
  const lower = (s: string) => s.normalize("NFC").toLowerCase();
  const person = (name: string) => {
    const n = lower(name);
    return people.filter((p) => lower(p.agent_id) === n || lower(p.id) === n || lower(personHandle(p.name)) === n || lower(p.name.trim().split(/\s+/)[0] ?? "") === n || lower(p.name) === n);
  };
  const out: string[] = [];
  for (const f of names) {
    if (f.person) {
      const found = person(f.name);
      if (!found.length) throw badQuery(`from:@${f.name}: nobody here is called “${f.name}”`);
      out.push(...found.map((p) => p.agent_id));
      continue;
    }
    const n = lower(f.name);
    if (/^(agent|user):/.test(n)) {
      out.push(f.name);
      continue;
    }
    const agents = cards.filter((ev) => {
      const card = ev.payload.card;
      const display = lower(card.display?.name ?? "");
      return lower(ev.from.agent_id) === `agent:${n}` || display === n || display.replace(/\s+/g, "-") === n;
    });
    if (agents.length) out.push(...agents.map((ev) => ev.from.agent_id));
    else if (await store.queries.hasSender(`agent:${f.name}`)) out.push(`agent:${f.name}`);
    else if (person(f.name).length) out.push(...person(f.name).map((p) => p.agent_id));
    else throw badQuery(`from:${f.name}: no agent or person is called “${f.name}” (a person is from:@name)`);
  }
  return [...new Set(out)];
}

/** `in:` names as the ids of channels the principal may read. */
async function channelsNamed(rt: Clutch, principal: Principal, names: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) {
    const thread = await rt.store.queries.threadByName(name);
    const readable = thread ? await rt.identity.channels.assertRead(principal, thread.id).then(() => true, () => false) : false;
    if (!thread || !readable) throw badQuery(`in:#${name}: there is no channel #${name} you can read`);
    ids.push(thread.id);
  }
  return ids;
}

export const GET = route({ auth: "signed-in", query: Query }, async ({ principal, query }) => {
  const rt = getClutch();
  const { store, identity } = rt;
  const parsed = parseSearch(query.q);
  if (!parsed.ok) throw badQuery(parsed.error.message);
  const ops = parsed.query;
  let thread_ids: string[] | "all";
  if (query.thread_id) {
    await identity.channels.assertRead(principal, query.thread_id);
    thread_ids = [query.thread_id];
  } else {
    const readable = await identity.channels.readable(principal);
    thread_ids = readable.all ? "all" : [...readable.ids];
  }
  if (ops.in.length) {
    const named = await channelsNamed(rt, principal, ops.in);
    thread_ids = thread_ids === "all" ? named : named.filter((id) => (thread_ids as string[]).includes(id));
  }
  const from = [...(query.agent ? [query.agent] : []), ...(await senders(rt, ops.from))];
  const after = [dateOf(query.after), dateOf(ops.after)].filter((d) => d !== undefined).sort((a, b) => b.getTime() - a.getTime())[0];
  const before = [dateOf(query.before, true), dateOf(ops.before)].filter((d) => d !== undefined).sort((a, b) => a.getTime() - b.getTime())[0];
  const hits = await store.queries.search({
    q: ops.text,
    thread_ids,
    type: query.type,
    kinds: ops.is,
    from: from.length ? from : undefined,
    after,
    before,
    limit: query.limit,
  });
  const names = await store.queries.threadNames(hits.map((h) => h.event.thread_id));
  const runIds = hits.flatMap((h) => [h.event.run_id, ...h.also_in.map((f) => f.run_id)]);
  const titles = await runTitles(store.queries, await store.queries.runs([...new Set(runIds)]));
  const results: SearchHit[] = hits.map((h) => ({
    ...h,
    also_in: h.also_in.map((f) => ({ run_id: f.run_id, run_title: titles.get(f.run_id) ?? null })),
    thread_name: names.get(h.event.thread_id) ?? null,
    run_title: titles.get(h.event.run_id) ?? null,
  }));
  return json({ results });
});
