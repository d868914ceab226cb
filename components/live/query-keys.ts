/** TanStack Query keys for server state. */
export const queryKeys = {
  threads: ["threads"] as const,
  /** `GET /api/workspace` (the workspace's channels: entry agents, who answers, suggestions). */
  workspaceChannels: ["workspace-channels"] as const,
  threadEvents: (threadId: string) => ["thread-events", threadId] as const,
  /** `GET /api/agents` (the sidebar, the agent directory). */
  agents: ["agents"] as const,
  /** `GET /api/threads/:id/runs` (the channel's run headers). */
  threadRuns: (threadId: string) => ["thread-runs", threadId] as const,
  /** `GET /api/schemas` (the /schemas page). */
  schemas: ["schemas"] as const,
  /** `GET /api/workflows` and one workflow. */
  workflows: ["workflows"] as const,
  workflow: (name: string) => ["workflows", name] as const,
  /** `GET /api/schemas/<name>@<version>`. */
  schema: (ref: string) => ["schemas", ref] as const,
};

/** The cached shape of one channel's events: ascending by seq, unique by seq. */
export interface ThreadEventsData {
  events: import("@/lib/protocol").StoredEvent[];
  /** True while older events exist on the server that we have not loaded. */
  hasMoreBefore: boolean;
}
