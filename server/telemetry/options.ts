/**
 * What the trace export is given and what it is (docs/observability.md "Traces (OpenTelemetry)"):
 * shared by ./index.ts, which the rest of Clutch imports, and ./export.ts, the SDK it loads.
 */
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";

/** Environment variables, as `process.env` holds them. */
export type Env = Record<string, string | undefined>;

/** What `startTraces` needs from Clutch. */
export interface TraceExportOptions {
  store: EventStore;
  tail: EventTail;
  /** An agent's display name (its card's), undefined when unknown. */
  nameOf: (agent_id: string) => string | undefined;
  /** Whether this node sends spans now: the one doing the agents' work (server/clutch.ts). */
  exporting: () => boolean;
  /** Clutch's version, the resource's `service.version`. */
  version: string;
  /**
   * Send the titles, summaries and messages of runs in private channels and DMs too
   * (CLUTCH_TRACE_PRIVATE_CONTENT); false: "(private)" in their place (./tracer.ts).
   */
  privateContent?: boolean;
  /** The variables to read (default process.env). */
  env?: Env;
}

/** A running trace export. */
export interface TraceExport {
  /** Resolves once every event followed so far is read and its spans handed to the exporter. */
  flush(): Promise<void>;
  /** Stop following the log and send what is queued, waiting a few seconds at most. */
  stop(): Promise<void>;
}
