/** The wire protocol: ClutchMessage, AgentCard, payloads, ids, CAP (see docs/protocol.md). */
export * from "./ids";
export * from "./agent-card";
export * from "./payloads";
export * from "./envelope";
export * from "./build";
export * from "./cap";
export * from "./events";
export * from "./json-limits";
export * from "./imported";
