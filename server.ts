/**
 * The custom server: Clutch (server/clutch.ts), with Next.js and Socket.IO on one HTTP port
 * (docs/architecture.md, "Layers"). Start with `npm start` (production build) or `npm run dev`.
 */
import nextEnv from "@next/env";
import next from "next";
import { loadPlaybooks, modelForAgent } from "./server/agents/models";
import { createClutch } from "./server/clutch";
import { setClutch } from "./server/instance";
import { loadConfig } from "./server/config";
import { oidcRedirectUrl } from "./server/auth/sso";
import { log } from "./server/log";
import { importedModelSpec } from "./server/workspace/autogen";
import { startAgentsFeed } from "./server/realtime/agents-feed";
import { RealtimeGateway } from "./server/realtime/gateway";
import { contentSecurityPolicy, frontDoor } from "./server/http/front-door";
import { createClutchHttpServer } from "./server/http/timeouts";
import { parseImageHosts } from "./lib/image-hosts";
import { a2aApp, isA2APath } from "./server/adapters/a2a/server";
import { startRealtimeProcess } from "./server/realtime/process";
import { directRoutes } from "./server/http/direct-routes";
import { POST as postEvents } from "./app/api/events/route";

nextEnv.loadEnvConfig(process.cwd());
const config = loadConfig();

const models = new Map<string, ReturnType<typeof modelForAgent>>();
const playbooks = config.workspaceDir ? await loadPlaybooks(config.workspaceDir) : undefined;
const clutch = await createClutch({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  workspaceDir: config.workspaceDir,
  registry: config.registry,
  admin: config.admin,
  publicUrl: config.publicUrl,
  port: config.port,
  ...(config.nodeName ? { nodeName: config.nodeName } : {}),
  ...(config.agentConcurrency ? { agentConcurrency: config.agentConcurrency } : {}),
  artifactMaxBytes: config.artifactMaxBytes,
  inviteTtlHours: config.inviteTtlHours,
  tracePrivateContent: config.tracePrivateContent,
  ...(config.sso ? { sso: config.sso } : {}),
  allChannels: true,
  defaultChannel: true,
  modelFor: (agent) => {
    let model = models.get(agent.agent_id);
    // An imported AutoGen agent brings its model client's spec (docs/adapters.md "AutoGen").
    const fallback = (err: Error) => log.warn({ agent: agent.agent_id, err: err.message }, "the agent's imported model cannot be used here; it runs on the deployment's model");
    if (!model) models.set(agent.agent_id, (model = modelForAgent(process.env, agent.agent_id, importedModelSpec(agent.manifest), { playbooks }, fallback)));
    return model;
  },
  // An imported AutoGen team's own model client: its selector, its MagenticOne orchestrator (CLUTCH_MODEL_<TEAM ID> overrides).
  teamModelFor: (team_id, spec) => {
    const id = `agent:${team_id}`;
    let model = models.get(`team:${team_id}`);
    const fallback = (err: Error) => log.warn({ team: team_id, err: err.message }, "the team's imported model client cannot be used here; it runs on the deployment's model");
    if (!model) models.set(`team:${team_id}`, (model = modelForAgent(process.env, id, spec, { playbooks }, fallback)));
    return model;
  },
});
// The route handlers reach it through getClutch() (server/instance.ts).
setClutch(clutch);

/** A request's headers must arrive within 10 s and its whole body within 60 s (docs/limits.md). */
const httpServer = createClutchHttpServer(config.timeouts);
const app = next({ dev: config.dev, hostname: "localhost", port: config.port, httpServer });
const handle = app.getRequestHandler();
await app.prepare();
const csp = contentSecurityPolicy(parseImageHosts(process.env.CLUTCH_IMAGE_HOSTS));
// Clutch's A2A endpoints (server/adapters/a2a/server.ts) beside the app.
const a2a = a2aApp(clutch, { publicUrl: config.publicUrl, port: config.port, trustedProxies: config.trustedProxies }, { blockingSec: config.a2aBlockingSec });
// Socket.IO: here, or with CLUTCH_REALTIME=process (PostgreSQL) in a process of its own, so fan-out
// does not share this event loop (server/realtime/process.ts).
const realtime = config.realtime === "process" ? await startRealtimeProcess({ env: process.env }) : null;
// The write path agents use at volume, served by its route module without Next's per-request work.
const direct = directRoutes({ "POST /api/events": postEvents });
httpServer.on("request", (req, res) => {
  if (frontDoor(req, res, csp, config.trustedProxies)) return;
  if (direct(req, res)) return;
  if (realtime?.isSocketPath(req.url)) realtime.proxy(req, res);
  else if (isA2APath((req.url ?? "/").split("?")[0]!)) a2a(req, res);
  else void handle(req, res);
});
realtime?.acceptUpgrades(httpServer);
const gateway = realtime ? null : new RealtimeGateway(httpServer, clutch.store, clutch.tail, clutch.identity, clutch.streams, clutch.bus);
const stopAgentsFeed = gateway ? startAgentsFeed(gateway, { queries: clutch.store.queries, registry: clutch.registry, tail: clutch.tail }) : () => {};

httpServer.listen(config.port, config.host, () => {
  const url = config.publicUrl ?? `http://localhost:${config.port}`;
  log.info({ url, database: clutch.databaseKind, dev: config.dev, realtime: config.realtime }, "Clutch is running");
  // Single sign-on: what to register with the provider (docs/identity.md "Single sign-on").
  if (config.sso) process.stdout.write(`Single sign-on through ${config.sso.oidc.issuer}: register ${oidcRedirectUrl(url)} as Clutch's redirect URL there\n`);
  // One plain line for people, after the JSON log lines: where to go (and, before anyone has an account, where to set up).
  void clutch.identity.needsSetup().then(
    (setup) => process.stdout.write(`Clutch is ready: ${url}${setup ? `\nSet up your workspace (the first account is its admin): ${url}/setup` : ""}\n`),
    () => process.stdout.write(`Clutch is ready: ${url}\n`),
  );

});

/**
 * Shutting down within SHUTDOWN_MS: stop taking requests and close idle connections at once; give
 * requests in flight up to DRAIN_MS, then agents' work in flight up to AGENTS_GRACE_MS (what does
 * not finish is picked up by the next start's recovery); then close the database. Past
 * SHUTDOWN_MS the process exits anyway.
 */
const SHUTDOWN_MS = 10_000;
const DRAIN_MS = 4_000;
const AGENTS_GRACE_MS = 3_000;
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  log.info({ signal }, "shutting down");
  setTimeout(() => {
    log.error({ ms: SHUTDOWN_MS }, "shutdown did not finish in time; exiting");
    process.exit(1);
  }, SHUTDOWN_MS).unref();
  stopAgentsFeed();
  const httpClosed = new Promise((r) => httpServer.close(() => r(null)));
  httpServer.closeIdleConnections();
  const drained = setTimeout(() => httpServer.closeAllConnections(), DRAIN_MS);
  await Promise.all([gateway?.close().catch(() => {}), realtime?.close().catch(() => {}), httpClosed]);
  clearTimeout(drained);
  await clutch.stop({ graceMs: AGENTS_GRACE_MS }).catch((err) => log.error({ err }, "stopping Clutch failed"));
  await app.close?.().catch(() => {});
  log.info({ ms: Date.now() - started }, "stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
