/** Shared by the channel membership routes: who may manage a channel, and its members with names. */
import { ClutchError } from "@/server/errors";
import type { PersonPrincipal } from "@/server/auth/principal";
import { getClutch } from "@/server/instance";

/**
 * Admins and members (not guests) who may read the channel manage its members and visibility.
 * Throws unknown_thread (404) when the channel is not readable, forbidden (403) for guests.
 */
export async function assertManager(p: PersonPrincipal, thread_id: string): Promise<void> {
  await getClutch().identity.channels.assertRead(p, thread_id);
  if (p.role === "guest") throw new ClutchError("forbidden", "guests cannot change a channel's members or visibility", 403);
}

/** The channel's members with their display names, oldest first. */
export async function membersOf(thread_id: string) {
  const { identity } = getClutch();
  const rows = await identity.channels.members(thread_id);
  return Promise.all(rows.map(async (r) => ({ ...r, name: await identity.nameOf(r.member) })));
}
