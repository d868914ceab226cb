/**
 * The process runtime: database (embedded or DATABASE_URL), migrations, the event store and
 * its tail. `startRuntime` is called once by server.ts (and by tests and benches); route
 * handlers, which Next bundles as a separate module graph, reach the same instance through
 * `getRuntime()`, which reads it from globalThis.
 */
import fs from "node:fs";
import path from "node:path";
import { createDb, type Db } from "./db/client";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./db/embedded";
import { migrate } from "./db/migrate";
import { EventStore } from "./events/store";
import { EventTail } from "./events/tail";
import { log } from "./log";
import type { ClutchConfig } from "./config";
import type { Workspace } from "./workspace/workspace";
import type { ArtifactStore } from "./artifacts/store";
import type { Approvals } from "./policy/approvals";
import { AgentRegistry } from "./router/registry";

export interface Runtime {
  db: Db;
  store: EventStore;
  tail: EventTail;
  databaseKind: "embedded" | "postgres";
  databaseUrl: string;
  version: string;
  /** The agents' workspace once server.ts has started it (null: no agents). */
  workspace: Workspace | null;
  /** Where large tool results are kept (set with the agents). */
  artifacts: ArtifactStore | null;
  /** The policy gate and approvals (set with the agents). */
  approvals: Approvals | null;
  /** Every registered agent and its presence (issue 6), kept up to date from the tail. */
  registry: AgentRegistry;
  stop(): Promise<void>;
}

const KEY = Symbol.for("clutch.runtime");
type Holder = { [KEY]?: Runtime };

/** The running runtime. Throws when the server was not started through server.ts. */
export function getRuntime(): Runtime {
  const rt = (globalThis as Holder)[KEY];
  if (!rt) throw new Error("Clutch runtime is not started: run the app with `npm start` or `npm run dev` (server.ts)");
  return rt;
}

function readVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.resolve("package.json"), "utf8")).version as string;
  } catch {
    return "0.0.0";
  }
}

/**
 * Start the database (embedded under `<dataDir>/pgdata` when no DATABASE_URL), apply
 * migrations, create the store and start its tail. Registers the runtime globally.
 * `embeddedUrl` says that `databaseUrl` is an embedded database served elsewhere (tests).
 */
export async function startRuntime(
  config: Pick<ClutchConfig, "databaseUrl" | "dataDir"> & Partial<Pick<ClutchConfig, "registry">> & { embeddedUrl?: boolean },
): Promise<Runtime> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedDatabase({ dataDir: path.join(config.dataDir, "pgdata") });
    url = embedded.url;
    log.info({ dataDir: config.dataDir }, "embedded PostgreSQL (PGlite) started");
  }
  await migrate(url);
  // PGlite serves every connection from one backend and interleaves their protocol messages,
  // so the embedded database gets a single connection (STACK.md trap 9).
  const isEmbedded = Boolean(embedded) || Boolean(config.embeddedUrl);
  const db = createDb(url, { max: isEmbedded ? 1 : 10 });
  const tail = new EventTail(db, { onError: (err) => log.error({ err }, "event tail") });
  await tail.start();
  const store = new EventStore(db, tail);
  const registry = new AgentRegistry({ config: config.registry });
  await registry.load(db);
  const unfollow = tail.subscribe((ev) => void registry.apply(ev));
  registry.start();
  const runtime: Runtime = {
    db,
    store,
    tail,
    databaseKind: embedded ? "embedded" : "postgres",
    databaseUrl: url,
    version: readVersion(),
    workspace: null,
    artifacts: null,
    approvals: null,
    registry,
    async stop() {
      registry.stop();
      unfollow();
      tail.stop();
      await db.$disconnect();
      await embedded?.stop();
      delete (globalThis as Holder)[KEY];
    },
  };
  (globalThis as Holder)[KEY] = runtime;
  return runtime;
}

/** Create #general on a workspace with no channel, so a first visit lands somewhere. */
export async function ensureDefaultChannel(rt: Runtime): Promise<void> {
  if ((await rt.store.listThreads()).length > 0) return;
  await rt.store.createThread({ name: "general", topic: "Talk to the team, people and agents" }, { agent_id: "system", display_name: "Clutch" });
}
