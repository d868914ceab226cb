/**
 * The custom server: Clutch (server/clutch.ts), with Next.js and Socket.IO on one HTTP port
 * (docs/architecture.md, "Layers"). Start with `npm start` (production build) or `npm run dev`.
 */
import { createServer } from "node:http";
import nextEnv from "@next/env";
import next from "next";
import { loadPlaybooks, modelFromEnv } from "./server/agents/models";
import { createClutch } from "./server/clutch";
import { loadConfig } from "./server/config";
import { log } from "./server/log";
import { startAgentsFeed } from "./server/realtime/agents-feed";
import { RealtimeGateway } from "./server/realtime/gateway";

nextEnv.loadEnvConfig(process.cwd());
const config = loadConfig();

const models = new Map<string, ReturnType<typeof modelFromEnv>>();
const playbooks = config.workspaceDir ? await loadPlaybooks(config.workspaceDir) : undefined;
const clutch = await createClutch({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  workspaceDir: config.workspaceDir,
  registry: config.registry,
  allChannels: true,
  defaultChannel: true,
  modelFor: (agent) => {
    let model = models.get(agent.agent_id);
    if (!model) models.set(agent.agent_id, (model = modelFromEnv(process.env, agent.agent_id, { playbooks })));
    return model;
  },
});

const httpServer = createServer();
const app = next({ dev: config.dev, hostname: "localhost", port: config.port, httpServer });
const handle = app.getRequestHandler();
await app.prepare();
httpServer.on("request", (req, res) => void handle(req, res));
const gateway = new RealtimeGateway(httpServer, clutch.store, clutch.tail);
const stopAgentsFeed = startAgentsFeed(gateway.io, { queries: clutch.store.queries, registry: clutch.registry, tail: clutch.tail });

httpServer.listen(config.port, config.host, () => {
  log.info({ url: `http://localhost:${config.port}`, database: clutch.databaseKind, dev: config.dev }, "Clutch is running");
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "shutting down");
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  stopAgentsFeed();
  await gateway.close().catch(() => {});
  await new Promise((r) => httpServer.close(() => r(null)));
  await app.close?.().catch(() => {});
  await clutch.stop();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
