/**
 * The events of one run as an agent instance reads them during a wake: read once, then only
 * the events appended after the last one seen. Because seq is gap-free and in commit order
 * (docs/architecture.md, "Invariants"), a reader that has seen seq N never later finds a new
 * event of the run below N, so the growing list is always the run's whole log in seq order,
 * the same as reading it again from the start.
 */
import type { StoredEvent } from "@/lib/protocol";
import type { EventStore } from "../events/store";

export class RunLog {
  private readonly events: StoredEvent[] = [];

  constructor(
    private readonly store: EventStore,
    readonly run_id: string,
  ) {}

  /**
   * The run's events so far, in seq order, after reading what was appended since the last
   * refresh. The returned list is the log's own: a later refresh appends to it.
   */
  async refresh(): Promise<readonly StoredEvent[]> {
    const fresh = await this.store.readAll({ run_id: this.run_id }, this.events.at(-1)?.seq ?? 0);
    for (const ev of fresh) this.events.push(ev);
    return this.events;
  }
}
