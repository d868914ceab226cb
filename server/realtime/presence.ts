/**
 * People's presence (docs/channels.md "Presence"; contract in lib/realtime/contract.ts): a
 * person is online while at least one socket of theirs is connected to any node of the
 * deployment, whatever credential it used (session cookie or personal API key); agents have
 * their own presence from heartbeats (`agents.changed`) and are not counted here.
 *
 *   const presence = new PresenceTracker({ bus });   // bus: the deployment's (server/streams/bus.ts)
 *   presence.onChange((person, status) => io.emit("presence.changed", { agent_id: person, status }));
 *   presence.connect("user:ada", "sock-1");    // → "online"  (her first socket on any node)
 *   presence.connect("user:ada", "sock-2");    // → null      (a second tab: no change)
 *   presence.disconnect("user:ada", "sock-1"); // → null      (one tab left)
 *   presence.disconnect("user:ada", "sock-2"); // → "offline" (her last socket)
 *   presence.online();                         // → []
 *
 * Each node counts its own sockets and tells the others over the bus (PostgreSQL NOTIFY on the
 * deployment's channel): a change at once (`{ p: { node, person, status } }`), and every
 * `heartbeatMs` (default 5 s) the whole list of its people (`{ p: { node, online, part, parts } }`,
 * in parts that fit a notification). A node not heard from for `expireMs` (default 15 s) has
 * stopped: its people go offline unless another node has them. `onChange` hears every change of
 * the deployment-wide answer, whichever node caused it.
 *
 * Ephemeral by design: nothing is stored, a restart starts with nobody online here, and clients,
 * reconnecting, make their people online again.
 */
import { randomUUID } from "node:crypto";
import { LocalBus, MAX_MESSAGE_BYTES, type StreamBus } from "../streams/bus";

export type PresenceStatus = "online" | "offline";

/** What one node says on the bus. */
type PresenceWire = { node: string; person: string; status: PresenceStatus } | { node: string; online: string[]; part: number; parts: number };

export interface PresenceOptions {
  /** The deployment's bus; absent: this node alone. */
  bus?: StreamBus;
  /** How often this node sends its whole list, ms (default 5000). */
  heartbeatMs?: number;
  /** How long another node's list holds without a word from it, ms (default 15000). */
  expireMs?: number;
}

export class PresenceTracker {
  /** Each person's connected socket ids on this node. */
  private readonly sockets = new Map<string, Set<string>>();
  /** The people other nodes have, and until when that holds. */
  private readonly remote = new Map<string, { people: Set<string>; expires_at: number; pending: Set<string> | null }>();
  private readonly listeners = new Set<(person: string, status: PresenceStatus) => void>();
  private readonly node = randomUUID();
  private readonly bus: StreamBus;
  private readonly expireMs: number;
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(options: PresenceOptions = {}) {
    this.bus = options.bus ?? new LocalBus();
    this.expireMs = options.expireMs ?? 15_000;
    this.unsubscribe = this.bus.subscribe((raw) => this.fromBus(raw));
    this.timer = setInterval(() => this.tick(), options.heartbeatMs ?? 5_000);
    this.timer.unref();
  }

  /** Hear every change of who is online in the deployment. Returns the unsubscribe. */
  onChange(listener: (person: string, status: PresenceStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A socket of `person` connected here: "online" when they were online nowhere before, else null. */
  connect(person: string, socketId: string): PresenceStatus | null {
    let set = this.sockets.get(person);
    if (!set) this.sockets.set(person, (set = new Set()));
    if (set.size > 0) {
      set.add(socketId);
      return null;
    }
    return this.change(person, () => {
      set.add(socketId);
      this.publish({ node: this.node, person, status: "online" });
    });
  }

  /** A socket of `person` disconnected here: "offline" when it was their last anywhere, else null. */
  disconnect(person: string, socketId: string): PresenceStatus | null {
    const set = this.sockets.get(person);
    if (!set?.has(socketId)) return null;
    if (set.size > 1) {
      set.delete(socketId);
      return null;
    }
    const status = this.change(person, () => this.sockets.delete(person));
    this.publish({ node: this.node, person, status: "offline" });
    return status;
  }

  /** The `user:` ids of the people online now on any node, sorted. */
  online(): string[] {
    const all = new Set(this.sockets.keys());
    for (const r of this.remote.values()) for (const p of r.people) all.add(p);
    return [...all].sort();
  }

  /** Stop hearing the bus and sending heartbeats (the bus itself is its owner's to close). */
  close(): void {
    clearInterval(this.timer);
    this.unsubscribe();
  }

  private isOnline(person: string): boolean {
    if (this.sockets.get(person)?.size) return true;
    for (const r of this.remote.values()) if (r.people.has(person)) return true;
    return false;
  }

  /** Run `fn`, and tell the listeners when it changed whether `person` is online; returns the new status then, else null. */
  private change(person: string, fn: () => void): PresenceStatus | null {
    const before = this.isOnline(person);
    fn();
    const after = this.isOnline(person);
    if (before === after) return null;
    const status: PresenceStatus = after ? "online" : "offline";
    for (const l of this.listeners) l(person, status);
    return status;
  }

  private publish(wire: PresenceWire): void {
    this.bus.publish(JSON.stringify({ p: wire }));
  }

  /** Send this node's whole list (in parts under the bus's limit) and drop the nodes that fell silent. */
  private tick(): void {
    const people = [...this.sockets.keys()];
    const parts: string[][] = [[]];
    let bytes = 0;
    for (const p of people) {
      const size = Buffer.byteLength(p) + 4; // the id, its quotes and comma
      if (bytes + size > MAX_MESSAGE_BYTES - 200 && parts.at(-1)!.length) {
        parts.push([]);
        bytes = 0;
      }
      parts.at(-1)!.push(p);
      bytes += size;
    }
    parts.forEach((online, i) => this.publish({ node: this.node, online, part: i, parts: parts.length }));
    const now = Date.now();
    for (const [node, r] of this.remote) {
      if (r.expires_at > now) continue;
      this.remote.delete(node);
      for (const person of r.people) if (!this.isOnline(person)) for (const l of this.listeners) l(person, "offline");
    }
  }

  private fromBus(raw: string): void {
    let wire: PresenceWire;
    try {
      const parsed = JSON.parse(raw) as { p?: PresenceWire };
      if (!parsed.p || typeof parsed.p !== "object" || parsed.p.node === this.node) return;
      wire = parsed.p;
    } catch {
      return;
    }
    let r = this.remote.get(wire.node);
    if (!r) this.remote.set(wire.node, (r = { people: new Set(), expires_at: 0, pending: null }));
    r.expires_at = Date.now() + this.expireMs;
    const node = r;
    if ("person" in wire) {
      this.change(wire.person, () => (wire.status === "online" ? node.people.add(wire.person) : node.people.delete(wire.person)));
      return;
    }
    if (wire.part === 0) node.pending = new Set();
    if (!node.pending) return; // a list whose first part was missed: the next heartbeat brings it whole
    for (const p of wire.online) node.pending.add(p);
    if (wire.part !== wire.parts - 1) return;
    const next = node.pending;
    node.pending = null;
    const touched = new Set([...node.people, ...next]);
    for (const person of touched) {
      this.change(person, () => {
        if (next.has(person)) node.people.add(person);
        else node.people.delete(person);
      });
    }
  }
}
