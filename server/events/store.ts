/**
 * EventStore: the facade over the log that the API, the socket gateway, the orchestrator and
 * the agents use (docs/architecture.md, "The append path"). Every write goes through `append`
 * (group-committed, see group-commit.ts) or `createThread`, which appends its announcement in
 * the same transaction as the thread row; events are offered to the tail only after commit.
 * Reads go through `read`/`readAll` (pages of events) and `queries` (named reads of the log and
 * its projections, queries.ts). The database client is private to the store: no code outside
 * server/events queries the database.
 */
import type { ClutchMessage, StoredEvent } from "@/lib/protocol";
import type { ThreadSummary } from "@/lib/api/types";
import type { Db } from "../db/client";
import { ClutchError } from "../errors";
import { appendInTx, type AppendResult, type InTxHook } from "./append";
import { GroupCommitter } from "./group-commit";
import { Queries } from "./queries";
import { readAllEvents, readEventLines, readEvents, runHead, type Page, type ReadQuery, type Scope } from "./read";
import type { EventTail } from "./tail";
import { compactHeartbeats, type CompactionSettings } from "./compaction";
import { dmName, insertThread, NewThreadSchema, toSummary } from "./threads";
import { validateMessages } from "./validate";
import { prismaSql, TX_OPTIONS, type Sql, type Transactor } from "./sql";


/** Most messages `appendAll` takes (a run's import or fork). */
export const MAX_APPEND_ALL = 200_000;
/** Messages per transaction in `appendAll`. */
export const APPEND_ALL_GROUP = 500;

/** System threads (`_agents`) are not channels. (Not a LIKE filter: `_` is its wildcard.) */
const isChannel = (row: { name: string }) => !row.name.startsWith("_");

/** The first key of the two-key advisory lock space of `EventStore.exclusive` ("Clux"). */
const EXCLUSIVE_SPACE = 0x436c7578;

export class EventStore {
  private readonly writer: GroupCommitter;
  /** Named reads of the log and its projections (queries.ts). */
  readonly queries: Queries;
  /** Pages of events (read.ts), through the store's own client. */
  private readonly reads: Sql;
  private payloadCheck: ((messages: ClutchMessage[]) => Promise<void>) | null = null;
  /** `exclusive`'s work in this process, by key. */
  private readonly chains = new Map<string, Promise<unknown>>();

  /**
   * `db` is the store's own client (server/db/client.ts); `appends` runs the append transactions
   * (server/events/sql.ts: its own `pg` pool on PostgreSQL); `tail` gets every event after commit.
   * `shared`: other processes append to the same database (PostgreSQL with the append pool of its
   * own), so `exclusive` locks in the database too. `lineReads`: where `readLines` reads (default
   * the store's own client; open.ts gives a `pg` pool on PostgreSQL).
   */
  constructor(
    private readonly db: Db,
    private readonly tail: EventTail,
    appends: Transactor,
    private readonly shared = false,
    private readonly lineReads: Sql = prismaSql(db),
  ) {
    const writer = (this.writer = new GroupCommitter(appends, (events) => tail.offer(events)));
    tail.appendsInFlight = () => writer.busy;
    this.queries = new Queries(db);
    this.reads = prismaSql(db);
  }

  /**
   * Run `fn` when no other work for `key` runs, in this process or (on a shared PostgreSQL) any
   * process of the deployment: in the order they were asked for here, and one at a time across
   * nodes (a transaction-scoped advisory lock on `key`, held on the store's own client while `fn`
   * reads and appends through the append pool, for at most 30 s). For read-then-append work whose
   * reading must see the appends before it, e.g. an AutoGen run's batches (server/adapters/autogen/runs.ts).
   * Rejects with what `fn` throws.
   */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const locked = this.shared
      ? () => this.db.$transaction(async (tx) => (await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(${EXCLUSIVE_SPACE}, hashtext($1))::text`, key), await fn()), { maxWait: 10_000, timeout: 30_000 })
      : fn;
    const next = (this.chains.get(key) ?? Promise.resolve()).then(locked, locked);
    const settled = next.catch(() => undefined);
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return next;
  }

  /**
   * Work that commits with every append or not at all (server/events/append.ts InTxHook): the
   * durable dispatch queue adds the jobs the new events create. One hook; null removes it.
   */
  setInTx(hook: InTxHook | null): void {
    this.writer.inTx = hook ?? undefined;
  }

  /**
   * Ingest validation beyond the envelope: the schema registry's check of payload types
   * (server/schemas/registry.ts `checkMessages`), run on every append's validated messages before
   * anything is stored; what it throws refuses the whole batch. One check; null removes it.
   */
  setPayloadCheck(check: ((messages: ClutchMessage[]) => Promise<void>) | null): void {
    this.payloadCheck = check;
  }

  /** Resolves when the database answers; throws its error otherwise (for `GET /api/health`). */
  async ping(): Promise<void> {
    await this.db.$queryRawUnsafe("SELECT 1");
  }

  /**
   * Validate and append one message or a batch (one transaction), then publish the new ones.
   * `opts.authorize` runs on the validated messages before anything is stored: the API passes
   * the principal's check (server/auth/authorize-append.ts) and its refusal stores nothing.
   * Throws ClutchError: invalid_event (400, also for a payload that does not match its registered schema), batch_too_large (413), unknown_thread (422), and
   * whatever `authorize` throws.
   */
  async append(input: unknown, opts: { authorize?: (messages: ClutchMessage[]) => Promise<void> } = {}): Promise<AppendResult> {
    const messages = validateMessages(input);
    if (opts.authorize) await opts.authorize(messages);
    if (this.payloadCheck) await this.payloadCheck(messages);
    return this.writer.submit(messages);
  }

  /**
   * Append many messages (more than one batch holds; imports and forks): every message is
   * validated first, so an invalid one stores nothing; then they are appended in groups of
   * APPEND_ALL_GROUP, each its own transaction, so other writers' appends go in between and no
   * request holds the append lock for long (docs/limits.md). If the database fails part-way, the
   * groups before stay stored; sending the same messages again stores only the rest (dedupe by
   * id). Throws like `append`.
   */
  async appendAll(input: unknown[]): Promise<AppendResult> {
    const messages = validateMessages(input, { maxBatch: MAX_APPEND_ALL });
    if (this.payloadCheck) await this.payloadCheck(messages);
    const out: AppendResult = { events: [], created: [] };
    for (let i = 0; i < messages.length; i += APPEND_ALL_GROUP) {
      const r = await this.writer.submit(messages.slice(i, i + APPEND_ALL_GROUP));
      out.events.push(...r.events);
      out.created.push(...r.created);
    }
    return out;
  }

  /**
   * Create a channel. Throws ClutchError invalid_thread (400) or name_taken (409).
   * `by` is who created it, named in the announcement.
   */
  async createThread(input: unknown, by: { agent_id: string; display_name?: string }): Promise<ThreadSummary> {
    const parsed = NewThreadSchema.safeParse(input);
    if (!parsed.success) {
      const first = parsed.error.issues[0]!;
      throw new ClutchError("invalid_thread", `${first.path.join(".") || "body"}: ${first.message}`, 400, parsed.error.issues);
    }
    const existing = await this.db.thread.findUnique({ where: { name: parsed.data.name } });
    if (existing) throw new ClutchError("name_taken", `#${parsed.data.name} already exists`, 409);
    try {
      const { row, result } = await this.db.$transaction(async (tx) => {
        const { row, announce } = await insertThread(tx, parsed.data, by);
        const result = await appendInTx(prismaSql(tx), [announce]);
        return { row, result };
      }, TX_OPTIONS);
      this.tail.offer(result.events);
      const fresh = await this.db.thread.findUniqueOrThrow({ where: { id: row.id } });
      return toSummary(fresh);
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") throw new ClutchError("name_taken", `#${parsed.data.name} already exists`, 409);
      throw err;
    }
  }

  /**
   * The id of a thread for Clutch's own bookkeeping, created on first use: its name starts with
   * `_` (no channel can), so it is never listed as a channel. The agent registry keeps its
   * heartbeats and API registrations in `_agents` (server/router/registration.ts).
   */
  async systemThread(name: `_${string}`, topic: string): Promise<string> {
    const known = this.systemThreads.get(name);
    if (known) return known;
    const id = await this.findOrCreateSystemThread(name, topic);
    this.systemThreads.set(name, id); // threads are never deleted: no lookup per heartbeat
    return id;
  }

  private readonly systemThreads = new Map<string, string>();

  /**
   * Delete superseded agent heartbeats (compaction.ts: each agent's newest and every change of
   * presence stay). Resolves with how many were deleted; 0 when another node holds the round.
   */
  compactHeartbeats(settings: CompactionSettings, now?: Date): Promise<number> {
    return compactHeartbeats(this.db, settings, now);
  }

  private async findOrCreateSystemThread(name: string, topic: string): Promise<string> {
    const existing = await this.db.thread.findUnique({ where: { name } });
    if (existing) return existing.id;
    try {
      const { row, result } = await this.db.$transaction(async (tx) => {
        const { row, announce } = await insertThread(tx, { name, topic }, { agent_id: "system", display_name: "Clutch" });
        return { row, result: await appendInTx(prismaSql(tx), [announce]) };
      }, TX_OPTIONS);
      this.tail.offer(result.events);
      return row.id;
    } catch (err) {
      if ((err as { code?: string }).code !== "P2002") throw err;
      return (await this.db.thread.findUniqueOrThrow({ where: { name } })).id;
    }
  }

  /** Every channel, by name (system threads left out). */
  async listThreads(): Promise<ThreadSummary[]> {
    const rows = await this.db.thread.findMany({ orderBy: { name: "asc" } });
    return rows.filter(isChannel).map(toSummary);
  }

  /** One channel, or null. */
  async getThread(id: string): Promise<ThreadSummary | null> {
    const row = await this.db.thread.findUnique({ where: { id } });
    return row ? toSummary(row) : null;
  }

  /**
   * The direct message between `between` (two principals, `user:<id>` / `agent:<id>`), made
   * private with both as members the first time (docs/channels.md "Direct messages"); a DM with an
   * agent has it as `entry_agent`, and `deployment` (the deployment it is opened on, whose agents
   * answer in it). `created` says whether it is new. `with_name` names the other party in the
   * announcement.
   */
  async directMessage(between: [string, string], opts: { entry_agent: string | null; with_name: string; deployment?: string }, by: { agent_id: string; display_name?: string }): Promise<{ thread: ThreadSummary; created: boolean }> {
    const pair = [...between].sort();
    const find = () => this.db.thread.findFirst({ where: { dm_between: { equals: pair } } });
    const existing = await find();
    if (existing) return { thread: toSummary(existing), created: false };
    let made;
    try {
      made = await this.db.$transaction(async (tx) => {
        const { row, announce } = await insertThread(tx, { name: dmName() }, by, { between: pair, entry_agent: opts.entry_agent, with_name: opts.with_name, ...(opts.deployment ? { deployment: opts.deployment } : {}) });
        return { row, result: await appendInTx(prismaSql(tx), [announce]) };
      }, TX_OPTIONS);
    } catch (err) {
      // Opened at the same moment elsewhere (threads_dm_pair_key): that one is the DM.
      const raced = await find();
      if (raced) return { thread: toSummary(raced), created: false };
      throw err;
    }
    const { row, result } = made;
    this.tail.offer(result.events);
    return { thread: toSummary(await this.db.thread.findUniqueOrThrow({ where: { id: row.id } })), created: true };
  }

  /** Channels by id (for sidebar activity; system threads left out). */
  async getThreads(ids: string[]): Promise<ThreadSummary[]> {
    const rows = await this.db.thread.findMany({ where: { id: { in: ids } } });
    return rows.filter(isChannel).map(toSummary);
  }

  /** A page of events; see server/events/read.ts. */
  read(scope: Scope, q: ReadQuery = {}): Promise<Page> {
    return readEvents(this.reads, scope, q);
  }

  /** A run's channel (its first event's) and its newest seq; null when it has no event (read.ts `runHead`). */
  runHead(run_id: string): Promise<{ thread_id: string; last_seq: number } | null> {
    return runHead(this.reads, run_id);
  }

  /** Every event in `scope` with `after` < seq ≤ `upTo` as JSON Lines, a page of text at a time (read.ts `readEventLines`). */
  readLines(scope: Scope, after: number, upTo: number, pageSize?: number): AsyncGenerator<string> {
    return readEventLines(this.lineReads, scope, after, upTo, pageSize);
  }

  /** Every event in `scope` with seq > `after` (default 0), in seq order, read page by page. */
  readAll(scope: Scope, after = 0): Promise<StoredEvent[]> {
    return readAllEvents(this.reads, scope, after);
  }
}
