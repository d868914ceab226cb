/**
 * Who may see and post in which channel (docs/identity.md, "Channels"):
 *
 * - system (Clutch, workspace agents): every channel.
 * - members and admins: every public channel, and the private ones they are members of.
 * - guests: only channels they are members of.
 * - external agents (API key): every public channel and the private ones they are members of.
 *
 * Private channels stay private from admins who are not members too; an admin manages who is
 * in one from the channel list of the admin page. Runs, tasks, approvals and events belong to
 * their channel and are visible exactly when it is.
 */
import type { Db } from "../db/client";
import { ClutchError } from "../errors";
import type { Principal } from "./principal";

/** Channels a principal may read: every one, or exactly these ids. */
export type Readable = { all: true } | { all: false; ids: ReadonlySet<string> };

/** A channel as one principal sees it: its visibility, and whether the principal is a member. */
export interface ChannelRow {
  visibility: string;
  member: boolean;
}

/** May `p` read a channel with this row (the rules of the module doc). */
export function readableBy(p: Principal, row: ChannelRow): boolean {
  if (p.kind === "system") return true;
  if (row.visibility === "public" && !(p.kind === "person" && p.role === "guest")) return true;
  return row.member;
}

export class ChannelAccess {
  /**
   * `changed`: called before and after every change of a channel's members or visibility made
   * here, with the channel's id (the append authorizer's cache forgets what it knew:
   * server/auth/append-cache.ts).
   */
  constructor(
    private readonly db: Db,
    private readonly changed: (thread_id: string) => void = () => {},
  ) {}

  /** The channels `p` may read (and post in). */
  async readable(p: Principal): Promise<Readable> {
    if (p.kind === "system") return { all: true };
    const [mine, open] = await Promise.all([
      this.db.threadMember.findMany({ where: { member: p.agent_id }, select: { thread_id: true } }),
      p.kind === "person" && p.role === "guest" ? Promise.resolve([]) : this.db.thread.findMany({ where: { visibility: "public" }, select: { id: true } }),
    ]);
    return { all: false, ids: new Set([...mine.map((m) => m.thread_id), ...open.map((t) => t.id)]) };
  }

  /** True when `p` may read channel `thread_id` (false for an unknown channel). */
  async canRead(p: Principal, thread_id: string): Promise<boolean> {
    if (p.kind === "system") return true;
    const row = await this.row(thread_id, p.agent_id);
    return row !== null && readableBy(p, row);
  }

  /** Channel `thread_id` as `agent_id` sees it, or null for an unknown channel. One statement: it runs for every read of a channel. */
  async row(thread_id: string, agent_id: string): Promise<ChannelRow | null> {
    const [thread] = await this.db.$queryRawUnsafe<ChannelRow[]>(
      `SELECT t.visibility, EXISTS (SELECT 1 FROM thread_members m WHERE m.thread_id = t.id AND m.member = $2) AS member FROM threads t WHERE t.id = $1`,
      thread_id,
      agent_id,
    );
    return thread ?? null;
  }

  /**
   * Throws ClutchError unknown_thread (404) when `p` may not read the channel: a channel one may
   * not see answers exactly like one that does not exist, so its name and existence do not leak.
   */
  async assertRead(p: Principal, thread_id: string): Promise<void> {
    if (!(await this.canRead(p, thread_id))) throw new ClutchError("unknown_thread", `thread ${thread_id} does not exist`, 404);
  }

  /**
   * The people who may read channel `thread_id` (and so may be @mentioned in it,
   * docs/channels.md "Mentions"): of a public channel every admin and member and the guests
   * added to it, of a private one its members. `agent_id` is `user:<id>`; sorted by name; empty
   * for an unknown channel.
   */
  async people(thread_id: string): Promise<{ agent_id: string; name: string; role: string }[]> {
    const thread = await this.db.thread.findUnique({ where: { id: thread_id }, select: { visibility: true } });
    if (!thread) return [];
    const rows = await this.db.threadMember.findMany({ where: { thread_id, member: { startsWith: "user:" } }, select: { member: true } });
    const members = rows.map((r) => r.member.slice("user:".length));
    const users = await this.db.user.findMany({
      where: thread.visibility === "public" ? { OR: [{ role: { not: "guest" } }, { id: { in: members } }] } : { id: { in: members } },
      select: { id: true, name: true, role: true },
      orderBy: { name: "asc" },
    });
    return users.map((u) => ({ agent_id: `user:${u.id}`, name: u.name, role: u.role }));
  }

  /** The members of a channel (`user:<id>` / `agent:<id>`), oldest first. */
  async members(thread_id: string): Promise<{ member: string; added_by: string; added_at: string }[]> {
    const rows = await this.db.threadMember.findMany({ where: { thread_id }, orderBy: { added_at: "asc" } });
    return rows.map((r) => ({ member: r.member, added_by: r.added_by, added_at: r.added_at.toISOString() }));
  }

  /** Add `member`; false when it already was one. */
  async add(thread_id: string, member: string, added_by: string): Promise<boolean> {
    return this.changing(thread_id, async () => (await this.db.threadMember.createMany({ data: [{ thread_id, member, added_by }], skipDuplicates: true })).count > 0);
  }

  /** Remove `member`; false when it was not one. */
  async remove(thread_id: string, member: string): Promise<boolean> {
    return this.changing(thread_id, async () => (await this.db.threadMember.deleteMany({ where: { thread_id, member } })).count > 0);
  }

  async setVisibility(thread_id: string, visibility: "public" | "private"): Promise<void> {
    await this.changing(thread_id, () => this.db.thread.update({ where: { id: thread_id }, data: { visibility } }));
  }

  /** Run `write`, telling `changed` before and after (after even when it failed: it may have committed). */
  private async changing<T>(thread_id: string, write: () => Promise<T>): Promise<T> {
    this.changed(thread_id);
    try {
      return await write();
    } finally {
      this.changed(thread_id);
    }
  }
}
