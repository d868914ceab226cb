/**
 * The agent registry (Clutch Protocol §1.4 AgentCard, §2.4 agent lifecycle, §11 step 3 "agent
 * registry + heartbeat"). Folded from the log: the newest agent.register/agent.update
 * gives an agent's card, and agent.register/update/heartbeat events are signs of life.
 *
 * Presence: an agent is online while its newest sign of life is at most
 * `heartbeat_interval_sec × offline_after_missed` seconds old on the registry's clock
 * (swappable, for tests); `tick()` notices agents that went offline without any event and tells
 * listeners. Nothing is stored for that: presence is derived from the log and the clock.
 */
import { isEvent, type AgentCard, type StoredEvent } from "@/lib/protocol";
import type { Queries } from "../events/queries";

export interface RegistryConfig {
  /** Seconds between the heartbeats agents are expected to send (default 30). */
  heartbeat_interval_sec: number;
  /** Missed heartbeats after which an agent counts as offline (default 3). */
  offline_after_missed: number;
}
export const DEFAULT_REGISTRY_CONFIG: RegistryConfig = { heartbeat_interval_sec: 30, offline_after_missed: 3 };

/** One registered agent. */
export interface RegisteredAgent {
  agent_id: string;
  card: AgentCard;
  /** `workspace` agents are run by this server from CAP manifests; `external` ones registered by API. */
  source: "workspace" | "external";
  /** ms since the epoch of the newest sign of life; null when never seen. */
  last_seen: number | null;
  allowed_agents: string[];
  overseer: string | null;
}

export class AgentRegistry {
  private agents = new Map<string, RegisteredAgent>();
  private online = new Map<string, boolean>();
  private listeners = new Set<(changed: string[]) => void>();
  private timer: NodeJS.Timeout | null = null;
  readonly config: RegistryConfig;

  /** `config` over DEFAULT_REGISTRY_CONFIG; `now` is the clock (ms since the epoch, default Date.now). */
  constructor(opts: { config?: Partial<RegistryConfig>; now?: () => number } = {}) {
    this.config = { ...DEFAULT_REGISTRY_CONFIG, ...opts.config };
    this.now = opts.now ?? Date.now;
  }

  /** The registry's clock, ms since the epoch. */
  now: () => number;

  /** Seconds without a sign of life after which an agent is offline. */
  get offlineAfterSec(): number {
    return this.config.heartbeat_interval_sec * this.config.offline_after_missed;
  }

  /**
   * Read every agent's newest card and newest heartbeat from the log: one indexed query for the
   * cards and one per agent for its heartbeat, however many heartbeats the log holds.
   */
  async load(queries: Queries): Promise<void> {
    for (const ev of await queries.latestCards()) this.apply(ev, { quiet: true });
    for (const id of this.agents.keys()) {
      const beat = await queries.lastHeartbeat(id);
      if (beat) this.apply(beat, { quiet: true });
      this.online.set(id, this.isOnline(id));
    }
  }

  /**
   * A workspace agent (CAP manifest) run by this server: its card and CAP permissions. It is
   * online once its first heartbeat is in the log.
   */
  upsertWorkspaceAgent(a: { agent_id: string; card: AgentCard; allowed_agents: string[]; overseer: string | null }): void {
    const prev = this.agents.get(a.agent_id);
    this.agents.set(a.agent_id, { ...a, source: "workspace", last_seen: prev?.last_seen ?? null });
  }

  /** Fold one event; returns whether an agent's card or presence changed. */
  apply(ev: StoredEvent, opts: { quiet?: boolean } = {}): boolean {
    if (!isEvent(ev, "agent.register", "agent.update", "agent.heartbeat")) return false;
    const at = Date.parse(ev.ts);
    const card = isEvent(ev, "agent.heartbeat") ? undefined : ev.payload.card;
    const id = isEvent(ev, "agent.heartbeat") ? (ev.payload.agent_id ?? ev.from.agent_id) : (card?.agent_id ?? ev.from.agent_id);
    let agent = this.agents.get(id);
    if (card) {
      agent = agent
        ? { ...agent, card: agent.source === "workspace" ? agent.card : card }
        : { agent_id: id, card, source: "external", last_seen: null, allowed_agents: [], overseer: null };
      this.agents.set(id, agent);
    }
    if (!agent) return false;
    if (agent.last_seen === null || at > agent.last_seen) agent.last_seen = at;
    if (opts.quiet) return true;
    const was = this.online.get(id);
    const is = this.isOnline(id);
    this.online.set(id, is);
    const changed = ev.type !== "agent.heartbeat" || was !== is;
    if (changed) this.emit([id]);
    return changed;
  }

  /** Whether the agent's newest sign of life is recent enough. */
  isOnline(agent_id: string): boolean {
    const seen = this.agents.get(agent_id)?.last_seen;
    return seen != null && this.now() - seen <= this.offlineAfterSec * 1000;
  }

  has(agent_id: string): boolean {
    return this.agents.has(agent_id);
  }

  get(agent_id: string): RegisteredAgent | undefined {
    return this.agents.get(agent_id);
  }

  list(): RegisteredAgent[] {
    return [...this.agents.values()];
  }

  /** Notice presence changes that no event announced (an agent whose heartbeats stopped). */
  tick(): string[] {
    const changed: string[] = [];
    for (const id of this.agents.keys()) {
      const is = this.isOnline(id);
      if (this.online.get(id) !== is) {
        this.online.set(id, is);
        changed.push(id);
      }
    }
    if (changed.length) this.emit(changed);
    return changed;
  }

  /** Call `fn` with the ids whose card or presence changed. Returns the unsubscribe. */
  onChange(fn: (changed: string[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Check presence every second (unref'd). */
  start(): void {
    this.timer ??= setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private emit(ids: string[]) {
    for (const fn of this.listeners) fn(ids);
  }
}
