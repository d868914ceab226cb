/**
 * Heartbeat compaction (docs/architecture.md "Heartbeat compaction"): agents send a heartbeat
 * every `heartbeat_interval_sec`, which would grow the log by millions of events a month. Older
 * than `keep_recent_sec`, a heartbeat is deleted unless it is the agent's newest or marks a change
 * of presence: the first after a silence longer than `offline_after_sec` (it came online), the last
 * before one (it went offline), or one whose status differs from the one before (online ↔ busy).
 * What the registry, the directory and presence read is therefore unchanged.
 *
 * The log is append-only by its trigger; a compaction transaction sets `clutch.compacting`, which
 * lets it delete agent.heartbeat events only. One node compacts at a time (a transaction-level
 * advisory lock); the others skip that round. Seqs of deleted heartbeats leave gaps, which readers
 * page over as they do over other threads' events.
 */
import type { Db } from "../db/client";

/** Arbitrary constant naming the advisory lock of compaction rounds. */
const COMPACTION_LOCK_KEY = 0x436c6862; // "Clhb"

export interface CompactionSettings {
  /** Seconds of silence after which an agent counts as offline (registry: interval × missed). */
  offline_after_sec: number;
  /** Heartbeats younger than this are all kept (recent history), seconds. */
  keep_recent_sec: number;
}

/**
 * One compaction round at `now`; resolves with how many heartbeats it deleted (0 when another
 * node holds the round).
 */
export async function compactHeartbeats(db: Db, settings: CompactionSettings, now: Date = new Date()): Promise<number> {
  return db.$transaction(async (tx) => {
    const [lock] = await tx.$queryRawUnsafe<{ ok: boolean }[]>(`SELECT pg_try_advisory_xact_lock(${COMPACTION_LOCK_KEY}) AS ok`);
    if (!lock?.ok) return 0;
    await tx.$executeRawUnsafe(`SELECT set_config('clutch.compacting', 'on', true)`);
    return tx.$executeRawUnsafe(
      `WITH hb AS (
         SELECT seq, ts,
                lag(ts) OVER w AS prev_ts,
                lead(ts) OVER w AS next_ts,
                lag(payload->>'status') OVER w AS prev_status,
                payload->>'status' AS status,
                row_number() OVER (PARTITION BY from_agent_id ORDER BY seq DESC) AS newest
         FROM events
         WHERE type = 'agent.heartbeat'
         WINDOW w AS (PARTITION BY from_agent_id ORDER BY seq)
       )
       DELETE FROM events e USING hb
       WHERE e.seq = hb.seq
         AND hb.newest > 1
         AND hb.ts < $1::timestamptz - make_interval(secs => $2)
         AND hb.prev_ts IS NOT NULL AND hb.ts - hb.prev_ts <= make_interval(secs => $3)
         AND hb.next_ts IS NOT NULL AND hb.next_ts - hb.ts <= make_interval(secs => $3)
         AND hb.status IS NOT DISTINCT FROM hb.prev_status`,
      now.toISOString(),
      settings.keep_recent_sec,
      settings.offline_after_sec,
    );
  });
}
