/**
 * What the append authorizer reads (server/auth/authorize-append.ts, rules 4, 5 and 5a), kept in
 * memory so that an agent posting one event per request does not pay two database reads for it
 * (docs/benchmarks.md "Where the HTTP single-event time goes"). Kept current by the event tail
 * (server/events/tail.ts) and by this process's own changes to channels.
 *
 * Invariants:
 *
 * - **It only ever says yes.** Every entry comes from the database (a miss reads it); nothing is
 *   cached for a channel, run or task the database does not have. The authorizer refuses only on
 *   the database's answer: a refusal reached with cached reads is checked again with fresh ones
 *   (`authorizeAppend`), so the cache never refuses what the database would let through.
 * - **A change removes what it makes stale** before the authorizer can use it again:
 *   - a channel's row for a principal (its visibility, whether the principal is a member): all removed
 *     when this process adds or removes a member of any channel or changes its visibility
 *     (ChannelAccess, before and after the write), and when any node's audit.change reaches the
 *     tail (every such change records one: docs/identity.md "Channels");
 *   - a run's channel: fixed at the run's first task event (the runs projection never changes
 *     `thread_id`, server/events/append.ts), so it stays;
 *   - a task's channel and run: fixed likewise; its requester is fixed at its first event; its
 *     assignee changes only with a task.request or task.accept of the task (lib/fold/task-state.ts
 *     `foldTask`): when one is handed to the tail (`committed`: this process's commits before
 *     their append returns, in any order) the cached task is removed; when one reaches the tail's
 *     listeners in seq order (`observe`), a cached task whose `last_seq` is before it takes the
 *     new assignee as the projection does (the entry stays the projection's row as of that seq).
 *     Either way a read of the task in flight stores nothing.
 * - **A read never stores an answer older than a removal**: a read that was in flight when a
 *   removal of its key (or a clear) happened stores nothing.
 * - Bounded: past MAX_ENTRIES entries of a kind, that kind starts over empty.
 *
 * How current: events this process appends are handed to its tail before their append returns
 * (`committed`), so a change made here holds for the next request at once, even while the tail
 * holds them back behind another node's commit it has not read yet. A change made on another node holds here
 * once its event reaches this node's tail (at once on PostgreSQL's notification, at most the
 * tail's poll interval without it), the same order of time as the gap the authorizer always had
 * between its reads and the append's commit.
 */
import { actorOf, isEvent, type StoredEvent } from "@/lib/protocol";
import type { Queries } from "../events/queries";
import type { EventTail } from "../events/tail";
import { readableBy, type ChannelAccess, type ChannelRow } from "./access";
import type { Principal } from "./principal";

/** Entries of one kind kept at most; then that kind starts over. */
const MAX_ENTRIES = 50_000;


/** A task's scope and the two people the authorizer checks (`Queries.appendScopes`), as of event `last_seq`. */
export interface TaskScope {
  thread_id: string;
  run_id: string;
  assignee: string | null;
  requester: string | null;
  /** The seq of the last event folded into the task: the ones after it are not in this entry. */
  last_seq: number;
}

/**
 * A map whose entries a read may store only if nothing removed its key (or cleared the map)
 * while the read was in flight.
 */
class Removable<V> {
  private readonly values = new Map<string, V>();
  /** Logical time: moves on at every removal and clear. */
  private clock = 0;
  private clearedAt = 0;
  /** Key → the time it was last removed, kept while reads may be in flight. */
  private readonly removedAt = new Map<string, number>();
  private inFlight = 0;

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Start a read: its token for `store`. */
  begin(): number {
    this.inFlight++;
    return this.clock;
  }

  /** End the read started at `token`, storing `entries` unless a removal overtook it. */
  end(token: number, entries: Iterable<[string, V]>): void {
    if (this.clearedAt <= token) {
      for (const [key, value] of entries) {
        if ((this.removedAt.get(key) ?? -1) > token) continue;
        if (this.values.size >= MAX_ENTRIES) this.values.clear();
        this.values.set(key, value);
      }
    }
    if (--this.inFlight === 0) this.removedAt.clear();
  }

  /** End a read that failed: nothing stored. */
  abort(): void {
    if (--this.inFlight === 0) this.removedAt.clear();
  }

  /** Set `key` now (not a read's answer: what the tail brought). */
  put(key: string, value: V): void {
    if (this.values.size >= MAX_ENTRIES) this.values.clear();
    this.values.set(key, value);
  }

  remove(key: string): void {
    this.values.delete(key);
    if (!this.inFlight) return;
    if (this.removedAt.size >= MAX_ENTRIES) return this.clear();
    this.removedAt.set(key, ++this.clock);
  }

  /** Remove every entry; reads in flight store nothing. */
  clear(): void {
    this.values.clear();
    this.removedAt.clear();
    this.clearedAt = ++this.clock;
  }
}

const channelKey = (thread_id: string, agent_id: string) => `${thread_id}\u0000${agent_id}`;

/** See the module doc. One per process (Identity), fed by the tail through `observe`. */
export class AppendCache {
  private readonly channels = new Removable<ChannelRow>();
  private readonly runs = new Removable<string>();
  private readonly tasks = new Removable<TaskScope>();

  constructor(
    private readonly queries: Pick<Queries, "appendScopes">,
    private readonly access: Pick<ChannelAccess, "row">,
  ) {}

  /**
   * True when `p` may read (and post in) channel `thread_id`, from the cache or the database
   * (`ChannelAccess.row`); false for an unknown channel or one `p` may not read, always as the
   * database says it now (a cached row that says no is read again).
   */
  async canRead(p: Principal, thread_id: string): Promise<boolean> {
    if (p.kind === "system") return true;
    const key = channelKey(thread_id, p.agent_id);
    const cached = this.channels.get(key);
    if (cached && readableBy(p, cached)) return true;
    const token = this.channels.begin();
    let row: ChannelRow | null;
    try {
      row = await this.access.row(thread_id, p.agent_id);
    } catch (err) {
      this.channels.abort();
      throw err;
    }
    this.channels.end(token, row ? [[key, row]] : []);
    return row !== null && readableBy(p, row);
  }

  /**
   * `Queries.appendScopes` served from the cache: the channel of each stored run among `run_ids`,
   * and each stored task among `task_ids` with its channel, run, assignee and requester. Unknown
   * ids are left out (new ones: never cached). The maps are the caller's to change.
   */
  async appendScopes(run_ids: readonly string[], task_ids: readonly string[]): Promise<{ runs: Map<string, string>; tasks: Map<string, TaskScope> }> {
    const runs = new Map<string, string>();
    const tasks = new Map<string, TaskScope>();
    const runMisses = [...new Set(run_ids)].filter((id) => {
      const thread = this.runs.get(id);
      if (thread !== undefined) runs.set(id, thread);
      return thread === undefined;
    });
    const taskMisses = [...new Set(task_ids)].filter((id) => {
      const task = this.tasks.get(id);
      if (task) tasks.set(id, { ...task });
      return !task;
    });
    if (!runMisses.length && !taskMisses.length) return { runs, tasks };
    const runToken = this.runs.begin();
    const taskToken = this.tasks.begin();
    let read: Awaited<ReturnType<Queries["appendScopes"]>>;
    try {
      read = await this.queries.appendScopes(runMisses, taskMisses);
    } catch (err) {
      this.runs.abort();
      this.tasks.abort();
      throw err;
    }
    this.runs.end(runToken, read.runs);
    // An entry the tail brought past what this read saw stays.
    this.tasks.end(taskToken, [...read.tasks].filter(([id, t]) => (this.tasks.get(id)?.last_seq ?? -1) < t.last_seq).map(([id, t]) => [id, { ...t }]));
    for (const [id, thread] of read.runs) runs.set(id, thread);
    for (const [id, task] of read.tasks) tasks.set(id, task);
    return { runs, tasks };
  }

  /**
   * Keep current from `tail`: `committed` hears every event as it is handed over, `observe` every
   * event of every node (imported copies too) in seq order. Returns the function that stops both.
   */
  follow(tail: Pick<EventTail, "subscribe" | "onOffer">): () => void {
    const unsubscribe = tail.subscribe((ev) => this.observe(ev), { copies: true });
    const unhear = tail.onOffer((events) => this.committed(events));
    return () => {
      unsubscribe();
      unhear();
    };
  }

  /**
   * Forget at once the tasks whose assignee `events` may change (a task.request or task.accept of
   * them), and keep reads of them in flight from storing: the tail's hook for events as they are
   * handed over (`EventTail.onOffer`), before they are in seq order. The next check reads them.
   */
  committed(events: readonly StoredEvent[]): void {
    for (const ev of events) if (ev.type === "task.request" || ev.type === "task.accept") this.tasks.remove(ev.task_id);
  }

  /**
   * Bring the cache past a committed event (the tail's listener: every event of every node in seq
   * order, imported copies too): a task.request or task.accept moves its cached task's assignee
   * as `foldTask` does (a task.request to someone: to them; a task.accept: to its actor), and
   * keeps any read of the task in flight from storing; an audit.change forgets every channel row.
   */
  observe(ev: StoredEvent): void {
    if (ev.type === "task.request" || ev.type === "task.accept") {
      const task = this.tasks.get(ev.task_id);
      this.tasks.remove(ev.task_id);
      if (task && ev.seq > task.last_seq) {
        const assignee = ev.type === "task.request" ? (ev.to[0]?.agent_id ?? task.assignee) : actorOf(ev);
        this.tasks.put(ev.task_id, { ...task, assignee, last_seq: ev.seq });
      }
    } else if (isEvent(ev, "audit.change")) this.forgetChannels();
  }

  /**
   * Forget every channel row: a channel's members or visibility change now (rare: reading the
   * rows again costs a few reads), and reads in flight store nothing.
   */
  forgetChannels(): void {
    this.channels.clear();
  }

  /** Forget everything (the tail lost events it cannot name, a test). */
  clear(): void {
    this.forgetChannels();
    this.runs.clear();
    this.tasks.clear();
  }
}
