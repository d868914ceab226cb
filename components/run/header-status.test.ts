/**
 * The run view header's clock (header-status.ts `headerDurationMs`): a run that goes on counts on
 * to now, even while nothing happens (the reported "Running · 13 s" stood still for ten minutes
 * because it was measured to the newest event); an ended run shows its duration, first event to
 * its end, however late it is read. Events are a second apart (test/fixtures/status-runs.ts).
 */
import { describe, expect, it } from "vitest";
import { foldRun } from "@/lib/fold/run-graph";
import { questionRun } from "@/test/fixtures/status-runs";
import { clockRunning, headerDurationMs } from "./header-status";

describe("the run header's clock", () => {
  const events = questionRun();
  const firstTs = Date.parse(events[0]!.ts);

  it("counts on while the run waits, and stops at its end", () => {
    // pm-1 waits for Dana's answer (4 events, 3 s after the first): nothing happens for ten minutes.
    const waiting = foldRun(events, 4);
    expect(clockRunning(waiting)).toBe(true);
    expect(headerDurationMs(waiting, firstTs + 3_000)).toBe(3_000);
    expect(headerDurationMs(waiting, firstTs + 600_000)).toBe(600_000);
    // A browser clock behind the server's never shows less than the newest event.
    expect(headerDurationMs(waiting, firstTs - 60_000)).toBe(3_000);

    const done = foldRun(events);
    expect(clockRunning(done)).toBe(false);
    expect(headerDurationMs(done, firstTs + 600_000)).toBe(5_000);
    expect(headerDurationMs(done, firstTs + 86_400_000)).toBe(5_000);
  });

  it("shows nothing before the run's first event", () => {
    expect(headerDurationMs(null, Date.now())).toBeNull();
    expect(headerDurationMs(foldRun([]), Date.now())).toBeNull();
    expect(clockRunning(null)).toBe(false);
  });
});
