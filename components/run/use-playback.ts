"use client";
/**
 * `usePlayback`: plays a run's events forward in time: play, pause, and a speed from 1x to 100x,
 * or instant.
 *
 * At 1x the gaps between events are the real ones (from their `ts`), with any pause longer than
 * MAX_GAP_MS cut to it (a run that waited an hour for a person plays on); Nx divides the gaps
 * by N. "Instant" ignores time: it steps through the rest of the run in about INSTANT_MS,
 * at least one event a frame. One requestAnimationFrame loop; many events a frame when the gaps
 * are short, so 100x on 50,000 events does not fall behind.
 */
import { useEffect, useRef } from "react";
import type { StoredEvent } from "@/lib/protocol";

/** The speeds offered; Infinity is "instant". */
export const SPEEDS = [1, 2, 5, 10, 25, 50, 100, Infinity] as const;
export type Speed = (typeof SPEEDS)[number];

/** Longest pause between two events at 1x (ms). */
export const MAX_GAP_MS = 1500;
const INSTANT_MS = 3000;

/** Milliseconds to wait at 1x before event `i` (0-based) once event `i − 1` is shown. */
export function gapBefore(events: readonly StoredEvent[], i: number): number {
  if (i <= 0) return 0;
  const a = Date.parse(events[i - 1]!.ts);
  const b = Date.parse(events[i]!.ts);
  return Number.isFinite(a) && Number.isFinite(b) ? Math.min(MAX_GAP_MS, Math.max(0, b - a)) : 0;
}

/**
 * While `playing`, advances the position with `step(n)` (n = events shown) and calls `onEnd`
 * at the last event. `position()` reads the current position (it may change by a seek).
 */
export function usePlayback(opts: {
  playing: boolean;
  speed: Speed;
  events: readonly StoredEvent[];
  total: number;
  position: () => number;
  step: (n: number) => void;
  onEnd: () => void;
}) {
  const latest = useRef(opts);
  useEffect(() => {
    latest.current = opts;
  });

  useEffect(() => {
    if (!opts.playing) return;
    let raf = 0;
    let last = performance.now();
    let budget = 0;
    const tick = (now: number) => {
      const o = latest.current;
      const dt = Math.min(250, now - last);
      last = now;
      let n = o.position();
      if (n >= o.total) {
        o.onEnd();
        return;
      }
      if (o.speed === Infinity) {
        n = Math.min(o.total, n + Math.max(1, Math.ceil((o.total * 16) / INSTANT_MS)));
      } else {
        budget += dt * o.speed;
        let steps = 0;
        while (n < o.total && steps < 20_000) {
          const gap = gapBefore(o.events, n);
          if (gap > budget) break;
          budget -= gap;
          n++;
          steps++;
        }
      }
      if (n !== o.position()) o.step(n);
      if (n >= o.total) {
        o.onEnd();
        return;
      }
      raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(raf);
  }, [opts.playing]);
}
