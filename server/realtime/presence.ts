/**
 * People's presence (docs/channels.md "Presence"; contract in lib/realtime/contract.ts): a
 * person is online while at least one socket of theirs is connected to this node, whatever
 * credential it used (session cookie or personal API key); agents have their own presence from
 * heartbeats (`agents.changed`) and are not counted here.
 *
 *   const presence = new PresenceTracker();
 *   presence.connect("user:ada", "sock-1");    // → "online"  (her first socket)
 *   presence.connect("user:ada", "sock-2");    // → null      (a second tab: no change)
 *   presence.disconnect("user:ada", "sock-1"); // → null      (one tab left)
 *   presence.disconnect("user:ada", "sock-2"); // → "offline" (her last socket)
 *   presence.online();                         // → []
 *
 * Ephemeral by design: nothing is stored, a restart starts with nobody online and clients,
 * reconnecting, make their people online again. Per node: with several nodes each counts its
 * own sockets (see docs/channels.md "Presence" for what several nodes would need).
 */
export type PresenceStatus = "online" | "offline";

export class PresenceTracker {
  /** Each online person's connected socket ids. */
  private readonly sockets = new Map<string, Set<string>>();

  /** A socket of `person` connected: "online" when it is their first, else null. */
  connect(person: string, socketId: string): PresenceStatus | null {
    let set = this.sockets.get(person);
    if (!set) this.sockets.set(person, (set = new Set()));
    const first = set.size === 0;
    set.add(socketId);
    return first ? "online" : null;
  }

  /** A socket of `person` disconnected: "offline" when it was their last, else null. */
  disconnect(person: string, socketId: string): PresenceStatus | null {
    const set = this.sockets.get(person);
    if (!set || !set.delete(socketId)) return null;
    if (set.size > 0) return null;
    this.sockets.delete(person);
    return "offline";
  }

  /** The `user:` ids of the people online now, sorted. */
  online(): string[] {
    return [...this.sockets.keys()].sort();
  }
}
