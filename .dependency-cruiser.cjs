/**
 * The layers of server/ (docs/architecture.md "Layers"), checked by `npm run lint`:
 * each room may import only the rooms below it (and lib/), and no file imports itself back
 * through others (type-only imports count: they are imports too). Tests (*.test.ts) may import
 * any room: they exercise the whole system.
 */

/** server/'s rooms, lowest first; a room is a folder, a file, or a folder within a room. */
const LAYERS = [
  ["server/log.ts", "^server/log\\.ts$"],
  ["server/errors.ts", "^server/errors\\.ts$"],
  ["server/db", "^server/db/"],
  ["server/cluster", "^server/cluster/"],
  ["server/http", "^server/http/"],
  ["server/events", "^server/events/"],
  ["server/auth", "^server/auth/"],
  ["server/schemas", "^server/schemas/"],
  ["server/artifacts", "^server/artifacts/"],
  ["server/config.ts", "^server/config\\.ts$"],
  ["server/telemetry", "^server/telemetry/"],
  ["server/agents/models", "^server/agents/models/"],
  ["server/workspace", "^server/workspace/"],
  ["server/usage", "^server/usage/"],
  ["server/policy", "^server/policy/"],
  ["server/inbox", "^server/inbox/"],
  ["server/router", "^server/router/"],
  ["server/runs", "^server/runs/"],
  ["server/lifecycle", "^server/lifecycle/"],
  ["server/streams", "^server/streams/"],
  ["server/dispatch", "^server/dispatch/"],
  ["server/agents", "^server/agents/(?!models/)"],
  ["server/orchestrator", "^server/orchestrator/"],
  ["server/workflows", "^server/workflows/"],
  ["server/adapters", "^server/adapters/"],
  ["server/clutch.ts", "^server/clutch\\.ts$"],
  ["server/instance.ts", "^server/instance\\.ts$"],
  ["server/realtime", "^server/realtime/"],
];

const TESTS = "\\.test\\.ts$";

/** One rule per room: nothing above it. */
const layerRules = LAYERS.slice(0, -1).map(([room, path], i) => ({
  name: `layers: ${room} imports only rooms below it`,
  comment: `${room} may import ${LAYERS.slice(0, i).map(([r]) => r).join(", ") || "only lib/"}; not ${LAYERS.slice(i + 1).map(([r]) => r).join(", ")} (docs/architecture.md "Layers")`,
  severity: "error",
  from: { path, pathNot: TESTS },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => `(${p})`).join("|") },
}));

/** Every file of server/ is in a room (a new folder gets its place in LAYERS and the doc). */
const inARoom = {
  name: "layers: every server/ file is in a room",
  comment: "add the new room to LAYERS in .dependency-cruiser.cjs and to docs/architecture.md \"Layers\"",
  severity: "error",
  from: { path: "^server/", pathNot: [...LAYERS.map(([, p]) => p), TESTS] },
  to: {},
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    inARoom,
    {
      name: "no-circular",
      comment: "a file of server/ imports itself back through others: move what both need below both",
      severity: "error",
      from: { path: "^server/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^server/db/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    combinedDependencies: false,
    cache: false,
  },
};
