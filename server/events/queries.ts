/**
 * Named reads of the log and its projections (threads, tasks, runs, approvals): the only reads
 * of the database outside the append path, so the rest of the server asks for what it needs by
 * name instead of building Prisma queries (docs/architecture.md, "Where each concern lives").
 * Reached as `store.queries`.
 *
 * Events come back as StoredEvents (codec `fromRow`), narrowed to their type where the query
 * fixes it (`StoredEventOf<"task.request">`); projection rows come back as their row types,
 * re-exported here. Nothing here writes.
 */
import { isEvent, type AgentCard, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { ModelUsageRow } from "@/lib/api/types";
import { TERMINAL_STATES } from "@/lib/fold/task-state";
import type { Db } from "../db/client";
import type { Approval, Event as EventRow, Run, Task, Thread } from "../db/generated/client";
import { eventColumns, fromRow } from "./codec";
import { isForkCopy } from "@/lib/conversation";
import { dataText, saidText } from "@/lib/search/event-text";
import { THREAD_CREATED, unreadSql } from "@/lib/unread";
import type { SearchKind } from "@/lib/search/query";

export type { Approval as ApprovalRow, Run as RunRow, Task as TaskRow, Thread as ThreadRow };

/** What a search asks for (docs/channels.md, Search; the box's operators are lib/search/query.ts). */
export interface SearchFilter {
  /** Web-search syntax: words, "a phrase", -not, or. Empty: every event the other filters allow, newest first. */
  q: string;
  /** The channels to search (those the principal may read), or "all". */
  thread_ids: string[] | "all";
  /** Only these kinds (`is:`), any of them. */
  kinds?: SearchKind[];
  /** Only this event type (the search page's Kind filter). */
  type?: string;
  /** The senders' ids (`agent:pm-1`, `user:<id>`), any of them. */
  from?: string[];
  /** Only events at or after / before these times. */
  after?: Date;
  before?: Date;
  limit: number;
}

/** A search hit: the event, where it ranks, an excerpt, and the forks that hold a copy of it. */
export interface SearchRow {
  event: StoredEvent;
  /** PostgreSQL's ts_rank of the match (0 for a search by operators alone): higher is better, within a tier. */
  rank: number;
  /**
   * 0: the event says the words itself (a message, a result, an error, a person's request);
   * 1: a wrapper that says them itself (an approval's summary, an orchestrator's request);
   * 2: the words are only in its data or in text it quotes (a review request's input, an
   * approval's preview, a tool's result). Hits come tier first, then rank.
   */
  tier: number;
  /** Plain text (no markdown) with the matched words between « and ». */
  snippet: string;
  /** The runs forked from the event's run that hold a copy of it (`meta.forked_from`), shown once. */
  also_in: { run_id: string }[];
  /**
   * For a message its author edited: when the text that matched (the current one) was written,
   * and the seq of that chat.edit. `event` is the message as first sent; `snippet` is cut from
   * the current text (docs/channels.md "Search").
   */
  edited?: { at: string; seq: number };
}

/** The SQL condition of each `is:` kind (fixed text, no input in it). */
const KIND_SQL: Record<SearchKind, string> = {
  result: "e.type = 'task.result'",
  message: "e.type = 'chat.message'",
  question: "(e.type = 'chat.message' AND (e.payload->>'expects_reply' = 'true' OR e.payload->>'inquiry' = 'true'))",
  request: "e.type = 'task.request'",
  error: "e.type = 'task.error'",
  approval: "e.type = 'approval.requested'",
  tool: "e.type = 'tool.result'",
};

/** Events that relay what others said: approval requests and the orchestrator's requests (reviews, hand-offs). */
const WRAPPER_SQL = `(e.type = 'approval.requested' OR (e.type = 'task.request' AND (e.from_agent_id = 'agent:orchestrator' OR e.rest->'from'->>'role' = 'orchestrator')))`;

/** The message action types (docs/protocol.md "Message actions"), as SQL (fixed text, the partial index's list). */
const ACTION_TYPES_SQL = `('chat.reaction', 'chat.edit', 'chat.delete', 'chat.pin')`;

/**
 * True when the matched event `h` is not what message `e` says now (docs/channels.md "Search"): `e`
 * was deleted, or its author edited it after `h` (the message itself or an older edit). For `h`
 * anything but a message or an edit, `e` is `h` and this is false. Uses events_message_actions_idx.
 */
const SUPERSEDED_SQL = `(e.type = 'chat.message' AND EXISTS (
       SELECT 1 FROM events a
        WHERE a.payload->>'message_id' = e.id AND a.run_id = e.run_id AND a.type IN ('chat.edit', 'chat.delete')
          AND (a.type = 'chat.delete' OR (a.from_agent_id = e.from_agent_id AND a.seq > h.seq))))`;

const HEADLINE_OPTIONS = `StartSel=«, StopSel=», MaxWords=32, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;

/** The seq of the event a fork's copy was copied from (`meta.forked_from.seq`), or null. */
function copiedFrom(ev: StoredEvent): number | null {
  const f = ev.meta?.forked_from as { seq?: unknown } | undefined;
  return isForkCopy(ev) && typeof f?.seq === "number" ? f.seq : null;
}

/**
 * Who asked for a run (`r`, a `runs` row in scope), as lib/fold/run-requester.ts `requestStarter`
 * reads its first root task.request: `meta.requested_by`, else a person who sent it, else the
 * opener it names (`input.from`, the person whose message the orchestrator turned into a run),
 * else that root task's requester. NULL for a run with no root task.
 */
const RUN_REQUESTER = `(SELECT coalesce(req.opener, t.requester)
     FROM tasks t
     LEFT JOIN LATERAL (SELECT coalesce(e.rest->'meta'->>'requested_by',
                                        CASE WHEN e.from_agent_id LIKE 'user:%' THEN e.from_agent_id END,
                                        e.payload->'input'->'from'->>'agent_id') AS opener FROM events e
                         WHERE e.task_id = t.id AND e.run_id = t.run_id AND e.type = 'task.request' ORDER BY e.seq LIMIT 1) req ON true
    WHERE t.run_id = r.id AND t.parent_task_id IS NULL
    ORDER BY t.created_at, t.id LIMIT 1)`;

/**
 * True when a run (`r`) waits on a person (lib/fold/run-status.ts, docs/channels.md "Run
 * states"): it is running and has an approval without a decision, or an unfinished task with a
 * question to people (`user`, everyone in the channel, or one `user:<id>`) without an answer.
 * `terminal` is the parameter that holds the terminal task states (a text[]).
 */
const runWaits = (terminal: string) => `(r.state = 'running' AND (
       EXISTS (SELECT 1 FROM approvals a WHERE a.run_id = r.id AND a.state = 'pending')
    OR EXISTS (SELECT 1 FROM tasks t, jsonb_array_elements(t.open_questions) q
                WHERE t.run_id = r.id AND t.state <> ALL(${terminal}::text[])
                  AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(q->'to') w(who) WHERE w.who = 'user' OR w.who LIKE 'user:%'))))`;

/** What the runs list asks for (`GET /api/runs`, docs/channels.md "Runs"). */
export interface RunListFilter {
  /** The channels to list (those the principal may read), or "all". */
  thread_ids: string[] | "all";
  /** running: not waiting on anyone; waiting: on a person; active: either (in progress); ended: every root task ended. */
  status?: "running" | "waiting" | "active" | "ended";
  /** Only runs with a task assigned to this agent (`agent:pm-1`). */
  agent?: string;
  /** Only runs this person (or agent) asked for (`user:<id>`). */
  requester?: string;
  /** Only runs older than this cursor: (started_at, run id) of the last run of the page before. */
  before?: { started_at: Date; run_id: string };
  limit: number;
}

/** What a run list shows beside a run's summary: its number in its channel, who asked, which agents worked on it, how many of its tasks succeeded. */
export interface RunFacts {
  /** 1, 2, 3…: the run's ordinal in its channel, by when it appeared in this store (created_at, then id). */
  run_number: number;
  requester: string | null;
  /** Agents with a task of the run, by id. */
  agents: string[];
  /** Its tasks that succeeded (a run's progress, lib/fold/run-status.ts `progressOf`). */
  task_succeeded: number;
}

/** A direct message's newest message from the other party, and how many of theirs the reader has not read (`Queries.directMessagesTo`). */
export interface DirectMessageActivity {
  event: StoredEventOf<"chat.message">;
  unread: number;
}

/** Which approvals a list shows: pending ones, decided ones, or all. */
export type ApprovalFilter = "pending" | "decided" | "all";

/** SQL: the chat.message in row `alias` of `events` has no delete tombstone (docs/protocol.md "Message actions"). */
function notDeleted(alias: string): string {
  return `NOT EXISTS (SELECT 1 FROM events d WHERE d.payload->>'message_id' = ${alias}.id AND d.run_id = ${alias}.run_id AND d.type = 'chat.delete')`;
}

/** The chat messages among `rows` (the inbox's message queries select nothing else). */
function chatMessages(rows: EventRow[]): StoredEventOf<"chat.message">[] {
  return rows.map(fromRow).filter((e): e is StoredEventOf<"chat.message"> => isEvent(e, "chat.message"));
}

export class Queries {
  constructor(private readonly db: Db) {}

  // Events

  /** The first task.request of a task (a routed request is in the log twice: this is the one to the router), or null. */
  async firstRequest(run_id: string, task_id: string): Promise<StoredEventOf<"task.request"> | null> {
    const row = await this.db.event.findFirst({ where: { run_id, task_id, type: "task.request" }, orderBy: { seq: "asc" } });
    const ev = row ? fromRow(row) : null;
    return ev && isEvent(ev, "task.request") ? ev : null;
  }

  /** Every task.request of a task, oldest first: to the router, routed, rerouted, retried. */
  async requests(run_id: string, task_id: string): Promise<StoredEventOf<"task.request">[]> {
    const rows = await this.db.event.findMany({ where: { run_id, task_id, type: "task.request" }, orderBy: { seq: "asc" } });
    return rows.map(fromRow).filter((ev): ev is StoredEventOf<"task.request"> => isEvent(ev, "task.request"));
  }

  /** The newest task.request of a task (its current attempt; for a routed task, the one to its agent), or null. */
  async latestRequest(run_id: string, task_id: string): Promise<StoredEventOf<"task.request"> | null> {
    const row = await this.db.event.findFirst({ where: { run_id, task_id, type: "task.request" }, orderBy: { seq: "desc" } });
    const ev = row ? fromRow(row) : null;
    return ev && isEvent(ev, "task.request") ? ev : null;
  }

  /**
   * The run's root-level task.requests (no parent task), oldest first, at most `limit`: what
   * lib/fold/run-requester.ts reads to say who started the run.
   */
  async rootRequests(run_id: string, limit = 20): Promise<StoredEventOf<"task.request">[]> {
    const rows = await this.db.event.findMany({ where: { run_id, type: "task.request", parent_task_id: null }, orderBy: { seq: "asc" }, take: limit });
    return rows.map(fromRow).filter((ev): ev is StoredEventOf<"task.request"> => isEvent(ev, "task.request"));
  }

  /**
   * The people whose requests led to run `run_id`'s work (docs/identity.md "Approvals need the
   * right person"), for `forbid_self_approval`: of every task.request in the run, the person who
   * sent it or is named as asking (`meta.requested_by`, the chat message's person in
   * `payload.input.from`), who forked or imported the run (`meta.forked_from.by`,
   * `meta.imported.by`), and, for a request an agent sent with an API key, the people who made
   * that agent's keys. `user:<id>` ids, sorted; one statement on the (run_id, seq) index.
   */
  async requestersOfRun(run_id: string): Promise<string[]> {
    const rows = await this.db.$queryRawUnsafe<{ who: string }[]>(
      `WITH starters AS (
         SELECT DISTINCT v.who
           FROM events e
          CROSS JOIN LATERAL (VALUES (e.from_agent_id), (e.rest->'meta'->>'requested_by'), (e.payload->'input'->'from'->>'agent_id'),
                                     (e.rest->'meta'->'forked_from'->>'by'), (e.rest->'meta'->'imported'->>'by')) AS v(who)
          WHERE e.run_id = $1 AND e.type = 'task.request' AND v.who IS NOT NULL
       )
       SELECT who FROM starters WHERE who LIKE 'user:%'
       UNION
       SELECT k.created_by FROM api_keys k JOIN starters s ON k.owner = s.who
        WHERE s.who LIKE 'agent:%' AND k.created_by LIKE 'user:%'
       ORDER BY 1`,
      run_id,
    );
    return rows.map((r) => r.who);
  }

  /** The event with this seq, or null. */
  async eventAtSeq(seq: number): Promise<StoredEvent | null> {
    const row = await this.db.event.findUnique({ where: { seq: BigInt(seq) } });
    return row ? fromRow(row) : null;
  }

  /** The events with these seqs, by seq (unknown seqs are left out). */
  async eventsAtSeqs(seqs: number[]): Promise<Map<number, StoredEvent>> {
    if (!seqs.length) return new Map();
    const rows = await this.db.event.findMany({ where: { seq: { in: seqs.map((s) => BigInt(s)) } } });
    return new Map(rows.map((r) => [Number(r.seq), fromRow(r)]));
  }

  /** The event `id` of a thread, or null. */
  async eventInThread(thread_id: string, id: string): Promise<StoredEvent | null> {
    const row = await this.db.event.findFirst({ where: { thread_id, id } });
    return row ? fromRow(row) : null;
  }

  /** The first reply in run `run_id` to its message `id` (`payload.reply_to`), or null. */
  async answerTo(run_id: string, id: string): Promise<StoredEvent | null> {
    const [row] = await this.db.$queryRawUnsafe<EventRow[]>(
      `SELECT ${eventColumns()} FROM events WHERE run_id = $1 AND type = 'chat.message' AND payload->>'reply_to' = $2 ORDER BY seq LIMIT 1`,
      run_id,
      id,
    );
    return row ? fromRow(row) : null;
  }

  /**
   * Message `message_id` of thread `thread_id` and the actions on it (docs/protocol.md "Message
   * actions"), in seq order: the event with that id first (the earliest, when a fork's copy
   * shares its id; any type: the caller checks it is a chat.message), then every chat.reaction,
   * chat.edit, chat.delete and chat.pin naming it in its run. Empty when the thread has no event
   * of that id. One statement on events_message_actions_idx.
   */
  async messageWithActions(thread_id: string, message_id: string): Promise<StoredEvent[]> {
    const rows = await this.db.$queryRawUnsafe<EventRow[]>(
      `WITH m AS (SELECT ${eventColumns()} FROM events WHERE thread_id = $1 AND id = $2 ORDER BY seq LIMIT 1)
       SELECT ${eventColumns("m")} FROM m
       UNION ALL
       SELECT ${eventColumns("a")} FROM m JOIN events a ON a.payload->>'message_id' = m.id AND a.run_id = m.run_id AND a.seq > m.seq
        WHERE a.type IN ${ACTION_TYPES_SQL}
       ORDER BY seq`,
      thread_id,
      message_id,
    );
    return rows.map(fromRow);
  }

  /**
   * What a channel's pins are folded from (`GET /api/threads/:id/pins`): the chat.messages of
   * thread `thread_id` whose newest chat.pin pins them, and every action on each of them, in seq
   * order (lib/fold/message-actions.ts gives each one's state and drops the deleted ones). A
   * fork's or an import's copies (`meta.forked_from`, `meta.imported`) are not the channel's pins.
   * One statement: the pins on events_pins_idx, their messages' actions on events_message_actions_idx.
   */
  async pinnedInThread(thread_id: string): Promise<StoredEvent[]> {
    const rows = await this.db.$queryRawUnsafe<EventRow[]>(
      `WITH last_pin AS (
         SELECT DISTINCT ON (run_id, payload->>'message_id') run_id, payload->>'message_id' AS message_id, payload->>'pinned' = 'true' AS pinned
           FROM events WHERE thread_id = $1 AND type = 'chat.pin'
            AND NOT coalesce(rest->'meta' ? 'forked_from', false) AND NOT coalesce(rest->'meta' ? 'imported', false)
          ORDER BY run_id, payload->>'message_id', seq DESC
       ), pinned AS (SELECT run_id, message_id FROM last_pin WHERE pinned)
       SELECT ${eventColumns("m")} FROM pinned p JOIN events m ON m.run_id = p.run_id AND m.id = p.message_id
        WHERE m.type = 'chat.message' AND m.thread_id = $1
          AND NOT coalesce(m.rest->'meta' ? 'forked_from', false) AND NOT coalesce(m.rest->'meta' ? 'imported', false)
       UNION ALL
       SELECT ${eventColumns("a")} FROM pinned p JOIN events a ON a.payload->>'message_id' = p.message_id AND a.run_id = p.run_id
        WHERE a.type IN ${ACTION_TYPES_SQL}
       ORDER BY seq`,
      thread_id,
    );
    return rows.map(fromRow);
  }

  /** The event `id` of a run, or null (ids are unique within a run, Clutch Protocol §5.2). */
  async eventInRun(run_id: string, id: string): Promise<StoredEvent | null> {
    const row = await this.db.event.findFirst({ where: { run_id, id } });
    return row ? fromRow(row) : null;
  }

  /** The events named by `(run_id, id)` pairs, keyed `run_id/id` (unknown pairs are left out). */
  async eventsInRuns(pairs: { run_id: string; id: string }[]): Promise<Map<string, StoredEvent>> {
    if (!pairs.length) return new Map();
    const rows = await this.db.$queryRawUnsafe<EventRow[]>(
      `SELECT ${eventColumns("e")} FROM unnest($1::text[], $2::text[]) AS k(run_id, id) JOIN events e ON e.run_id = k.run_id AND e.id = k.id`,
      pairs.map((p) => p.run_id),
      pairs.map((p) => p.id),
    );
    return new Map(rows.map((r) => [`${r.run_id}/${r.id}`, fromRow(r)]));
  }

  /** The newest task.result of each of these tasks, by task_id. */
  async lastResults(task_ids: string[]): Promise<Map<string, StoredEventOf<"task.result">>> {
    if (!task_ids.length) return new Map();
    const rows = await this.db.$queryRawUnsafe<EventRow[]>(
      `SELECT DISTINCT ON (task_id) ${eventColumns()} FROM events WHERE task_id = ANY($1::text[]) AND type = 'task.result' ORDER BY task_id, seq DESC`,
      task_ids,
    );
    const out = new Map<string, StoredEventOf<"task.result">>();
    for (const row of rows) {
      const ev = fromRow(row);
      if (isEvent(ev, "task.result")) out.set(ev.task_id, ev);
    }
    return out;
  }

  /**
   * Full-text search over the `search` vector of events (migrations event_search and
   * event_search_said, docs/channels.md "Search"): matches of `filter.q`, tier first (what an
   * event says itself before what it only quotes, see SearchRow.tier), then ts_rank, then
   * newest; at most `filter.limit` hits. A fork's copies of an event are one hit: the original
   * when it matches (else the best copy), with the other runs in `also_in`. The excerpt is cut
   * from the event's text as a person reads it (lib/search/event-text.ts: markdown rendered),
   * else from its data. A query with no word in it (only punctuation) matches nothing; an
   * empty `q` lists what the other filters allow, newest first.
   */
  async search(filter: SearchFilter): Promise<SearchRow[]> {
    if (filter.thread_ids !== "all" && !filter.thread_ids.length) return [];
    const words = filter.q.trim();
    const kinds = filter.kinds?.length ? `AND (${filter.kinds.map((k) => KIND_SQL[k]).join(" OR ")})` : "";
    // Copies of one event count once: fetch enough to fill the page after folding them.
    const fetch = filter.limit * 3 + 10;
    // `h` is the event that matched, `e` what the hit shows: the same event, or for an edit
    // (chat.edit) the message it edits, found by its current text only.
    const rows = await this.db.$queryRawUnsafe<(EventRow & { rank: number; tier: number; edit_text: string | null; edit_seq: bigint | null; edit_ts: Date | null })[]>(
      `WITH q AS (SELECT websearch_to_tsquery('simple', $1) AS query)
       SELECT ${eventColumns("e")},
              CASE WHEN $1 = '' THEN 0 ELSE ts_rank(h.search, q.query) END::float8 AS rank,
              CASE WHEN $1 = '' THEN 0
                   WHEN ts_filter(h.search, '{a}') @@ q.query THEN CASE WHEN ${WRAPPER_SQL} THEN 1 ELSE 0 END
                   ELSE 2 END AS tier,
              CASE WHEN h.type = 'chat.edit' THEN h.payload->>'text' END AS edit_text,
              CASE WHEN h.type = 'chat.edit' THEN h.seq END AS edit_seq,
              CASE WHEN h.type = 'chat.edit' THEN h.ts END AS edit_ts
         FROM events h
         CROSS JOIN q
         JOIN LATERAL (
           SELECT ${eventColumns("m")} FROM events m
            WHERE h.type = 'chat.edit' AND m.run_id = h.run_id AND m.id = h.payload->>'message_id' AND m.type = 'chat.message'
              AND m.from_agent_id = h.from_agent_id
           UNION ALL
           SELECT ${eventColumns("h")} WHERE h.type <> 'chat.edit'
         ) e ON true
        WHERE h.search IS NOT NULL AND ($1 = '' OR h.search @@ q.query)
          AND NOT ${SUPERSEDED_SQL}
          AND ($2::text[] IS NULL OR e.thread_id = ANY($2::text[]))
          AND ($3::text IS NULL OR e.type = $3)
          AND ($4::text[] IS NULL OR e.from_agent_id = ANY($4::text[]))
          AND ($5::timestamptz IS NULL OR e.ts >= $5)
          AND ($6::timestamptz IS NULL OR e.ts < $6)
          ${kinds}
        ORDER BY tier, rank DESC, e.seq DESC
        LIMIT $7`,
      words,
      filter.thread_ids === "all" ? null : filter.thread_ids,
      filter.type ?? null,
      filter.from?.length ? filter.from : null,
      filter.after ?? null,
      filter.before ?? null,
      fetch,
    );
    const ranked = rows.map((r) => ({
      event: fromRow(r),
      rank: Number(r.rank),
      tier: Number(r.tier),
      ...(r.edit_text !== null && r.edit_seq !== null && r.edit_ts ? { edited: { text: r.edit_text, seq: Number(r.edit_seq), at: r.edit_ts.toISOString() } } : {}),
    }));

    // One hit per original event: a copy's key is the event it was copied from (followed
    // through a fork of a fork while that copy is among the rows).
    const bySeq = new Map(ranked.map((h) => [h.event.seq, h]));
    const origin = (h: (typeof ranked)[number]): number => {
      let at = h;
      for (let i = 0; i < 10; i++) {
        const from = copiedFrom(at.event);
        if (from === null) return at.event.seq;
        const next = bySeq.get(from);
        if (!next) return from;
        at = next;
      }
      return at.event.seq;
    };
    const groups = new Map<number, (typeof ranked)[number][]>();
    for (const h of ranked) {
      const key = origin(h);
      const g = groups.get(key);
      if (g) g.push(h);
      else groups.set(key, [h]);
    }
    const hits = [...groups.values()].slice(0, filter.limit).map((g) => {
      const main = g.find((h) => !isForkCopy(h.event)) ?? g[0]!;
      const also_in = [...new Set(g.filter((h) => h !== main && h.event.run_id !== main.event.run_id).map((h) => h.event.run_id))].map((run_id) => ({ run_id }));
      return { ...main, rank: Math.max(...g.map((h) => h.rank)), tier: Math.min(...g.map((h) => h.tier)), also_in };
    });
    if (!hits.length) return [];

    // Excerpts: PostgreSQL marks the matched words (as it matched them) in the plain text.
    // An edited message's excerpt is cut from its current text.
    const said = hits.map((h) => saidText(h.edited ? { type: "chat.message", payload: { text: h.edited.text } } : h.event));
    const data = hits.map((h) => dataText(h.edited ? { text: h.edited.text } : h.event.payload));
    const marked = await this.db.$queryRawUnsafe<{ i: number; said: string; data: string }[]>(
      `WITH q AS (SELECT websearch_to_tsquery('simple', $1) AS query)
       SELECT t.i::int AS i,
              CASE WHEN $1 = '' THEN left(t.said, 240) ELSE ts_headline('simple', t.said, q.query, '${HEADLINE_OPTIONS}') END AS said,
              CASE WHEN $1 = '' THEN left(t.data, 240) ELSE ts_headline('simple', t.data, q.query, '${HEADLINE_OPTIONS}') END AS data
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(said, data, i), q`,
      words,
      said,
      data,
    );
    const byIndex = new Map(marked.map((m) => [Number(m.i) - 1, m]));
    return hits.map((h, i) => {
      const m = byIndex.get(i);
      const snippet = m ? (m.said.includes("«") || (!m.data.includes("«") && said[i]) ? m.said : m.data) : said[i] || data[i]!;
      const { edited, ...hit } = h;
      return { ...hit, snippet, ...(edited ? { edited: { at: edited.at, seq: edited.seq } } : {}) };
    });
  }

  /** True when some event was sent by `agent_id` (one indexed lookup). */
  async hasSender(agent_id: string): Promise<boolean> {
    return (await this.db.event.findFirst({ where: { from_agent_id: agent_id }, select: { seq: true } })) !== null;
  }

  /** The event stored with `idempotency_key`, or null (§5.2). */
  async eventByIdempotencyKey(idempotency_key: string): Promise<StoredEvent | null> {
    const row = await this.db.event.findUnique({ where: { idempotency_key } });
    return row ? fromRow(row) : null;
  }

  /** The newest `limit` chat messages of a run, oldest first. */
  async recentChatMessages(run_id: string, limit: number): Promise<StoredEventOf<"chat.message">[]> {
    const rows = await this.db.event.findMany({ where: { run_id, type: "chat.message" }, orderBy: { seq: "desc" }, take: limit });
    return rows.reverse().map(fromRow).filter((ev) => isEvent(ev, "chat.message"));
  }

  /** Every overseer's verdict (task.result with payload_type review.feedback.v1, §3.3) in the threads, in seq order. */
  async reviewResults(thread_ids: string[]): Promise<StoredEventOf<"task.result">[]> {
    const rows = await this.db.event.findMany({
      where: { thread_id: { in: thread_ids }, type: "task.result", rest: { path: ["payload_type"], equals: "review.feedback.v1" } },
      orderBy: { seq: "asc" },
    });
    return rows.map(fromRow).filter((ev) => isEvent(ev, "task.result"));
  }

  /** The card the agent announced last (its newest agent.register or agent.update, §2.4), or undefined. */
  async lastAgentCard(agent_id: string): Promise<AgentCard | undefined> {
    const row = await this.db.event.findFirst({
      where: { from_agent_id: agent_id, type: { in: ["agent.register", "agent.update"] } },
      orderBy: { seq: "desc" },
    });
    const ev = row ? fromRow(row) : null;
    return ev && isEvent(ev, "agent.register", "agent.update") ? ev.payload.card : undefined;
  }

  /** Each agent's newest agent.register or agent.update (§2.4), in one indexed query. */
  async latestCards(): Promise<StoredEventOf<"agent.register" | "agent.update">[]> {
    const rows = await this.db.$queryRawUnsafe<EventRow[]>(
      `SELECT DISTINCT ON (from_agent_id) ${eventColumns()} FROM events
        WHERE type IN ('agent.register', 'agent.update') ORDER BY from_agent_id, seq DESC`,
    );
    return rows.map(fromRow).filter((ev) => isEvent(ev, "agent.register", "agent.update"));
  }

  /** The agent's newest agent.heartbeat (§2.4), or null; one indexed lookup however many the log holds. */
  async lastHeartbeat(agent_id: string): Promise<StoredEventOf<"agent.heartbeat"> | null> {
    const [row] = await this.db.$queryRawUnsafe<EventRow[]>(
      `SELECT ${eventColumns()} FROM events WHERE type = 'agent.heartbeat' AND from_agent_id = $1 ORDER BY seq DESC LIMIT 1`,
      agent_id,
    );
    const ev = row ? fromRow(row) : null;
    return ev && isEvent(ev, "agent.heartbeat") ? ev : null;
  }

  /** The seq of each run's first event (runs with no event are left out). */
  async firstSeqs(run_ids: string[]): Promise<Map<string, number>> {
    const firsts = await this.db.event.groupBy({ by: ["run_id"], where: { run_id: { in: run_ids } }, _min: { seq: true } });
    return new Map(firsts.map((f) => [f.run_id, Number(f._min.seq ?? 0n)]));
  }

  // Threads

  /** The thread named `name` (a channel or a system thread), or null. */
  threadByName(name: string): Promise<Thread | null> {
    return this.db.thread.findUnique({ where: { name } });
  }

  /** Thread names by id, system threads included. */
  async threadNames(ids: string[]): Promise<Map<string, string>> {
    const rows = await this.db.thread.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, name: true } });
    return new Map(rows.map((t) => [t.id, t.name]));
  }

  /** The deployment a direct message was opened on (`threads.deployment`); null for a channel, or a DM any deployment answers in. */
  async threadDeployment(id: string): Promise<string | null> {
    return (await this.db.thread.findUnique({ where: { id }, select: { deployment: true } }))?.deployment ?? null;
  }

  /** Which of `ids` are direct messages (threads with `dm_between`). */
  async dmThreads(ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db.thread.findMany({ where: { id: { in: [...new Set(ids)] }, NOT: { dm_between: { isEmpty: true } } }, select: { id: true } });
    return new Set(rows.map((t) => t.id));
  }

  // Tasks

  /** One task, or null. */
  task(id: string): Promise<Task | null> {
    return this.db.task.findUnique({ where: { id } });
  }

  /** The tasks with these ids (in no particular order; unknown ids are left out). */
  tasks(ids: string[]): Promise<Task[]> {
    return this.db.task.findMany({ where: { id: { in: ids } } });
  }

  /** The tasks of a run, oldest first. */
  tasksOfRun(run_id: string): Promise<Task[]> {
    return this.db.task.findMany({ where: { run_id }, orderBy: [{ created_at: "asc" }, { id: "asc" }] });
  }

  /** The root tasks (no parent) of the runs, oldest first. */
  rootTasks(run_ids: string[]): Promise<Task[]> {
    return this.db.task.findMany({ where: { run_id: { in: run_ids }, parent_task_id: null }, orderBy: [{ created_at: "asc" }, { id: "asc" }] });
  }

  /** The unfinished tasks of the runs, oldest first. */
  openTasksOfRuns(run_ids: string[]): Promise<Task[]> {
    if (!run_ids.length) return Promise.resolve([]);
    return this.db.task.findMany({
      where: { run_id: { in: run_ids }, state: { notIn: [...TERMINAL_STATES] } },
      orderBy: [{ created_at: "asc" }, { id: "asc" }],
    });
  }

  /** Every task that has not ended, in any channel, oldest first (the deadline sweep; a partial index). */
  unfinishedTasks(): Promise<Task[]> {
    return this.db.task.findMany({ where: { ended_at: null, imported: false }, orderBy: [{ created_at: "asc" }, { id: "asc" }] });
  }

  /** The unfinished tasks of the threads, oldest first. */
  openTasks(thread_ids: string[]): Promise<Task[]> {
    return this.db.task.findMany({
      where: { thread_id: { in: thread_ids }, state: { notIn: [...TERMINAL_STATES] }, imported: false },
      orderBy: [{ created_at: "asc" }, { id: "asc" }],
    });
  }

  /**
   * How many tasks each agent has per live state (pending, running, waiting_input): of the
   * given agents, or of every agent with tasks when `agent_ids` is omitted.
   */
  async liveTaskCounts(agent_ids?: string[]): Promise<{ assignee: string; state: string; count: number }[]> {
    const counts = await this.db.task.groupBy({
      by: ["assignee", "state"],
      where: { state: { in: ["pending", "running", "waiting_input"] }, imported: false, ...(agent_ids ? { assignee: { in: agent_ids } } : { assignee: { not: null } }) },
      _count: true,
    });
    return counts.map((c) => ({ assignee: c.assignee!, state: c.state, count: c._count }));
  }

  /**
   * Of each agent's last `recent` ended tasks (succeeded, failed or timed out; cancelled ones
   * left out): how many, and how many succeeded. Of the given agents, or of every agent.
   */
  recentOutcomes(recent: number, agent_ids?: string[]): Promise<{ assignee: string; ended: number; succeeded: number }[]> {
    return this.db.$queryRawUnsafe<{ assignee: string; ended: number; succeeded: number }[]>(
      `SELECT assignee, count(*)::int AS ended, count(*) FILTER (WHERE state = 'succeeded')::int AS succeeded
         FROM (SELECT assignee, state, row_number() OVER (PARTITION BY assignee ORDER BY ended_at DESC) AS n
                 FROM tasks
                WHERE state IN ('succeeded', 'failed', 'timed_out') AND assignee IS NOT NULL AND NOT imported
                  ${agent_ids ? "AND assignee = ANY($1::text[])" : ""}) t
        WHERE n <= ${recent}
        GROUP BY assignee`,
      ...(agent_ids ? [agent_ids] : []),
    );
  }

  /**
   * The newest `limit` tasks of each agent, by agent, newest first (`updated_at`, then id).
   * `scope.thread_ids`: only tasks of these channels (what a reader may read, server/auth/access.ts);
   * `scope.per_thread`: the newest `limit` of each agent in each channel instead, so that any
   * reader's newest `limit` can be cut from the rows without another query
   * (server/router/directory.ts). One statement either way.
   */
  newestTasks(
    agent_ids: string[],
    limit: number,
    scope: { thread_ids?: readonly string[]; per_thread?: boolean } = {},
  ): Promise<(Pick<Task, "id" | "run_id" | "thread_id" | "title" | "state" | "updated_at"> & { assignee: string })[]> {
    if (scope.thread_ids && !scope.thread_ids.length) return Promise.resolve([]);
    return this.db.$queryRawUnsafe(
      `SELECT id, run_id, thread_id, title, state, updated_at, assignee
         FROM (SELECT *, row_number() OVER (PARTITION BY assignee${scope.per_thread ? ", thread_id" : ""} ORDER BY updated_at DESC, id DESC) AS n
                 FROM tasks WHERE assignee = ANY($1::text[]) AND NOT imported${scope.thread_ids ? " AND thread_id = ANY($3::text[])" : ""}) t
        WHERE n <= $2
        ORDER BY assignee, updated_at DESC, id DESC`,
      agent_ids,
      limit,
      ...(scope.thread_ids ? [[...scope.thread_ids]] : []),
    );
  }

  // Runs

  /** One run, or null (a run appears with its first task). */
  run(id: string): Promise<Run | null> {
    return this.db.run.findUnique({ where: { id } });
  }

  /** The newest `limit` runs of a thread, newest first. */
  runsOfThread(thread_id: string, limit: number): Promise<Run[]> {
    return this.db.run.findMany({ where: { thread_id }, orderBy: { started_at: "desc" }, take: limit });
  }

  /**
   * The runs of `filter.thread_ids` that pass the filters, newest first (started_at, then id,
   * descending), at most `filter.limit`: one statement, every filter in SQL.
   */
  runList(filter: RunListFilter): Promise<Run[]> {
    if (filter.thread_ids !== "all" && !filter.thread_ids.length) return Promise.resolve([]);
    return this.db.$queryRawUnsafe<Run[]>(
      `SELECT r.* FROM runs r
        WHERE ($1::text[] IS NULL OR r.thread_id = ANY($1::text[]))
          AND ($2::timestamptz IS NULL OR (r.started_at, r.id) < ($2::timestamptz, $3::text))
          AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM tasks t WHERE t.run_id = r.id AND t.assignee = $4))
          AND ($5::text IS NULL OR ${RUN_REQUESTER} = $5)
          AND (CASE $6::text
                 WHEN 'ended' THEN r.state <> 'running'
                 WHEN 'active' THEN r.state = 'running'
                 WHEN 'waiting' THEN ${runWaits("$8")}
                 WHEN 'running' THEN r.state = 'running' AND NOT ${runWaits("$8")}
                 ELSE true END)
        ORDER BY r.started_at DESC, r.id DESC
        LIMIT $7`,
      filter.thread_ids === "all" ? null : filter.thread_ids,
      filter.before?.started_at ?? null,
      filter.before?.run_id ?? null,
      filter.agent ?? null,
      filter.requester ?? null,
      filter.status ?? null,
      filter.limit,
      [...TERMINAL_STATES],
    );
  }

  /** Each run's number in its channel, who asked for it, its agents and its tasks that succeeded (RunFacts), by run id; unknown ids are left out. */
  async runFacts(run_ids: string[]): Promise<Map<string, RunFacts>> {
    if (!run_ids.length) return new Map();
    const rows = await this.db.$queryRawUnsafe<{ id: string; run_number: number; requester: string | null; agents: string[]; task_succeeded: number }[]>(
      `SELECT r.id,
              (SELECT count(*) FROM runs n WHERE n.thread_id = r.thread_id AND (n.created_at, n.id) <= (r.created_at, r.id))::int AS run_number,
              ${RUN_REQUESTER} AS requester,
              coalesce((SELECT array_agg(DISTINCT t.assignee ORDER BY t.assignee) FROM tasks t
                         WHERE t.run_id = r.id AND t.assignee LIKE 'agent:%'), '{}') AS agents,
              (SELECT count(*) FROM tasks t WHERE t.run_id = r.id AND t.state = 'succeeded')::int AS task_succeeded
         FROM runs r WHERE r.id = ANY($1::text[])`,
      [...new Set(run_ids)],
    );
    return new Map(rows.map((r) => [r.id, { run_number: Number(r.run_number), requester: r.requester, agents: r.agents, task_succeeded: Number(r.task_succeeded) }]));
  }

  /**
   * What an append's authorizer checks (server/auth/authorize-append.ts), in one statement: the
   * channel of each known run of `run_ids`, and the channel, run, assignee and requester of each
   * known task of `task_ids`, with the seq of the last event folded into the task (`last_seq`).
   */
  async appendScopes(run_ids: readonly string[], task_ids: readonly string[]): Promise<{ runs: Map<string, string>; tasks: Map<string, { thread_id: string; run_id: string; assignee: string | null; requester: string | null; last_seq: number }> }> {
    const rows = await this.db.$queryRawUnsafe<{ kind: "run" | "task"; id: string; thread_id: string; run_id: string | null; assignee: string | null; requester: string | null; last_seq: bigint | null }[]>(
      `SELECT 'run' AS kind, id, thread_id, NULL::text AS run_id, NULL::text AS assignee, NULL::text AS requester, NULL::bigint AS last_seq FROM runs WHERE id = ANY($1::text[])
       UNION ALL
       SELECT 'task', id, thread_id, run_id, assignee, requester, last_seq FROM tasks WHERE id = ANY($2::text[])`,
      [...new Set(run_ids)],
      [...new Set(task_ids)],
    );
    const runs = new Map<string, string>();
    const tasks = new Map<string, { thread_id: string; run_id: string; assignee: string | null; requester: string | null; last_seq: number }>();
    for (const r of rows) {
      if (r.kind === "run") runs.set(r.id, r.thread_id);
      else tasks.set(r.id, { thread_id: r.thread_id, run_id: r.run_id!, assignee: r.assignee, requester: r.requester, last_seq: Number(r.last_seq) });
    }
    return { runs, tasks };
  }

  /** The runs with these ids (unknown ids are left out). */
  runs(ids: string[]): Promise<Run[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db.run.findMany({ where: { id: { in: [...new Set(ids)] } } });
  }

  /** The forks of a run, oldest first. */
  forksOf(run_id: string): Promise<Run[]> {
    return this.db.run.findMany({ where: { forked_from_run_id: run_id }, orderBy: { created_at: "asc" } });
  }

  // Approvals

  /** One approval, or null. */
  approval(id: string): Promise<Approval | null> {
    return this.db.approval.findUnique({ where: { id } });
  }

  /** The approval a gate asked for (`gate_key`: the dispatch or call it guards), or null. */
  approvalByGate(gate_key: string): Promise<Approval | null> {
    return this.db.approval.findUnique({ where: { gate_key } });
  }

  /** The pending approval that holds a task's dispatch, or null. */
  pendingDispatchApproval(task_id: string): Promise<Approval | null> {
    return this.db.approval.findFirst({ where: { task_id, kind: "dispatch", state: "pending" } });
  }

  /** The pending approvals of the runs, oldest first. */
  pendingApprovalsOfRuns(run_ids: string[]): Promise<Approval[]> {
    if (!run_ids.length) return Promise.resolve([]);
    return this.db.approval.findMany({ where: { run_id: { in: run_ids }, state: "pending" }, orderBy: { requested_at: "asc" } });
  }

  /** Pending approvals whose time ran out before `now`. */
  dueApprovals(now: Date): Promise<Approval[]> {
    return this.db.approval.findMany({ where: { state: "pending", expires_at: { lt: now } } });
  }

  /** Approvals by state, optionally of one thread: pending oldest first, decided newest first, at most `limit`. */
  approvals(filter: ApprovalFilter, thread_id: string | undefined, limit: number): Promise<Approval[]> {
    return this.db.approval.findMany({
      where: {
        ...(filter === "pending" ? { state: "pending" } : filter === "decided" ? { state: { not: "pending" } } : {}),
        ...(thread_id ? { thread_id } : {}),
      },
      orderBy: filter === "decided" ? { decided_at: "desc" } : { requested_at: "asc" },
      take: limit,
    });
  }

  // The For you inbox (server/inbox/inbox.ts): one query per kind of item, each through inboxRows.

  /**
   * Rows of one of the inbox's queries: `sql` reads `$1` the person, `inScope(column)` the
   * channels `thread_ids` ($2 and $3; "all": every one) and `params` from `$4` on. No channel: no
   * rows, and no round trip.
   */
  private inboxRows<R>(sql: (inScope: (column: string) => string) => string, person: string, thread_ids: readonly string[] | "all", ...params: unknown[]): Promise<R[]> {
    if (thread_ids !== "all" && !thread_ids.length) return Promise.resolve([]);
    const inScope = (column: string) => `($2::boolean OR ${column} = ANY($3::text[]))`;
    return this.db.$queryRawUnsafe<R[]>(sql(inScope), person, thread_ids === "all", thread_ids === "all" ? [] : [...thread_ids], ...params);
  }

  /**
   * The questions to people that wait for an answer in tasks that have not ended, put to the
   * channel (`user`) or to `person` (`user:<id>`), in channels `thread_ids` ("all": every one):
   * the question messages, newest first, at most `limit`. One set-based query over the tasks
   * projection's `open_questions` (a partial index holds the tasks that have any).
   */
  async openQuestionsFor(person: string, thread_ids: readonly string[] | "all", limit: number): Promise<StoredEventOf<"chat.message">[]> {
    const rows = await this.inboxRows<EventRow>(
      (inScope) => `SELECT ${eventColumns("e")}
         FROM tasks t
         CROSS JOIN LATERAL jsonb_array_elements(t.open_questions) AS q(question)
         JOIN events e ON e.run_id = t.run_id AND e.id = q.question->>'id'
        WHERE t.open_questions <> '[]'::jsonb
          AND t.state <> ALL($4::text[])
          AND (q.question->'to' @> '["user"]'::jsonb OR q.question->'to' @> jsonb_build_array($1::text))
          AND ${inScope("t.thread_id")}
          AND e.type = 'chat.message'
        ORDER BY e.seq DESC
        LIMIT $5`,
      person,
      thread_ids,
      [...TERMINAL_STATES],
      limit,
    );
    return chatMessages(rows);
  }

  /** Tasks of `assignees` in `thread_ids` that ended failed, cancelled or timed out at or after `since`, oldest first. */
  async unsuccessfulTasksSince(assignees: readonly string[], thread_ids: readonly string[], since: Date): Promise<Task[]> {
    if (!assignees.length || !thread_ids.length) return [];
    return this.db.task.findMany({
      where: { assignee: { in: [...assignees] }, thread_id: { in: [...thread_ids] }, state: { in: ["failed", "cancelled", "timed_out"] }, ended_at: { gte: since }, imported: false },
      orderBy: [{ ended_at: "asc" }, { id: "asc" }],
    });
  }

  /**
   * Messages that @mention `person` (`payload.mentions` holds `user:<id>`, lib/mentions.ts) or
   * everyone in their channel (`channel`, and `here`: who was online when it was sent is not
   * stored, so `@here` reaches everyone who may read the channel, like `@channel`) and
   * that someone else sent (not a fork's or an import's copy of one: `meta.forked_from`, `meta.imported`;
   * not a deleted one: chat.delete, docs/protocol.md "Message actions"), in channels `thread_ids` ("all": every one), at or after `since`:
   * newest first, at most `limit` (the events_mentions_idx GIN index).
   */
  async mentionsOf(person: string, thread_ids: readonly string[] | "all", since: Date, limit: number): Promise<StoredEventOf<"chat.message">[]> {
    const rows = await this.inboxRows<EventRow>(
      (inScope) => `SELECT ${eventColumns()} FROM events
        WHERE type = 'chat.message'
          AND (payload->'mentions' @> jsonb_build_array($1::text) OR payload->'mentions' @> '["channel"]' OR payload->'mentions' @> '["here"]')
          AND from_agent_id <> $1
          AND NOT coalesce(rest->'meta' ? 'forked_from', false)
          AND NOT coalesce(rest->'meta' ? 'imported', false)
          AND ${notDeleted("events")}
          AND ${inScope("thread_id")}
          AND ts >= $4
        ORDER BY seq DESC
        LIMIT $5`,
      person,
      thread_ids,
      since,
      limit,
    );
    return chatMessages(rows);
  }

  /**
   * The direct messages `person` (`user:<id>`) is in (`threads.dm_between` holds them, its GIN
   * index), in channels `thread_ids` ("all": every one), where someone else wrote at or after
   * `since`: per DM, its newest message from the other party (a chat.message of the DM's
   * conversation that `person` did not send, lib/unread.ts `unreadSql`, the SQL of
   * lib/conversation.ts `inConversation` for messages; not deleted) and how many of theirs are
   * newer than `marks` (the person's read seq by channel id; none: 0). Newest first, at most
   * `limit` DMs; one query, each DM read backwards on the (thread_id, seq) index.
   */
  async directMessagesTo(
    person: string,
    thread_ids: readonly string[] | "all",
    marks: ReadonlyMap<string, number>,
    since: Date,
    limit: number,
  ): Promise<DirectMessageActivity[]> {
    const theirs = `e.thread_id = t.id AND e.type = 'chat.message' AND e.from_agent_id <> $1 AND ${unreadSql("$6")}
            AND ${notDeleted("e")}`;
    const rows = await this.inboxRows<EventRow & { unread: number }>(
      (inScope) => `SELECT ${eventColumns("last")}, n.unread
         FROM threads t
         LEFT JOIN unnest($7::text[], $8::bigint[]) AS m(thread_id, seq) ON m.thread_id = t.id
         CROSS JOIN LATERAL (SELECT ${eventColumns("e")} FROM events e WHERE ${theirs} ORDER BY e.seq DESC LIMIT 1) last
         CROSS JOIN LATERAL (SELECT count(*)::int AS unread FROM events e WHERE ${theirs} AND e.seq > coalesce(m.seq, 0)) n
        WHERE t.dm_between @> ARRAY[$1::text]
          AND ${inScope("t.id")}
          AND t.last_event_at >= $4
          AND last.ts >= $4
        ORDER BY last.seq DESC
        LIMIT $5`,
      person,
      thread_ids,
      since,
      limit,
      THREAD_CREATED,
      [...marks.keys()],
      [...marks.values()],
    );
    return rows.flatMap((row) => {
      const event = fromRow(row);
      return isEvent(event, "chat.message") ? [{ event, unread: Number(row.unread) }] : [];
    });
  }

  /**
   * `model.usage` events summed by scope key and model (docs/observability.md): per run of
   * `run_ids` (key: run id), for one task (key: task id), or one agent's since `since` (key: the
   * UTC day, YYYY-MM-DD). A fork's and an import's copies (`meta.forked_from`, `meta.imported`)
   * are left out: the original paid for them. Uses the (run_id, seq), (task_id) and (type, from_agent_id, seq) indexes.
   */
  async usageByModel(scope: { run_ids: readonly string[] } | { task_id: string } | { agent_id: string; since: Date }): Promise<(ModelUsageRow & { key: string })[]> {
    const [key, where, params]: [string, string, unknown[]] =
      "run_ids" in scope
        ? ["run_id", "run_id = ANY($1::text[])", [[...new Set(scope.run_ids)]]]
        : "task_id" in scope
          ? ["task_id", "task_id = $1", [scope.task_id]]
          : [`to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD')`, "from_agent_id = $1 AND ts >= $2", [scope.agent_id, scope.since]];
    if ("run_ids" in scope && !scope.run_ids.length) return [];
    const rows = await this.db.$queryRawUnsafe<{ key: string; model: string; calls: number; input_tokens: number; output_tokens: number; cached_input_tokens: number; model_ms: number }[]>(
      `SELECT ${key} AS key, payload->>'model' AS model, count(*)::int AS calls,
              coalesce(sum((payload->>'input_tokens')::bigint), 0)::float8 AS input_tokens,
              coalesce(sum((payload->>'output_tokens')::bigint), 0)::float8 AS output_tokens,
              coalesce(sum((payload->>'cached_input_tokens')::bigint), 0)::float8 AS cached_input_tokens,
              coalesce(sum((payload->>'latency_ms')::float8), 0)::float8 AS model_ms
         FROM events
        WHERE type = 'model.usage' AND ${where}
          AND NOT coalesce(rest->'meta' ? 'forked_from', false)
          AND NOT coalesce(rest->'meta' ? 'imported', false)
        GROUP BY 1, 2 ORDER BY 1, 2`,
      ...params,
    );
    return rows.map((r) => ({ ...r, calls: Number(r.calls), input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens), cached_input_tokens: Number(r.cached_input_tokens), model_ms: Number(r.model_ms) }));
  }
}
