/**
 * A minimal HTTP server for bench/ingest.ts when no `next build` is available: it starts
 * Clutch without agents (DATABASE_URL) and mounts the real route handler of `POST /api/events`
 * (app/api/events/route.ts, which reads the instance from globalThis, server/instance.ts) on
 * node:http the way server.ts does (server/http/direct-routes.ts). It runs as its own
 * process so the load generator and the server do not share an event loop.
 *
 * Env: DATABASE_URL (required), PORT (default 0 = any). Prints `listening <port>` when ready.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createClutch } from "@/server/clutch";
import { setClutch } from "@/server/instance";
import { directRoutes } from "@/server/http/direct-routes";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const rt = setClutch(await createClutch({ databaseUrl: url, dataDir: "", workspaceDir: null }));
const { POST } = await import("@/app/api/events/route");

// The same adapter server.ts uses for this route (server/http/direct-routes.ts).
const direct = directRoutes({ "POST /api/events": POST });
const server = createServer((req, res) => {
  if (!direct(req, res)) res.writeHead(404).end();
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});

const stop = async () => {
  server.close();
  server.closeAllConnections();
  await rt.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
