/**
 * Playwright: the UI's end-to-end tests in Debian's Chromium (/usr/bin/chromium), never a
 * downloaded browser (Playwright's browser download is not reachable offline). The web server is
 * the real custom server (Next + Socket.IO) in production mode on port 3100, against
 * `DATABASE_URL` (CI points it at a fresh database; with none set the server uses its embedded
 * database). Run `npm run build` first.
 */
import { defineConfig, devices } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const CI = Boolean(process.env.CI);

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export default defineConfig({
  testDir: "e2e",
  workers: 1,
  fullyParallel: false,
  forbidOnly: CI,
  retries: CI ? 1 : 0,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    headless: true,
    trace: "retain-on-failure",
    launchOptions: { executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], viewport: { width: 1280, height: 800 } } }],
  webServer: {
    command: "node --import tsx server.ts",
    url: `http://localhost:${PORT}/api/health`,
    env: {
      NODE_ENV: "production",
      PORT: String(PORT),
      DATABASE_URL: process.env.DATABASE_URL ?? "",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      // Heartbeats every second, so an agent is offline 3 s after its last one (e2e/directory).
      CLUTCH_HEARTBEAT_INTERVAL_SEC: process.env.CLUTCH_HEARTBEAT_INTERVAL_SEC ?? "1",
    },
    reuseExistingServer: !CI,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
