/**
 * Heartbeats do not grow the log forever (server/events/compaction.ts): a compaction round
 * deletes an agent's old heartbeats except its newest and those that mark a change of presence
 * (came online after a silence, the last before one, a change of status); recent ones all stay.
 * Nothing else may be deleted, and outside a compaction not even a heartbeat.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { conversationIds } from "@/server/events/threads";
import { databaseOf } from "@/server/events/testing";
import { chat, newThread, testClutch } from "./helpers";

let rt: Clutch;
beforeAll(async () => {
  rt = await testClutch();
});
afterAll(async () => {
  await rt?.stop();
});

const T0 = Date.parse("2026-01-05T09:00:00Z");
const minutes = (m: number) => new Date(T0 + m * 60_000).toISOString();

/** Heartbeats of `agent_id` at the given minutes after T0, each with its status. */
async function heartbeats(agent_id: string, at: [number, "online" | "busy"][]): Promise<StoredEvent[]> {
  const thread_id = await rt.store.systemThread("_agents", "Agent registrations and heartbeats");
  const { events } = await rt.store.append(
    at.map(([m, status]) =>
      makeMessage({ type: "agent.heartbeat", thread_id, ...conversationIds(thread_id), ts: minutes(m), from: { agent_id, role: "worker" }, to: [], payload: { agent_id, status, active_tasks: status === "busy" ? 1 : 0 } }),
    ),
  );
  return events;
}

const left = async (agent_id: string) =>
  (await rt.store.readAll({ thread_id: await rt.store.systemThread("_agents", "Agent registrations and heartbeats") })).filter((e) => e.type === "agent.heartbeat" && e.from.agent_id === agent_id).map((e) => e.ts);

describe("heartbeat compaction", () => {
  it("keeps each agent's newest heartbeat and its changes of presence, and deletes the rest", async () => {
    const x = `agent:hb-${newId("task").slice(-6).toLowerCase()}`;
    const y = `agent:hb-${newId("task").slice(-6).toLowerCase()}`;
    // x: online 0–2 min, silent for 8 min (offline), back at 10, busy at 11–11.5, online again at 12.
    await heartbeats(x, [[0, "online"], [0.5, "online"], [1, "online"], [1.5, "online"], [2, "online"], [10, "online"], [10.5, "online"], [11, "busy"], [11.5, "busy"], [12, "online"]]);
    // y: every 30 s, but recent: all kept.
    const now = new Date(T0 + 24 * 3600_000);
    await heartbeats(y, [[24 * 60 - 3, "online"], [24 * 60 - 2.5, "online"], [24 * 60 - 2, "online"]]);

    const deleted = await rt.store.compactHeartbeats({ offline_after_sec: 90, keep_recent_sec: 3600 }, now);
    expect(deleted).toBeGreaterThanOrEqual(4);
    expect(await left(x)).toEqual([minutes(0), minutes(2), minutes(10), minutes(11), minutes(12)]);
    expect(await left(y)).toHaveLength(3);
    // Presence reads the same: the newest heartbeat is still there.
    expect((await rt.store.queries.lastHeartbeat(x))?.ts).toBe(minutes(12));
    // A second round finds nothing more to delete for x.
    await rt.store.compactHeartbeats({ offline_after_sec: 90, keep_recent_sec: 3600 }, now);
    expect(await left(x)).toHaveLength(5);
  });

  it("leaves every other event alone, and outside a compaction no heartbeat may be deleted", async () => {
    const thread_id = await newThread(rt, "compact");
    const { events } = await rt.store.append(chat("stays", { thread_id, run_id: newId("run") }));
    await rt.store.compactHeartbeats({ offline_after_sec: 1, keep_recent_sec: 0 }, new Date(T0 + 86_400_000));
    expect((await rt.store.readAll({ thread_id })).map((e) => e.id)).toContain(events[0]!.id);
    const z = `agent:hb-${newId("task").slice(-6).toLowerCase()}`;
    await heartbeats(z, [[0, "online"], [0.5, "online"], [1, "online"]]);
    await expect(databaseOf(rt.store).$executeRawUnsafe(`DELETE FROM events WHERE type = 'agent.heartbeat' AND from_agent_id = $1`, z)).rejects.toThrow(/append-only/);
    expect(await left(z)).toHaveLength(3);
  });
});
