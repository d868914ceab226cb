/**
 * Artifacts on several nodes (docs/deploy.md): they live in the database, so a node serves
 * through `GET /api/artifacts/:ref` an artifact another node stored, streamed with its hash
 * checked; a node started on a data folder of the old on-disk layout brings its files into the
 * database; an artifact over the limit is refused before anything is stored, the limit set by
 * CLUTCH_ARTIFACT_MAX_BYTES.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import * as artifactRoute from "@/app/api/artifacts/[ref]/route";
import type { Clutch } from "@/server/clutch";
import { CHUNK_BYTES, DEFAULT_ARTIFACT_MAX_BYTES } from "@/server/artifacts/store";
import { loadConfig } from "@/server/config";
import { createDb } from "@/server/db/client";
import { isClutchError } from "@/server/errors";
import { requestAs, testClutch, testPerson, type TestPrincipal } from "./helpers";

const hexOf = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

describe("artifacts on two nodes", () => {
  let nodeA: Clutch;
  let nodeB: Clutch;
  let reader: TestPrincipal;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-node-a-"));
  // An artifact node A kept on its disk before artifacts moved into the database.
  const legacy = JSON.stringify({ rows: randomBytes(32).toString("hex") });
  const legacyHex = hexOf(legacy);

  beforeAll(async () => {
    const dir = path.join(dataDir, "artifacts", "sha256", legacyHex.slice(0, 2));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, legacyHex), legacy);
    fs.writeFileSync(path.join(dir, `${legacyHex}.json`), JSON.stringify({ media_type: "application/json", size: legacy.length, created_at: "2026-11-01T00:00:00.000Z" }));
    nodeA = await testClutch({ dataDir, artifactMaxBytes: 4 * CHUNK_BYTES });
    // Node B has a data folder of its own and is the instance route handlers see.
    nodeB = await testClutch({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "clutch-node-b-")) });
    reader = await testPerson(nodeB, "member");
  });
  afterAll(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const fetchArtifact = (ref: string) =>
    artifactRoute.GET(requestAs(reader, `http://clutch.test/api/artifacts/${encodeURIComponent(ref)}`), { params: Promise.resolve({ ref }) });

  it("serves on node B, streamed byte for byte, a multi-chunk artifact node A stored", async () => {
    const bytes = randomBytes(3 * CHUNK_BYTES + 999);
    const put = await nodeA.artifacts.put(bytes, "application/x-ndjson");
    expect(put.created).toBe(true);

    const res = await fetchArtifact(put.ref);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-length")).toBe(String(bytes.byteLength));
    const reader = res.body!.getReader();
    const parts: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    const body = Buffer.concat(parts);
    expect(body.equals(bytes)).toBe(true);
    expect(`artifact:sha256-${hexOf(body)}`).toBe(put.ref);
  });

  it("stores a repeat once, whichever node puts it", async () => {
    const text = `report ${randomBytes(8).toString("hex")}`;
    const first = await nodeA.artifacts.put(text, "text/markdown");
    const again = await nodeB.artifacts.put(text, "text/plain");
    expect(again).toEqual({ ...first, created: false });
    const res = await fetchArtifact(first.ref);
    expect(res.headers.get("content-type")).toBe("text/markdown");
    expect(await res.text()).toBe(text);
  });

  it("imported node A's on-disk artifact at start, and node B serves it", async () => {
    const res = await fetchArtifact(`artifact:sha256-${legacyHex}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(legacy);
  });

  it("refuses an artifact over node A's limit with 413 before storing it", async () => {
    const over = randomBytes(4 * CHUNK_BYTES + 1);
    const e = await nodeA.artifacts.put(over).catch((x: unknown) => x);
    expect(isClutchError(e) && [e.code, e.status]).toEqual(["artifact_too_large", 413]);
    expect(await nodeB.artifacts.has(`artifact:sha256-${hexOf(over)}`)).toBe(false);
    expect((await fetchArtifact(`artifact:sha256-${hexOf(over)}`)).status).toBe(404);
  });

  it("cuts the body off rather than serve bytes that no longer match their hash", async () => {
    const bytes = randomBytes(CHUNK_BYTES + 10);
    const put = await nodeA.artifacts.put(bytes);
    const db = createDb(inject("databaseUrl"), { max: 1 });
    try {
      await db.$executeRaw`UPDATE "artifact_chunks" SET "bytes" = ${randomBytes(10)} WHERE "sha256" = ${put.ref.slice(-64)} AND "n" = 1`;
    } finally {
      await db.$disconnect();
    }
    const res = await fetchArtifact(put.ref);
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow(/does not match its hash|do not match their hash|corrupt/);
  });

  it("answers 400 for a malformed ref and 404 for an unknown one", async () => {
    expect((await fetchArtifact("artifact:nope")).status).toBe(400);
    const unknown = await fetchArtifact(`artifact:sha256-${"0".repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()) as unknown).toMatchObject({ error: { code: "unknown_artifact" } });
  });
});

describe("CLUTCH_ARTIFACT_MAX_BYTES", () => {
  const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...vars });
  it("is 100 MiB by default, a whole number of bytes up to 1 GiB when set", () => {
    expect(loadConfig(env({})).artifactMaxBytes).toBe(DEFAULT_ARTIFACT_MAX_BYTES);
    expect(DEFAULT_ARTIFACT_MAX_BYTES).toBe(100 * 1024 * 1024);
    expect(loadConfig(env({ CLUTCH_ARTIFACT_MAX_BYTES: "5000000" })).artifactMaxBytes).toBe(5_000_000);
    expect(() => loadConfig(env({ CLUTCH_ARTIFACT_MAX_BYTES: "10MB" }))).toThrow(/CLUTCH_ARTIFACT_MAX_BYTES/);
    expect(() => loadConfig(env({ CLUTCH_ARTIFACT_MAX_BYTES: "0" }))).toThrow(/CLUTCH_ARTIFACT_MAX_BYTES must be a positive number of bytes/);
    expect(() => loadConfig(env({ CLUTCH_ARTIFACT_MAX_BYTES: String(2 * 1024 ** 3) }))).toThrow(/at most 1073741824/);
  });
});
