/**
 * The gateway's outbox (./frames.ts): one frame per socket per turn, FIFO per socket, one send
 * for the sockets due the same frame, nothing for a subscription that ended, frames bounded.
 */
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import { MAX_FRAME_EVENTS } from "@/lib/realtime/contract";
import { EventFrames, type FrameSub } from "./frames";

const ev = (seq: number) => ({ seq, id: `e${seq}` }) as unknown as StoredEvent;
const sub = (): { closed: boolean } => ({ closed: false });
const to = (...pairs: [string, FrameSub[]][]) => new Map(pairs);
const turn = () => new Promise((r) => setImmediate(r));

function outbox() {
  const sent: { sockets: string[]; seqs: number[] }[] = [];
  const frames = new EventFrames((sockets, events) => sent.push({ sockets: [...sockets].sort(), seqs: events.map((e) => e.seq) }));
  return { frames, sent };
}

describe("EventFrames", () => {
  it("sends what one turn queued as one frame per socket, once for the sockets due the same frame", async () => {
    const { frames, sent } = outbox();
    const [a, b, c] = [sub(), sub(), sub()];
    for (const seq of [1, 2, 3]) frames.queue(ev(seq), to(["A", [a]], ["B", [b]]));
    frames.queue(ev(4), to(["C", [c]]));
    expect(sent).toEqual([]); // nothing before the end of the turn
    await turn();
    expect(sent).toEqual([
      { sockets: ["A", "B"], seqs: [1, 2, 3] },
      { sockets: ["C"], seqs: [4] },
    ]);
    frames.queue(ev(5), to(["A", [a]]));
    await turn();
    expect(sent.at(-1)).toEqual({ sockets: ["A"], seqs: [5] }); // a lone event: its own frame, the next turn
  });

  it("keeps each socket's queue in order, and drops what only subscriptions that ended wanted", async () => {
    const { frames, sent } = outbox();
    const [thread, run, old] = [sub(), sub(), sub()];
    frames.queue(ev(10), to(["A", [old]]));
    frames.queue(ev(11), to(["A", [thread, run]]));
    frames.queue(ev(12), to(["A", [old]]));
    old.closed = true; // replaced by a new subscription, which replays 10 and 12 itself
    run.closed = true; // 11 is still the open thread subscription's
    frames.queue(ev(10), to(["A", [thread]]));
    frames.flush();
    expect(sent).toEqual([{ sockets: ["A"], seqs: [11, 10] }]);
    await turn();
    expect(sent).toHaveLength(1); // flushed early: the turn's flush finds nothing
  });

  it("cuts a burst larger than a frame into frames of at most MAX_FRAME_EVENTS, in order", () => {
    const { frames, sent } = outbox();
    const s = sub();
    const n = MAX_FRAME_EVENTS * 2 + 5;
    for (let seq = 1; seq <= n; seq++) frames.queue(ev(seq), to(["A", [s]], ["B", [s]]));
    frames.flush();
    expect(sent.map((f) => f.seqs.length)).toEqual([MAX_FRAME_EVENTS, MAX_FRAME_EVENTS, 5]);
    expect(sent.flatMap((f) => f.seqs)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(sent.every((f) => f.sockets.join() === "A,B")).toBe(true);
  });

  it("sends nothing after clear()", async () => {
    const { frames, sent } = outbox();
    frames.queue(ev(1), to(["A", [sub()]]));
    frames.clear();
    await turn();
    expect(sent).toEqual([]);
    expect(frames.pending).toBe(false);
  });
});
