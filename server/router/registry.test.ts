/**
 * Presence from heartbeats with a swappable clock (Clutch Protocol §2.4): an agent is
 * online while its newest sign of life is at most interval × missed seconds old.
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type AgentCard, type StoredEvent } from "@/lib/protocol";
import { AgentRegistry } from "./registry";

const T0 = Date.parse("2026-11-21T12:00:00.000Z");
let seq = 0;
const card: AgentCard = { v: "clutch/0.1", agent_id: "agent:ken", display: { name: "Ken" }, capabilities: [{ id: "skill:research", version: "1.0" }] };

function at(ms: number, type: "agent.register" | "agent.update" | "agent.heartbeat", payload: Record<string, unknown>): StoredEvent {
  const m = makeMessage({ type, thread_id: "thr_X", run_id: "run_X", task_id: "task_X", from: { agent_id: "agent:ken", role: "worker" }, to: [], payload } as never);
  return { ...m, ts: new Date(ms).toISOString(), seq: ++seq };
}

function registry() {
  let now = T0;
  const reg = new AgentRegistry({ config: { heartbeat_interval_sec: 10, offline_after_missed: 3 }, now: () => now });
  const changes: string[][] = [];
  reg.onChange((ids) => changes.push(ids));
  return { reg, changes, set: (ms: number) => (now = ms) };
}

describe("agent registry presence", () => {
  it("is online after registering and goes offline after the missed heartbeats, then back on a heartbeat", () => {
    const { reg, changes, set } = registry();
    reg.apply(at(T0, "agent.register", { card }));
    expect(reg.isOnline("agent:ken")).toBe(true);
    expect(changes).toEqual([["agent:ken"]]);

    set(T0 + 30_000); // exactly 3 × 10 s: still online
    expect(reg.tick()).toEqual([]);
    expect(reg.isOnline("agent:ken")).toBe(true);

    set(T0 + 30_001);
    expect(reg.tick()).toEqual(["agent:ken"]);
    expect(reg.isOnline("agent:ken")).toBe(false);
    expect(changes).toHaveLength(2);
    expect(reg.tick()).toEqual([]); // told once

    expect(reg.apply(at(T0 + 31_000, "agent.heartbeat", { agent_id: "agent:ken" }))).toBe(true);
    expect(reg.isOnline("agent:ken")).toBe(true);
    expect(changes).toHaveLength(3);
  });

  it("heartbeats that keep an online agent online change nothing", () => {
    const { reg, changes, set } = registry();
    reg.apply(at(T0, "agent.register", { card }));
    for (let i = 1; i <= 5; i++) {
      set(T0 + i * 10_000);
      expect(reg.apply(at(T0 + i * 10_000, "agent.heartbeat", { agent_id: "agent:ken" }))).toBe(false);
      expect(reg.tick()).toEqual([]);
    }
    expect(changes).toHaveLength(1);
    set(T0 + 50_000 + 30_001);
    expect(reg.tick()).toEqual(["agent:ken"]);
  });

  it("an older event does not move last_seen back; an update replaces the card", () => {
    const { reg } = registry();
    reg.apply(at(T0 + 5_000, "agent.register", { card }));
    reg.apply(at(T0, "agent.heartbeat", { agent_id: "agent:ken" }));
    expect(reg.get("agent:ken")!.last_seen).toBe(T0 + 5_000);
    const v2 = { ...card, capabilities: [{ id: "skill:research", version: "2.0" }] };
    reg.apply(at(T0 + 6_000, "agent.update", { card: v2 }));
    expect(reg.get("agent:ken")!.card.capabilities[0]!.version).toBe("2.0");
  });

  it("a workspace agent is offline until its first heartbeat, and keeps its manifest's card", () => {
    const { reg } = registry();
    reg.upsertWorkspaceAgent({ agent_id: "agent:ken", card, allowed_agents: [], overseer: null });
    expect(reg.isOnline("agent:ken")).toBe(false);
    reg.apply(at(T0, "agent.heartbeat", { agent_id: "agent:ken" }));
    expect(reg.isOnline("agent:ken")).toBe(true);
    reg.apply(at(T0, "agent.update", { card: { ...card, display: { name: "Other" } } }));
    expect(reg.get("agent:ken")).toMatchObject({ source: "workspace", card: { display: { name: "Ken" } } });
  });

  it("ignores heartbeats of agents it does not know", () => {
    const { reg } = registry();
    expect(reg.apply(at(T0, "agent.heartbeat", { agent_id: "agent:ghost" }))).toBe(false);
    expect(reg.list()).toEqual([]);
  });
});
