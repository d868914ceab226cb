/**
 * What Clutch's endpoints for other protocols (A2A §7.2, ACP, AG-UI, AutoGen runs §7.3;
 * docs/adapters.md) use of the running Clutch. server/clutch.ts's `Clutch` has every part, so
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
  store: EventStore;
  tail: EventTail;
  identity: Identity;
  registry: AgentRegistry;
  workspace: Workspace;
  channels: ChannelBinding[];
  streams: StreamHub;
  bus: StreamBus;
  a2aTasks: A2ATaskRecords;
  version: string;
}
