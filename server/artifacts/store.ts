/**
 * The artifact store (Clutch Protocol §8.2): large payloads kept off the event stream,
 * content-addressed, referenced from events as `artifact:sha256-<hex>` (Appendix B `artifact:`
 * prefix; seed 004 "pointers for large payloads").
 *
 * Layout on disk, under `<dataDir>/artifacts/`:
 *
 * ```
 * sha256/<first 2 hex>/<64 hex>        the bytes
 * sha256/<first 2 hex>/<64 hex>.json   { "media_type": "...", "size": 123, "created_at": "ISO 8601" }
 * ```
 *
 * The same bytes always get the same ref and are stored once (the first media type wins). Files
 * are written to a temporary name and renamed, so a reader never sees a half-written artifact, and
 * `get` checks the hash, so a corrupted file is reported rather than served.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { ClutchError } from "@/server/errors";
import { RESERVED_PREFIX } from "@/lib/protocol/ids";

/** `artifact:sha256-<64 lowercase hex>`. */
export const ARTIFACT_REF_PATTERN = /^artifact:sha256-([0-9a-f]{64})$/;
const MEDIA_TYPE = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*(\s*;.*)?$/;

/** What {@link ArtifactStore.put} returns. */
export interface PutResult {
  /** `artifact:sha256-<hex>`: put it in an event's `artifact_ref` or an `artifact_ref` attachment. */
  ref: string;
  /** Size in bytes. */
  size: number;
  media_type: string;
  /** False when the same bytes were already stored (nothing was written). */
  created: boolean;
}

/** What {@link ArtifactStore.get} returns. */
export interface Artifact {
  ref: string;
  bytes: Buffer;
  size: number;
  media_type: string;
  created_at: string;
}

/** The ref of `bytes` without storing them: `artifact:sha256-<hex of sha256(bytes)>`. */
export function artifactRefFor(bytes: Uint8Array | string): string {
  return `${RESERVED_PREFIX.artifact}sha256-${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * The hex digest inside `ref`. Throws `ClutchError` `INVALID_ARTIFACT_REF` (400) when `ref` is not
 * `artifact:sha256-<64 lowercase hex>`.
 */
export function parseArtifactRef(ref: string): string {
  const m = ARTIFACT_REF_PATTERN.exec(ref);
  if (!m) throw new ClutchError("INVALID_ARTIFACT_REF", `"${ref}" is not an artifact reference (artifact:sha256-<64 hex digits>)`, 400);
  return m[1];
}

/** A content-addressed store of byte blobs on the local disk. */
export class ArtifactStore {
  /** Absolute path of `<dataDir>/artifacts`. */
  readonly root: string;

  /** `dataDir` is Clutch's data directory (`CLUTCH_DATA_DIR`, see server/config.ts); created on first put. */
  constructor(dataDir: string) {
    this.root = path.resolve(dataDir, "artifacts");
  }

  private paths(hex: string): { file: string; meta: string; dir: string } {
    const dir = path.join(this.root, "sha256", hex.slice(0, 2));
    return { dir, file: path.join(dir, hex), meta: path.join(dir, `${hex}.json`) };
  }

  /**
   * Stores `bytes` (a string is stored as UTF-8) with `mediaType` (e.g. `application/json`;
   * default `application/octet-stream`) and returns `{ ref, size, media_type, created }`. Storing
   * the same bytes again writes nothing and returns the same ref with the media type first stored.
   * Throws `ClutchError` `INVALID_MEDIA_TYPE` (400) for a malformed media type; I/O errors as is.
   */
  async put(bytes: Uint8Array | string, mediaType = "application/octet-stream"): Promise<PutResult> {
    if (!MEDIA_TYPE.test(mediaType)) throw new ClutchError("INVALID_MEDIA_TYPE", `"${mediaType}" is not a media type (type/subtype)`, 400);
    const buf = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const hex = createHash("sha256").update(buf).digest("hex");
    const ref = `${RESERVED_PREFIX.artifact}sha256-${hex}`;
    const p = this.paths(hex);

    const existing = await this.readMeta(p.meta);
    if (existing && (await fileSize(p.file)) === buf.byteLength) {
      return { ref, size: buf.byteLength, media_type: existing.media_type, created: false };
    }

    await fs.mkdir(p.dir, { recursive: true });
    await writeAtomic(p.file, buf);
    const meta = { media_type: mediaType, size: buf.byteLength, created_at: new Date().toISOString() };
    await writeAtomic(p.meta, Buffer.from(JSON.stringify(meta)));
    return { ref, size: buf.byteLength, media_type: mediaType, created: true };
  }

  /** Stores `value` as JSON (`application/json`); see {@link put}. */
  async putJson(value: unknown): Promise<PutResult> {
    return this.put(JSON.stringify(value ?? null), "application/json");
  }

  /**
   * The artifact `ref`, or null when it is not stored. Throws `ClutchError` `INVALID_ARTIFACT_REF`
   * (400) for a malformed ref and `ARTIFACT_CORRUPT` (500) when the stored bytes no longer match
   * their hash.
   */
  async get(ref: string): Promise<Artifact | null> {
    const hex = parseArtifactRef(ref);
    const p = this.paths(hex);
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(p.file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
    if (createHash("sha256").update(bytes).digest("hex") !== hex) {
      throw new ClutchError("ARTIFACT_CORRUPT", `artifact ${ref} is corrupt on disk (its bytes do not match its hash)`, 500);
    }
    const meta = (await this.readMeta(p.meta)) ?? { media_type: "application/octet-stream", created_at: new Date(0).toISOString() };
    return { ref, bytes, size: bytes.byteLength, media_type: meta.media_type, created_at: meta.created_at };
  }

  /** True when `ref` is stored. Throws `INVALID_ARTIFACT_REF` for a malformed ref. */
  async has(ref: string): Promise<boolean> {
    return (await fileSize(this.paths(parseArtifactRef(ref)).file)) !== null;
  }

  private async readMeta(file: string): Promise<{ media_type: string; created_at: string } | null> {
    try {
      const m = JSON.parse(await fs.readFile(file, "utf8")) as { media_type?: unknown; created_at?: unknown };
      if (typeof m.media_type !== "string") return null;
      return { media_type: m.media_type, created_at: typeof m.created_at === "string" ? m.created_at : new Date(0).toISOString() };
    } catch {
      return null;
    }
  }
}

async function fileSize(file: string): Promise<number | null> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return null;
  }
}

async function writeAtomic(file: string, data: Buffer): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}
