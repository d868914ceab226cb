/**
 * What Clutch's endpoints for other protocols (A2A §7.2, ACP, AG-UI, AutoGen runs §7.3;
 * docs/adapters.md) use of the running Clutch. server/clutch.ts's `Clutch` extends it, so
 * server.ts and the route handlers hand them the running Clutch; this type keeps the endpoints
 * below it (docs/architecture.md "Layers").
 */
import type { Identity } from "../auth/identity";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import type { ChannelBinding } from "../orchestrator/orchestrator";
import type { AgentRegistry } from "../router/registry";
import type { StreamBus } from "../streams/bus";
import type { StreamHub } from "../streams/hub";
import type { Workspace } from "../workspace/workspace";
import type { A2ATaskRecords } from "./a2a/tasks";

export interface ClutchParts {
  /** The log: append, read, named queries (server/events). */
  store: EventStore;
  /** Every committed event in seq order, after commit. */
  tail: EventTail;
  /** Who is speaking: people, API keys, channel access (server/auth). */
  identity: Identity;
  /** Every registered agent and its presence, kept up to date from the tail. */
  registry: AgentRegistry;
  /** The workspace the agents come from; NO_WORKSPACE when Clutch runs without one. */
  workspace: Workspace;
  /** The workspace's channels, each with its thread id and entry agent. */
  channels: ChannelBinding[];
  /** Replies being written, agents' statuses and people typing, shared by the deployment's processes (server/streams/hub.ts). */
  streams: StreamHub;
  /** The deployment's bus (PostgreSQL NOTIFY; in-process on the embedded database): the streams' and people's presence (server/streams/bus.ts). */
  bus: StreamBus;
  /** The A2A tasks this deployment's A2A endpoints serve, on the database (server/adapters/a2a/tasks.ts). */
  a2aTasks: A2ATaskRecords;
  /** Clutch's version (package.json). */
  version: string;
}
