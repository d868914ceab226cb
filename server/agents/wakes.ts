/**
 * Wakes of instances (docs/agents.md "The agent loop"): one pass at a time per instance key
 * (`<agent id>/<task id>`); wakes that come while a pass runs coalesce into one more pass; an
 * abort stops the instance at once (its signal) and takes no further pass. Shared by the agent
 * runner and the bridge of registered A2A agents.
 */
import { log } from "../log";

export class Wakes {
  private readonly active = new Map<string, Promise<void>>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly again = new Set<string>();
  private stopped = false;

  /**
   * Run `pass` for `key`, again while wakes came in during it. `hold` (default: none) is awaited
   * before the first pass and its release called after the last (a concurrency slot). A pass that
   * throws is logged with `context`, unless the instance was aborted. Resolves when the instance's
   * last pass has ended (at once when stopped).
   */
  wake(key: string, pass: (signal: AbortSignal) => Promise<void>, context: Record<string, unknown>, hold?: () => Promise<() => void>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const active = this.active.get(key);
    if (active) {
      this.again.add(key);
      return active;
    }
    const controller = new AbortController();
    this.controllers.set(key, controller);
    const job = (async () => {
      const release = hold ? await hold() : () => {};
      try {
        do {
          this.again.delete(key);
          await pass(controller.signal);
        } while (this.again.has(key) && !this.stopped && !controller.signal.aborted);
      } catch (err) {
        if (!controller.signal.aborted) log.error({ err, ...context }, "agent pass failed");
      } finally {
        release();
        this.active.delete(key);
        this.controllers.delete(key);
      }
    })();
    this.active.set(key, job);
    return job;
  }

  /** Stop `key`'s instance now (`reason` is its signal's); resolves when it has stopped. */
  async abort(key: string, reason: Error): Promise<void> {
    this.again.delete(key);
    this.controllers.get(key)?.abort(reason);
    await this.active.get(key)?.catch(() => undefined);
  }

  /** How many instances whose key starts with `prefix` are working. */
  count(prefix: string): number {
    return [...this.active.keys()].filter((k) => k.startsWith(prefix)).length;
  }

  /** Take no new wakes (with `abortAll`, stop the running ones too); resolves when none runs. */
  async stop(abortAll = false): Promise<void> {
    this.stopped = true;
    if (abortAll) for (const c of this.controllers.values()) c.abort(new Error("Clutch is stopping"));
    await Promise.allSettled([...this.active.values()]);
  }

  /** Take wakes again after `stop()` (a node that leads again, docs/deploy.md). */
  start(): void {
    this.stopped = false;
  }

  /** Resolves when no instance is working. */
  async idle(): Promise<void> {
    while (this.active.size) await Promise.allSettled([...this.active.values()]);
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}
