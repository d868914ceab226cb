/**
 * The custom server: Next.js and Socket.IO on one HTTP port (DESIGN.md, STACK.md trap 8).
 * Start with `npm start` (production build) or `npm run dev`.
 */
import { createServer } from "node:http";
import nextEnv from "@next/env";
import next from "next";
import { loadConfig } from "./server/config";
import { log } from "./server/log";
import { RealtimeGateway } from "./server/realtime/gateway";
import { startAgentsFeed } from "./server/realtime/agents-feed";
import { ensureDefaultChannel, startRuntime } from "./server/runtime";
import { loadPlaybooks, modelFromEnv } from "./server/agents/models";
import { startAgentSystem } from "./server/workspace/bootstrap";

nextEnv.loadEnvConfig(process.cwd());
const config = loadConfig();

const runtime = await startRuntime(config);
await ensureDefaultChannel(runtime);
const models = new Map<string, ReturnType<typeof modelFromEnv>>();
const playbooks = config.workspaceDir ? await loadPlaybooks(config.workspaceDir) : undefined;
const agents = config.workspaceDir
  ? await startAgentSystem(runtime, {
      workspaceDir: config.workspaceDir,
      dataDir: config.dataDir,
      registry: config.registry,
      allChannels: true,
      modelFor: (agent) => {
        let model = models.get(agent.agent_id);
        if (!model) models.set(agent.agent_id, (model = modelFromEnv(process.env, agent.agent_id, { playbooks })));
        return model;
      },
    })
  : null;

const httpServer = createServer();
const app = next({ dev: config.dev, hostname: "localhost", port: config.port, httpServer });
const handle = app.getRequestHandler();
await app.prepare();
httpServer.on("request", (req, res) => void handle(req, res));
const gateway = new RealtimeGateway(httpServer, runtime.store, runtime.tail);
const stopAgentsFeed = startAgentsFeed(gateway.io, runtime);

httpServer.listen(config.port, config.host, () => {
  log.info({ url: `http://localhost:${config.port}`, database: runtime.databaseKind, dev: config.dev }, "Clutch is running");
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
  await agents?.stop().catch(() => {});
  await new Promise((r) => httpServer.close(() => r(null)));
  await app.close?.().catch(() => {});
  await runtime.stop();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
