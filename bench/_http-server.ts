/**
 * A minimal HTTP server for bench/ingest.ts when no `next build` is available: it starts
 * Clutch without agents (DATABASE_URL) and mounts the real route handler of `POST /api/events`
 * (app/api/events/route.ts, which reads the instance from globalThis, server/instance.ts) on
 * node:http, converting the request to a Web `Request` and the `Response` back, as Next would. It runs as its own
 * process so the load generator and the server do not share an event loop.
 *
 * Env: DATABASE_URL (required), PORT (default 0 = any). Prints `listening <port>` when ready.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createClutch } from "@/server/clutch";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const rt = await createClutch({ databaseUrl: url, dataDir: "", workspaceDir: null });
const { POST } = await import("@/app/api/events/route");

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/api/events") {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    void (async () => {
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: "POST",
        headers: { "content-type": req.headers["content-type"] ?? "application/json", authorization: req.headers.authorization ?? "" },
        body: Buffer.concat(chunks),
      });
      const response = await POST(request, undefined as never);
      const body = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "application/json", "content-length": body.length });
      res.end(body);
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
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
