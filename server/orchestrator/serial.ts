/**
 * `SerialByKey`: one promise chain per key (a run), so the reactions to one run's events happen
 * one after the other, in the order they were queued, while different runs go on side by side.
 * A failed reaction is reported to `onError` and does not stop the chain. Used by the runners
 * that advance a run from its events: workflows (server/workflows/runner.ts) and group chats
 * (server/orchestrator/group-chat.ts).
 */
export class SerialByKey {
  private readonly chains = new Map<string, Promise<void>>();

  /** Queue `work` for `key` after whatever is queued for it. */
  run(key: string, work: () => Promise<void>, onError: (err: unknown) => void): void {
    const next = (this.chains.get(key) ?? Promise.resolve()).then(work).catch(onError);
    this.chains.set(key, next);
    void next.then(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
  }

  /** Resolves once the work queued now has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
  }
}
