/**
 * Leader election (server/cluster/leader.ts): of two nodes of one deployment one leads; when its
 * session is lost it stops leading (its work told the session is gone) and the other takes over;
 * a leader that stops hands over after its work has stopped; a first term whose start fails
 * rejects and lets the lock go. Nodes of other deployments are not in the way.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { newId } from "@/lib/protocol";
import { LeaderLease } from "@/server/cluster/leader";

/** A lease with a log of its terms: "acquire", "release" or "lost", in order. */
function node(name: string, onAcquire: () => Promise<void> = async () => {}) {
  const terms: string[] = [];
  const lease = new LeaderLease({
    connectionString: inject("databaseUrl"),
    name,
    retryMs: 100,
    onAcquire: async () => {
      await onAcquire();
      terms.push("acquire");
    },
    onRelease: async (lost) => {
      terms.push(lost ? "lost" : "release");
    },
  });
  leases.push(lease);
  return { lease, terms };
}

const leases: LeaderLease[] = [];
afterEach(async () => {
  await Promise.all(leases.splice(0).map((l) => l.stop()));
});

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** End the database session of the lease of deployment `name` that holds its lock, as a lost connection would. */
async function terminateLeader(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: inject("databaseUrl") });
  await admin.connect();
  try {
    const r = await admin.query(
      `SELECT pg_terminate_backend(pid) AS done FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND objid::bigint = (hashtext($1)::bigint & 4294967295)`,
      [name],
    );
    expect(r.rowCount).toBe(1);
  } finally {
    await admin.end();
  }
}

describe.skipIf(inject("embeddedDatabase"))("leader election", () => {
  it("one of two nodes leads; when its session is lost the other takes over, and it stands by", async () => {
    const name = `test.${newId("task")}`;
    const a = node(name);
    const b = node(name);
    expect(await a.lease.start()).toBe(true);
    expect(await b.lease.start()).toBe(false);
    expect([a.lease.held, b.lease.held]).toEqual([true, false]);
    expect(a.terms).toEqual(["acquire"]);

    await terminateLeader(name);
    await until(() => b.lease.held, "the standby to lead");
    await until(() => a.terms.length === 2, "the old leader to end its term");
    expect(a.terms).toEqual(["acquire", "lost"]);
    expect(a.lease.held).toBe(false);
    expect(b.terms).toEqual(["acquire"]);

    // The old leader stands by: it leads again once the new one stops.
    await b.lease.stop();
    expect(b.terms).toEqual(["acquire", "release"]);
    await until(() => a.lease.held, "the first node to lead again");
    expect(a.terms).toEqual(["acquire", "lost", "acquire"]);
  });

  it("a leader that stops ends its term before the lock goes; other deployments lead on their own", async () => {
    const name = `test.${newId("task")}`;
    const a = node(name);
    const other = node(`test.${newId("task")}`);
    expect(await a.lease.start()).toBe(true);
    expect(await other.lease.start()).toBe(true);
    const b = node(name, async () => {
      if (!a.terms.includes("release")) throw new Error("a second leader while the first one's term went on");
    });
    expect(await b.lease.start()).toBe(false);
    await a.lease.stop();
    await until(() => b.lease.held, "the second node to lead");
    expect(b.terms).toEqual(["acquire"]);
    expect(other.lease.held).toBe(true);
  });

  it("a first term that fails to start rejects, and the lock is free for another node", async () => {
    const name = `test.${newId("task")}`;
    const a = node(name, async () => {
      throw new Error("recovery failed");
    });
    await expect(a.lease.start()).rejects.toThrow("recovery failed");
    expect(a.lease.held).toBe(false);
    expect(a.terms).toEqual(["release"]);
    const b = node(name);
    expect(await b.lease.start()).toBe(true);
  });
});
