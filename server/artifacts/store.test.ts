/**
 * The artifact store on the run's test database (real PostgreSQL, or the embedded PGlite): bytes
 * under their SHA-256, stored once, in chunks, streamed back with their hash checked, refused
 * over the size limit before anything is stored, and imported from the old on-disk layout.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDb } from "@/server/db/client";
import { isClutchError } from "@/server/errors";
import { ArtifactStore, artifactRefFor, CHUNK_BYTES } from "./store";

const db = createDb(inject("databaseUrl"), { max: inject("embeddedDatabase") ? 1 : 4 });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-artifacts-"));
afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  await db.$disconnect();
});

const hexOf = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
/** The rows stored for `hex`: its artifacts row (or null) and how many chunks. */
async function rowsOf(hex: string) {
  const row = await db.artifact.findUnique({ where: { sha256: hex } });
  return { row, chunks: await db.artifactChunk.count({ where: { sha256: hex } }) };
}
const errorCode = (e: unknown) => (isClutchError(e) ? e.code : e);

describe("ArtifactStore", () => {
  const store = new ArtifactStore(db);

  it("stores bytes under their sha256 in the artifacts table and reads them back", async () => {
    const body = JSON.stringify({ rows: [{ region: "West", sales: 79806.318 }], at: randomBytes(8).toString("hex") });
    const hex = hexOf(body);
    const put = await store.put(body, "application/json");
    expect(put).toEqual({ ref: `artifact:sha256-${hex}`, size: Buffer.byteLength(body), media_type: "application/json", created: true });
    const { row, chunks } = await rowsOf(hex);
    expect(row).toMatchObject({ sha256: hex, media_type: "application/json", size: BigInt(put.size), chunks: 1 });
    expect(chunks).toBe(1);

    const got = await store.get(put.ref);
    expect(got?.bytes.toString("utf8")).toBe(body);
    expect(got).toMatchObject({ ref: put.ref, size: put.size, media_type: "application/json", created_at: row!.created_at.toISOString() });
    expect(await store.has(put.ref)).toBe(true);
    expect(artifactRefFor(body)).toBe(put.ref);
  });

  it("stores the same bytes once: a repeat writes nothing and keeps the first media type", async () => {
    const bytes = new Uint8Array([0, 1, 2, 3, 255, ...randomBytes(16)]);
    const a = await store.put(bytes, "application/octet-stream");
    const before = await rowsOf(hexOf(bytes));
    const b = await store.put(Buffer.from(bytes), "text/plain");
    expect(b).toEqual({ ...a, created: false });
    expect(await rowsOf(hexOf(bytes))).toEqual(before);

    const same = `same ${randomBytes(8).toString("hex")}`;
    const results = await Promise.all([store.put(same, "text/plain"), store.put(same, "text/markdown"), store.put(same, "text/csv")]);
    expect(new Set(results.map((r) => r.ref)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const first = results.find((r) => r.created)!.media_type;
    expect(results.every((r) => r.media_type === first)).toBe(true);
    expect((await rowsOf(hexOf(same))).chunks).toBe(1);
    expect((await store.get(results[0]!.ref))?.bytes.toString()).toBe(same);
  });

  it("stores an empty artifact", async () => {
    const put = await store.put("", "text/plain");
    expect(put.size).toBe(0);
    expect((await store.get(put.ref))?.bytes.byteLength).toBe(0);
  });

  it("returns null for an unknown ref and rejects a malformed one", async () => {
    expect(await store.get(`artifact:sha256-${"0".repeat(64)}`)).toBeNull();
    expect(await store.open(`artifact:sha256-${"0".repeat(64)}`)).toBeNull();
    for (const bad of ["artifact:report_456", "sha256-abc", `artifact:sha256-${"A".repeat(64)}`, `artifact:sha256-../../${"0".repeat(58)}`]) {
      expect(errorCode(await store.get(bad).catch((x: unknown) => x))).toBe("INVALID_ARTIFACT_REF");
    }
  });

  it("reports corrupted or missing bytes instead of serving them", async () => {
    const put = await store.put(`original content ${randomBytes(8).toString("hex")}`, "text/plain");
    const hex = put.ref.slice(-64);
    await db.$executeRaw`UPDATE "artifact_chunks" SET "bytes" = ${Buffer.from("tampered content")} WHERE "sha256" = ${hex}`;
    expect(errorCode(await store.get(put.ref).catch((x: unknown) => x))).toBe("ARTIFACT_CORRUPT");
    await db.$executeRaw`DELETE FROM "artifact_chunks" WHERE "sha256" = ${hex}`;
    expect(errorCode(await store.get(put.ref).catch((x: unknown) => x))).toBe("ARTIFACT_CORRUPT");
  });

  it("rejects a malformed media type", async () => {
    expect(errorCode(await store.put("x", "not a media type").catch((x: unknown) => x))).toBe("INVALID_MEDIA_TYPE");
  });

  it("round-trips a multi-chunk artifact byte for byte, streamed in and out", async () => {
    const bytes = randomBytes(2 * CHUNK_BYTES + 12_345);
    const hex = hexOf(bytes);
    // In: 64 KiB pieces from a stream, never the whole artifact at once.
    const pieces = Readable.from((function* () {
      for (let at = 0; at < bytes.byteLength; at += 65_536) yield bytes.subarray(at, at + 65_536);
    })());
    const put = await store.putStream(pieces, "application/octet-stream");
    expect(put).toEqual({ ref: `artifact:sha256-${hex}`, size: bytes.byteLength, media_type: "application/octet-stream", created: true });
    expect(await rowsOf(hex)).toMatchObject({ row: { chunks: 3, size: BigInt(bytes.byteLength) }, chunks: 3 });

    // Out: chunk by chunk.
    const opened = (await store.open(put.ref))!;
    expect(opened.size).toBe(bytes.byteLength);
    const reader = opened.body.getReader();
    const parts: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    expect(parts.map((p) => p.byteLength)).toEqual([CHUNK_BYTES, CHUNK_BYTES, 12_345]);
    const back = Buffer.concat(parts);
    expect(back.equals(bytes)).toBe(true);
    expect(hexOf(back)).toBe(hex);

    // The same bytes put whole are the same artifact.
    expect(await store.put(bytes)).toEqual({ ...put, created: false });
  });

  it("refuses an artifact over the size limit with 413 before anything is stored", async () => {
    const small = new ArtifactStore(db, { maxBytes: 1000 });
    const over = randomBytes(1001);
    const e = await small.put(over).catch((x: unknown) => x);
    expect(isClutchError(e) && [e.code, e.status]).toEqual(["artifact_too_large", 413]);
    expect(await rowsOf(hexOf(over))).toEqual({ row: null, chunks: 0 });

    const streamed = await small.putStream(Readable.from([over.subarray(0, 600), over.subarray(600)])).catch((x: unknown) => x);
    expect(errorCode(streamed)).toBe("artifact_too_large");
    expect(await rowsOf(hexOf(over))).toEqual({ row: null, chunks: 0 });

    const declared = await small.putStream(Readable.from([]), "text/plain", { size: 5000 }).catch((x: unknown) => x);
    expect(errorCode(declared)).toBe("artifact_too_large");

    expect((await small.put(over.subarray(0, 1000))).created).toBe(true);
  });

  it("imports the old on-disk layout once, keeping media type and creation time", async () => {
    const dataDir = path.join(tmp, "import");
    const json = JSON.stringify({ legacy: randomBytes(8).toString("hex") });
    const big = randomBytes(CHUNK_BYTES + 7);
    const write = (bytes: Buffer | string, meta?: object) => {
      const hex = hexOf(bytes);
      const dir = path.join(dataDir, "artifacts", "sha256", hex.slice(0, 2));
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, hex), bytes);
      if (meta) fs.writeFileSync(path.join(dir, `${hex}.json`), JSON.stringify(meta));
      return hex;
    };
    const jsonHex = write(json, { media_type: "application/json", size: json.length, created_at: "2026-01-02T03:04:05.000Z" });
    const bigHex = write(big);
    // A file whose bytes do not match its name is not imported.
    const badHex = hexOf("something else");
    fs.mkdirSync(path.join(dataDir, "artifacts", "sha256", badHex.slice(0, 2)), { recursive: true });
    fs.writeFileSync(path.join(dataDir, "artifacts", "sha256", badHex.slice(0, 2), badHex), "not what the name says");

    expect(await store.importFromDisk(dataDir)).toEqual({ imported: 2, skipped: 0, failed: 1 });
    expect(await store.get(`artifact:sha256-${jsonHex}`)).toMatchObject({ media_type: "application/json", created_at: "2026-01-02T03:04:05.000Z" });
    expect((await store.get(`artifact:sha256-${jsonHex}`))!.bytes.toString()).toBe(json);
    const bigBack = (await store.get(`artifact:sha256-${bigHex}`))!;
    expect(bigBack.media_type).toBe("application/octet-stream");
    expect(bigBack.bytes.equals(big)).toBe(true);
    expect(await rowsOf(badHex)).toEqual({ row: null, chunks: 0 });

    // Again: nothing new.
    expect(await store.importFromDisk(dataDir)).toEqual({ imported: 0, skipped: 2, failed: 1 });
    expect((await rowsOf(bigHex)).chunks).toBe(2);
    // No old folder: nothing to do.
    expect(await store.importFromDisk(path.join(tmp, "none"))).toEqual({ imported: 0, skipped: 0, failed: 0 });
  });
});
