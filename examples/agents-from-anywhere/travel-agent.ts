/**
 * travel-1's A2A agent (examples/agents-from-anywhere/README.md): a travel agent on the official
 * `@a2a-js/sdk` server (Express, JSON-RPC, A2A 1.0 with the v0.3 compatibility layer on), scripted
 * so it runs without a model. Clutch's tests and e2e runs start it too.
 *   a request that names a day  → an artifact "itinerary" ("Flight booked for <day>: <request>"), completed
 *   one that does not           → working "Looking at flights…", then input-required "Which day do
 *                                 you fly?"; the answer (a second message on the same task)
 *                                 completes it with the itinerary for that day
 *   "[slow]" (for tests)        → working, then nothing until cancelled (it reports CANCELED)
 *   "[fail]" (for tests)        → failed "No seats left"
 * `received` holds every message it got (with the task it continues, if any, and its headers),
 * `cancelled` the task ids it was asked to cancel.
 *
 * Run on its own: `PORT=41241 node --import tsx examples/agents-from-anywhere/travel-agent.ts`
 * (its card is then at http://127.0.0.1:41241/.well-known/agent-card.json).
 */
import http from "node:http";
import { pathToFileURL } from "node:url";
import type { AddressInfo } from "node:net";
import express from "express";
import { Role, TaskState, type AgentCard, type Message, type TaskStatus } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, STATE_HEADERS_KEY, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";

export interface ScriptedA2AAgent {
  /** The AgentCard URL (what a manifest's `runtime.card_url` names). */
  card_url: string;
  received: { text: string; taskId: string; headers: Record<string, unknown> }[];
  cancelled: string[];
  close(): Promise<void>;
}

const part = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const agentMessage = (text: string, taskId: string, contextId: string): Message => ({
  messageId: crypto.randomUUID(),
  role: Role.ROLE_AGENT,
  parts: [part(text)],
  taskId,
  contextId,
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
});
const textOf = (m: Message) => m.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

const DAY = /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow)\b/i;

class TravelAgent implements AgentExecutor {
  readonly stopping = new Set<string>();
  closing = false;
  constructor(private readonly log: ScriptedA2AAgent) {}

  cancelTask = async (taskId: string): Promise<void> => {
    this.log.cancelled.push(taskId);
    this.stopping.add(taskId);
  };

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = rc;
    const text = textOf(userMessage);
    this.log.received.push({ text, taskId: rc.task ? taskId : "", headers: (rc.context.state.get(STATE_HEADERS_KEY) ?? {}) as Record<string, unknown> });
    const status = (state: TaskState, message?: string): TaskStatus => ({ state, timestamp: new Date().toISOString(), message: message ? agentMessage(message, taskId, contextId) : undefined });
    const update = (state: TaskState, message?: string) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: {} }));
    const artifact = (name: string, value: string) =>
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: name, name, description: "", parts: [part(value)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));

    if (rc.task) {
      // The answer to input-required, on the same task.
      bus.publish(AgentEvent.task(rc.task));
      artifact("itinerary", `Flight booked for ${text.trim()}.`);
      update(TaskState.TASK_STATE_COMPLETED, "Booked.");
      return;
    }
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [userMessage], metadata: {} }));
    if (text.includes("[fail]")) {
      update(TaskState.TASK_STATE_FAILED, "No seats left");
      return;
    }
    if (text.includes("[slow]")) {
      update(TaskState.TASK_STATE_WORKING, "Searching every airline…");
      while (!this.stopping.has(taskId) && !this.closing) await new Promise((r) => setTimeout(r, 20));
      update(TaskState.TASK_STATE_CANCELED, "Stopped as asked.");
      return;
    }
    const day = DAY.exec(text)?.[0];
    if (!day) {
      update(TaskState.TASK_STATE_WORKING, "Looking at flights…");
      update(TaskState.TASK_STATE_INPUT_REQUIRED, "Which day do you fly?");
      return;
    }
    artifact("itinerary", `Flight booked for ${day}: ${text.split("\n")[0]}`);
    update(TaskState.TASK_STATE_COMPLETED, "Booked.");
  }
}

/** Start the agent on `port` (default: a free one) of 127.0.0.1. */
export async function startA2AAgent(name = "Travel agent", port = 0): Promise<ScriptedA2AAgent> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name,
    description: "Books flights (a scripted A2A agent for tests)",
    supportedInterfaces: duplicateInterfacesForLegacy([{ url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }], ["JSONRPC"]),
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    skills: [{ id: "book-flight", name: "Book a flight", description: "Finds and books flights", tags: ["travel"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const agent: ScriptedA2AAgent = { card_url: `${base}/.well-known/agent-card.json`, received: [], cancelled: [], close: async () => {} };
  const executor = new TravelAgent(agent);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  server.on("request", app);
  agent.close = async () => {
    executor.closing = true;
    server.closeAllConnections();
    await new Promise((r) => server.close(() => r(null)));
  };
  return agent;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const agent = await startA2AAgent("Travel agent", Number(process.env.PORT ?? 41241));
  console.log(`travel agent: ${agent.card_url}`);
}
