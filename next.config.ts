import type { NextConfig } from "next";

/**
 * Next.js config. Server-only packages stay external so the custom server (server.ts) and the
 * route handlers share one copy of pg / Prisma / PGlite / pino with Node's own module loader.
 */
const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: [
    "pg",
    "@prisma/adapter-pg",
    "@prisma/client",
    "@electric-sql/pglite",
    "@electric-sql/pglite-socket",
    "pino",
  ],
  // The dev-mode badge would sit on top of the composer on phones.
  devIndicators: false,
  // Dev assets may be loaded from 127.0.0.1 too (e2e/reconnect.spec.ts uses it).
  allowedDevOrigins: ["127.0.0.1"],
  // A second dev server in the same checkout (another port) needs its own build folder, e.g.
  // NEXT_DIST_DIR=.next/alt: Next 16 locks the folder of a running `next dev`.
  ...(process.env.NEXT_DIST_DIR ? { distDir: process.env.NEXT_DIST_DIR } : {}),
  // `npm start` and .ci/run build after the types were checked elsewhere (`npm run typecheck`, the
  // first step of .ci/run), so their builds skip Next's own pass: a fresh clone's first start is
  // half a minute shorter (docs/benchmarks.md "first npm start").
  ...(process.env.CLUTCH_BUILD_SKIP_TYPECHECK === "1" ? { typescript: { ignoreBuildErrors: true } } : {}),
};

export default nextConfig;
