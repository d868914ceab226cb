/**
 * Playwright: the UI's end-to-end tests in Debian's Chromium (its headless shell, else /usr/bin/chromium), never a
 * downloaded browser (Playwright's browser download is not reachable offline). The web server is
 * the real custom server (Next + Socket.IO) in production mode on port 3100, against
 * `DATABASE_URL` (CI points it at a fresh database; with none set the server uses its embedded
 * database). Run `npm run build` first.
 *
 * The server starts with an admin (E2E_ADMIN); e2e/global-setup.ts signs it in once and every
 * test's browser and `request` start signed in as that admin (docs/identity.md). Tests that need
 * other people create them through invites (e2e/helpers.ts `personContext`).
 */
import fs from "node:fs";
import { defineConfig, devices } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3100);
/** The app's URL in the tests. */
export const BASE_URL = `http://localhost:${PORT}`;
/** The admin the test server starts with (CLUTCH_ADMIN_*). */
export const E2E_ADMIN = { email: "dana@clutch.test", password: "e2e-admin-password", name: "Dana Whitfield" } as const;
/** Where global-setup keeps the admin's signed-in state. */
export const ADMIN_STATE = "test-results/.auth/admin.json";
const CI = Boolean(process.env.CI);

/**
 * Debian's headless shell (package chromium-headless-shell) when it is installed: the same Blink
 * and V8 as /usr/bin/chromium without the browser's window layers, a quarter less CPU for the
 * suite (docs/benchmarks.md "Where the CI time goes"); else Debian's Chromium.
 */
const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
const CHROMIUM = "/usr/bin/chromium";
const SHELL = fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM;

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

/** A desktop Chromium window launched from `executablePath` with the args above. */
const desktop = (executablePath: string) => ({ ...devices["Desktop Chrome"], viewport: { width: 1280, height: 800 }, launchOptions: { executablePath, args: CHROMIUM_ARGS } });
/**
 * The specs that send requests to the built-in team in #sales (the workspace's one channel with an
 * entry agent) and wait for its answers are named `*.team.spec.ts`: they run one at a time, or
 * one's pm-1 answers the other's question.
 */
const TEAM_SPECS = /\.team\.spec\.ts$/;
/**
 * The specs that need the whole browser: For you offers to enable notifications while the browser
 * would still ask, and the headless shell denies them outright.
 */
const BROWSER_SPECS = ["for-you.spec.ts"];

export default defineConfig({
  testDir: "e2e",
  // Two files at a time (the 2 cores): the specs that drive the built-in team in the shared #sales
  // channel are one project that runs one file at a time (two at once answer each other's questions),
  // beside the rest (docs/benchmarks.md "Where the CI time goes").
  workers: 2,
  fullyParallel: false,
  forbidOnly: CI,
  retries: CI ? 1 : 0,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: BASE_URL,
    storageState: ADMIN_STATE,
    headless: true,
    // Recording a trace for every test costs a third of the suite's CPU (screencast frames and
    // DOM snapshots): a failed test's retry records one instead.
    trace: "on-first-retry",
  },
  projects: [
    { name: "sales-team", testMatch: TEAM_SPECS, workers: 1, use: desktop(SHELL) },
    { name: "browser", testMatch: BROWSER_SPECS, use: desktop(CHROMIUM) },
    { name: "chromium", testIgnore: [TEAM_SPECS, ...BROWSER_SPECS], use: desktop(SHELL) },
  ],
  webServer: {
    command: "node --import tsx server.ts",
    url: `http://localhost:${PORT}/api/health`,
    env: {
      NODE_ENV: "production",
      PORT: String(PORT),
      DATABASE_URL: process.env.DATABASE_URL ?? "",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      CLUTCH_ADMIN_EMAIL: E2E_ADMIN.email,
      CLUTCH_ADMIN_PASSWORD: E2E_ADMIN.password,
      CLUTCH_ADMIN_NAME: E2E_ADMIN.name,
      // The tests write far faster than a person: lift the per-principal write limit.
      CLUTCH_WRITES_PER_MIN: "1000000",
      // Heartbeats every second, so an agent is offline 3 s after its last one (e2e/directory).
      CLUTCH_HEARTBEAT_INTERVAL_SEC: process.env.CLUTCH_HEARTBEAT_INTERVAL_SEC ?? "1",
    },
    reuseExistingServer: !CI,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
