/**
 * How far each person has read each channel (docs/channels.md "Welcome, drafts and reading"),
 * the `read_marks` table: the channel's `last_seq` and `message_count` (lib/unread.ts) as of
 * the person's last read. A person who joins starts with every channel they may read marked
 * read to its end, so the backlog is history, not unread; marks only ever move forward. The
 * sidebar's unread badges (`ThreadSummary.read`) and the For you inbox's unread items
 * (server/inbox/inbox.ts) read them. A channel with no mark for a person falls back to what
 * their browser remembers. "Mark unread" (`markUnreadFrom`) is the one move back, on the
 * person's explicit request.
 */
import { THREAD_CREATED, unreadSql } from "@/lib/unread";
import type { Db } from "../db/client";

/** Where a person has read a channel up to: a seq of the log, and a count of unread-worthy events. */
export interface ReadMarkView {
  seq: number;
  count: number;
}

export class ReadMarks {
  constructor(private readonly db: Db) {}

  /**
   * Marks channels `thread_ids` read to their current end for `member` (`user:<id>`), where
   * the member has no mark yet (a mark already there is kept). Returns how many were set.
   */
  async startAtEnd(member: string, thread_ids: readonly string[]): Promise<number> {
    if (!thread_ids.length) return 0;
    return this.db.$executeRawUnsafe(
      `INSERT INTO read_marks (member, thread_id, read_seq, read_count)
       SELECT $1, id, last_seq, message_count FROM threads WHERE id = ANY($2::text[])
       ON CONFLICT (member, thread_id) DO NOTHING`,
      member,
      [...thread_ids],
    );
  }

  /**
   * Records that `member` has read `thread_id` up to `seq` (a log seq) and `count` (the
   * channel's `message_count` they saw), each capped at the channel's current values and never
   * moved back. Returns the mark as stored, or null for an unknown channel.
   */
  async mark(member: string, thread_id: string, seq: number, count: number): Promise<ReadMarkView | null> {
    const rows = await this.db.$queryRawUnsafe<{ read_seq: bigint; read_count: number }[]>(
      `INSERT INTO read_marks AS m (member, thread_id, read_seq, read_count, updated_at)
       SELECT $1, t.id, LEAST($3::bigint, t.last_seq), LEAST($4::int, t.message_count), now() FROM threads t WHERE t.id = $2
       ON CONFLICT (member, thread_id) DO UPDATE SET
         read_seq = GREATEST(m.read_seq, EXCLUDED.read_seq),
         read_count = GREATEST(m.read_count, EXCLUDED.read_count),
         updated_at = now()
       RETURNING read_seq, read_count`,
      member,
      thread_id,
      Math.max(0, Math.floor(seq)),
      Math.max(0, Math.floor(count)),
    );
    const row = rows[0];
    return row ? { seq: Number(row.read_seq), count: row.read_count } : null;
  }

  /**
   * "Mark unread" (docs/channels.md "Message actions"): `member` has read `thread_id` up to just
   * before the event at `seq`, so it and everything after it are unread again. Moves the mark
   * back (or forward) to `seq - 1`, whatever it was; the count is the channel's `message_count`
   * less the unread-worthy events from `seq` on (lib/unread.ts `countsAsUnread`, in SQL
   * `unreadSql`), so
   * `message_count - count` is exactly those. Returns the mark as stored, or null for an unknown
   * channel. One statement.
   */
  async markUnreadFrom(member: string, thread_id: string, seq: number): Promise<ReadMarkView | null> {
    const rows = await this.db.$queryRawUnsafe<{ read_seq: bigint; read_count: number }[]>(
      `WITH later AS (
         SELECT count(*)::int AS n FROM events e
          WHERE e.thread_id = $2 AND e.seq >= $3 AND ${unreadSql("$4")}
       )
       INSERT INTO read_marks AS m (member, thread_id, read_seq, read_count, updated_at)
       SELECT $1, t.id, LEAST(GREATEST($3::bigint - 1, 0), t.last_seq), GREATEST(t.message_count - later.n, 0), now() FROM threads t, later WHERE t.id = $2
       ON CONFLICT (member, thread_id) DO UPDATE SET read_seq = EXCLUDED.read_seq, read_count = EXCLUDED.read_count, updated_at = now()
       RETURNING read_seq, read_count`,
      member,
      thread_id,
      Math.max(1, Math.floor(seq)),
      THREAD_CREATED,
    );
    const row = rows[0];
    return row ? { seq: Number(row.read_seq), count: row.read_count } : null;
  }

  /** `member`'s marks, by channel id (channels without a mark are left out). */
  async of(member: string): Promise<Map<string, ReadMarkView>> {
    const rows = await this.db.readMark.findMany({ where: { member }, select: { thread_id: true, read_seq: true, read_count: true } });
    return new Map(rows.map((r) => [r.thread_id, { seq: Number(r.read_seq), count: r.read_count }]));
  }
}
