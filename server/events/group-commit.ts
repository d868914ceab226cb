/**
 * GroupCommitter: one writer per process that commits concurrent appends together.
 *
 * Appends are serialized by the append lock anyway (server/events/append.ts), so while one
 * transaction runs, the callers that arrive queue up, and the next transaction takes them all
 * (up to `maxMessages`) through `appendGroupInTx`. Each caller's batch stays all or nothing:
 * a batch rejected inside the group (unknown thread) fails alone, and if the transaction
 * itself fails, every batch of the group is retried in a transaction of its own so one bad
 * batch cannot fail the others. Events are handed to `onCommitted` only after commit.
 */
import type { ClutchMessage, StoredEvent } from "@/lib/protocol";
import { isClutchError } from "../errors";
import { APPEND_LOCK_SQL, appendGroupInTx, type AppendResult, type InTxHook } from "./append";
import type { Transactor } from "./sql";

interface Pending {
  messages: ClutchMessage[];
  resolve(r: AppendResult): void;
  reject(e: unknown): void;
}

export class GroupCommitter {
  private readonly queue: Pending[] = [];
  private running = false;
  /** Runs in every append transaction with its new events (EventStore.setInTx). */
  inTx: InTxHook | undefined;

  constructor(
    private readonly transactor: Transactor,
    private readonly onCommitted: (events: StoredEvent[]) => void,
    /** Messages per group transaction: beyond a few hundred the cost per event stops falling, and the lock is held longer. */
    private readonly maxMessages = 500,
  ) {}

  /** Whether a group is being committed or waits to be (its events are not yet handed over). */
  get busy(): boolean {
    return this.running || this.queue.length > 0;
  }

  /** Append one validated batch; resolves after its transaction has committed. */
  submit(messages: ClutchMessage[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ messages, resolve, reject });
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length) {
        const group = [this.queue.shift()!];
        let size = group[0]!.messages.length;
        while (this.queue.length && size + this.queue[0]!.messages.length <= this.maxMessages) {
          size += this.queue[0]!.messages.length;
          group.push(this.queue.shift()!);
        }
        await this.commit(group);
      }
    } finally {
      this.running = false;
    }
  }

  private async commit(group: Pending[]): Promise<void> {
    let results;
    try {
      // The append lock is taken with the BEGIN (one round trip less per group).
      results = await this.transactor.transaction((sql) => appendGroupInTx(sql, group.map((p) => p.messages), this.inTx, { locked: true }), { first: APPEND_LOCK_SQL });
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      for (const p of group) await this.commit([p]);
      return;
    }
    const fresh: StoredEvent[] = [];
    for (const r of results) if (!isClutchError(r)) fresh.push(...r.events.filter((_, i) => r.created[i]));
    this.onCommitted(fresh);
    results.forEach((r, i) => (isClutchError(r) ? group[i]!.reject(r) : group[i]!.resolve(r)));
  }
}
