import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isClutchError } from "@/server/errors";
import { ArtifactStore, artifactRefFor } from "./store";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-artifacts-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe("ArtifactStore", () => {
  const store = new ArtifactStore(dataDir);

  it("stores bytes under their sha256 and reads them back", async () => {
    const body = JSON.stringify({ rows: [{ region: "West", sales: 79806.318 }] });
    const hex = createHash("sha256").update(body).digest("hex");
    const put = await store.put(body, "application/json");
    expect(put).toEqual({ ref: `artifact:sha256-${hex}`, size: Buffer.byteLength(body), media_type: "application/json", created: true });
    expect(fs.readFileSync(path.join(dataDir, "artifacts", "sha256", hex.slice(0, 2), hex), "utf8")).toBe(body);

    const got = await store.get(put.ref);
    expect(got?.bytes.toString("utf8")).toBe(body);
    expect(got).toMatchObject({ ref: put.ref, size: put.size, media_type: "application/json" });
    expect(await store.has(put.ref)).toBe(true);
    expect(artifactRefFor(body)).toBe(put.ref);
  });

  it("stores the same bytes once", async () => {
    const bytes = new Uint8Array([0, 1, 2, 3, 255]);
    const a = await store.put(bytes, "application/octet-stream");
    const b = await store.put(Buffer.from(bytes), "text/plain");
    expect(b).toEqual({ ...a, created: false });
    const dir = path.join(dataDir, "artifacts", "sha256", a.ref.slice(-64, -62));
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(a.ref.slice(-64)))).toHaveLength(2); // bytes + meta
    expect(fs.readdirSync(dir).some((f) => f.endsWith(".tmp"))).toBe(false);
    const [c, d] = await Promise.all([store.put("same", "text/plain"), store.put("same", "text/plain")]);
    expect(c.ref).toBe(d.ref);
    expect((await store.get(c.ref))?.bytes.toString()).toBe("same");
  });

  it("returns null for an unknown ref and rejects a malformed one", async () => {
    expect(await store.get(`artifact:sha256-${"0".repeat(64)}`)).toBeNull();
    for (const bad of ["artifact:report_456", "sha256-abc", `artifact:sha256-${"A".repeat(64)}`, `artifact:sha256-../../${"0".repeat(58)}`]) {
      const e = await store.get(bad).catch((x: unknown) => x);
      expect(isClutchError(e) && e.code).toBe("INVALID_ARTIFACT_REF");
    }
  });

  it("reports corrupted bytes instead of serving them", async () => {
    const put = await store.put("original content", "text/plain");
    const hex = put.ref.slice(-64);
    fs.writeFileSync(path.join(dataDir, "artifacts", "sha256", hex.slice(0, 2), hex), "tampered content");
    const e = await store.get(put.ref).catch((x: unknown) => x);
    expect(isClutchError(e) && e.code).toBe("ARTIFACT_CORRUPT");
  });

  it("rejects a malformed media type", async () => {
    const e = await store.put("x", "not a media type").catch((x: unknown) => x);
    expect(isClutchError(e) && e.code).toBe("INVALID_MEDIA_TYPE");
  });
});
