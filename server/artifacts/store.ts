/**
 * The artifact store (Clutch Protocol §8.2): large payloads kept off the event stream,
 * content-addressed, referenced from events as `artifact:sha256-<hex>` (Appendix B `artifact:`
 * prefix; seed 004 "pointers for large payloads").
 *
 * Artifacts live in PostgreSQL (the embedded PGlite or the deployment's server), so every node of a
 * deployment serves every artifact, whichever node stored it (docs/deploy.md):
 *
 * ```
 * artifacts        (sha256 hex PK, media_type, size bigint bytes, chunks int, created_at)
 * artifact_chunks  (sha256, n from 0, bytes bytea): the bytes in order, CHUNK_BYTES per row (the last shorter)
 * ```
 *
 * - The same bytes always get the same ref and are stored once: the first media type wins, and a
 *   repeat returns `created: false` and writes nothing.
 * - The artifact's row (`INSERT … ON CONFLICT DO NOTHING`) and all its chunks are written in one
 *   transaction, so a reader never sees half an artifact; rows are never changed afterwards.
 * - Large artifacts stream: `putStream` spools its input to a temporary file while hashing it (the
 *   hash names the row, so it must be known before the row is written), and `open` reads the
 *   bytes back one chunk at a time, checking the hash as they pass.
 * - Size limit: `maxBytes` (CLUTCH_ARTIFACT_MAX_BYTES, default 100 MiB; docs/limits.md). A larger
 *   artifact is refused with `ClutchError` `artifact_too_large` (413) before anything is stored.
 * - Upgrade: artifacts an older Clutch kept as files under `<dataDir>/artifacts/sha256/<2 hex>/<64
 *   hex>` (with `<64 hex>.json` holding `{ media_type, size, created_at }`) are imported by
 *   `importFromDisk` at start, once: a stored hash is skipped. The files are left in place.
 */
import { createHash, type Hash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Db } from "@/server/db/client";
import { ClutchError } from "@/server/errors";
import { RESERVED_PREFIX } from "@/lib/protocol/ids";
import { log } from "@/server/log";

/** `artifact:sha256-<64 lowercase hex>`. */
export const ARTIFACT_REF_PATTERN = /^artifact:sha256-([0-9a-f]{64})$/;
const MEDIA_TYPE = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*(\s*;.*)?$/;

/** Largest artifact by default, bytes (100 MiB); CLUTCH_ARTIFACT_MAX_BYTES overrides it. */
export const DEFAULT_ARTIFACT_MAX_BYTES = 100 * 1024 * 1024;
/** Bytes per row of artifact_chunks (512 KiB); the last chunk of an artifact is shorter. */
export const CHUNK_BYTES = 512 * 1024;
/** A put waits this long for a connection, ms; its transaction may take this long, ms. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 5 * 60_000 };

/** What {@link ArtifactStore.put} returns. */
export interface PutResult {
  /** `artifact:sha256-<hex>`: put it in an event's `artifact_ref` or an `artifact_ref` attachment. */
  ref: string;
  /** Size in bytes. */
  size: number;
  /** The stored media type: the first put's, for a repeat. */
  media_type: string;
  /** False when the same bytes were already stored (nothing was written). */
  created: boolean;
}

/** What {@link ArtifactStore.get} returns. */
export interface Artifact {
  ref: string;
  bytes: Buffer;
  /** Bytes. */
  size: number;
  media_type: string;
  /** ISO 8601. */
  created_at: string;
}

/** What {@link ArtifactStore.open} returns: the artifact's facts, and its bytes as a stream. */
export interface ArtifactStream {
  ref: string;
  /** Bytes. */
  size: number;
  media_type: string;
  /** ISO 8601. */
  created_at: string;
  /**
   * The bytes, read one chunk at a time as the consumer pulls. It errors with `ARTIFACT_CORRUPT`
   * when a chunk is missing or the bytes do not match the hash (found at the end, after the rest
   * was sent: a client then sees a cut-off body, never a complete wrong one).
   */
  body: ReadableStream<Uint8Array>;
}

/** What {@link ArtifactStore.importFromDisk} did. */
export interface ImportResult {
  /** Files stored in the table. */
  imported: number;
  /** Files whose hash was stored already. */
  skipped: number;
  /** Files that could not be imported (unreadable, or bytes that do not match their name); left for the next start. */
  failed: number;
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
  return m[1]!;
}

const refOf = (hex: string) => `${RESERVED_PREFIX.artifact}sha256-${hex}`;

const corrupt = (ref: string, why: string) => new ClutchError("ARTIFACT_CORRUPT", `artifact ${ref} is corrupt in the database (${why})`, 500);

export interface ArtifactStoreOptions {
  /** Largest artifact, bytes (default DEFAULT_ARTIFACT_MAX_BYTES). */
  maxBytes?: number;
}

/** A content-addressed store of byte blobs in the database (see the module doc). */
export class ArtifactStore {
  /** Largest artifact `put` and `putStream` accept, bytes. */
  readonly maxBytes: number;

  /** `db` is the database client of the event log (server/events/open.ts). */
  constructor(
    private readonly db: Db,
    opts: ArtifactStoreOptions = {},
  ) {
    this.maxBytes = opts.maxBytes ?? DEFAULT_ARTIFACT_MAX_BYTES;
  }

  /**
   * Stores `bytes` (a string is stored as UTF-8) with `mediaType` (e.g. `application/json`;
   * default `application/octet-stream`) and returns `{ ref, size, media_type, created }`. Storing
   * the same bytes again writes nothing and returns the same ref with the media type first stored.
   * Throws `ClutchError` `INVALID_MEDIA_TYPE` (400) for a malformed media type and
   * `artifact_too_large` (413) for more than `maxBytes`, both before anything is stored; database
   * errors as is.
   */
  async put(bytes: Uint8Array | string, mediaType = "application/octet-stream"): Promise<PutResult> {
    checkMediaType(mediaType);
    const buf = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.checkSize(buf.byteLength);
    const hex = createHash("sha256").update(buf).digest("hex");
    async function* chunks() {
      for (let at = 0; at < buf.byteLength; at += CHUNK_BYTES) yield buf.subarray(at, at + CHUNK_BYTES);
    }
    return this.write(hex, mediaType, buf.byteLength, chunks());
  }

  /** Stores `value` as JSON (`application/json`); see {@link put}. */
  async putJson(value: unknown): Promise<PutResult> {
    return this.put(JSON.stringify(value ?? null), "application/json");
  }

  /**
   * Stores the bytes `source` yields (a Node stream, or `Readable.fromWeb(body)` for a web stream)
   * without holding them in memory: they are spooled to a temporary file while hashed, then
   * written chunk by chunk. `size`, when the caller knows it (a `content-length`), is refused at
   * once if too large. Same result and errors as {@link put}; `artifact_too_large` (413) as soon as
   * more than `maxBytes` arrived, with nothing stored.
   */
  async putStream(source: AsyncIterable<Uint8Array>, mediaType = "application/octet-stream", opts: { size?: number } = {}): Promise<PutResult> {
    checkMediaType(mediaType);
    if (opts.size !== undefined) this.checkSize(opts.size);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "clutch-artifact-"));
    try {
      const file = path.join(dir, "bytes");
      const hash = createHash("sha256");
      let size = 0;
      const out = await fs.open(file, "w");
      try {
        for await (const piece of source) {
          size += piece.byteLength;
          this.checkSize(size);
          hash.update(piece);
          await out.write(piece);
        }
      } finally {
        await out.close();
      }
      const hex = hash.digest("hex");
      return await this.write(hex, mediaType, size, checked(fileChunks(file), hex, refOf(hex)));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * The artifact `ref` with all its bytes, or null when it is not stored. Throws `ClutchError`
   * `INVALID_ARTIFACT_REF` (400) for a malformed ref and `ARTIFACT_CORRUPT` (500) when the stored
   * bytes no longer match their hash. For a large artifact prefer {@link open}.
   */
  async get(ref: string): Promise<Artifact | null> {
    const opened = await this.open(ref);
    if (!opened) return null;
    const parts: Uint8Array[] = [];
    const reader = opened.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
    const bytes = Buffer.concat(parts);
    return { ref, bytes, size: bytes.byteLength, media_type: opened.media_type, created_at: opened.created_at };
  }

  /**
   * The artifact `ref` as a stream of its bytes (see {@link ArtifactStream}), or null when it is
   * not stored. Throws `INVALID_ARTIFACT_REF` (400) for a malformed ref.
   */
  async open(ref: string): Promise<ArtifactStream | null> {
    const hex = parseArtifactRef(ref);
    const row = await this.db.artifact.findUnique({ where: { sha256: hex } });
    if (!row) return null;
    const size = Number(row.size);
    const db = this.db;
    const hash = createHash("sha256");
    let n = 0;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            if (n === row.chunks) {
              if (sent !== size) throw corrupt(ref, `${sent} bytes stored, ${size} expected`);
              if (hash.digest("hex") !== hex) throw corrupt(ref, "its bytes do not match its hash");
              controller.close();
              return;
            }
            const chunk = await db.artifactChunk.findUnique({ where: { sha256_n: { sha256: hex, n } } });
            if (!chunk) throw corrupt(ref, `chunk ${n} of ${row.chunks} is missing`);
            n += 1;
            sent += chunk.bytes.byteLength;
            hash.update(chunk.bytes);
            controller.enqueue(new Uint8Array(chunk.bytes));
          } catch (err) {
            log.error({ err, ref }, "an artifact could not be read whole; its stream was cut off");
            controller.error(err);
          }
        },
      },
      { highWaterMark: 0 },
    );
    return { ref, size, media_type: row.media_type, created_at: row.created_at.toISOString(), body };
  }

  /** True when `ref` is stored. Throws `INVALID_ARTIFACT_REF` for a malformed ref. */
  async has(ref: string): Promise<boolean> {
    const hex = parseArtifactRef(ref);
    return (await this.db.artifact.count({ where: { sha256: hex } })) > 0;
  }

  /**
   * Imports the artifacts an older Clutch kept as files under `<dataDir>/artifacts/sha256/`
   * (module doc), keeping each one's media type and creation time. Idempotent: a hash already in
   * the table is skipped, so every start may call it. The size limit does not apply (they were
   * stored before it). A file whose bytes do not match its name, or that cannot be read, is
   * counted in `failed` and left for the next start; the files are never deleted.
   */
  async importFromDisk(dataDir: string): Promise<ImportResult> {
    const root = path.join(path.resolve(dataDir), "artifacts", "sha256");
    const result: ImportResult = { imported: 0, skipped: 0, failed: 0 };
    const files: { hex: string; file: string }[] = [];
    for (const dir of await readdirOrEmpty(root)) {
      if (!/^[0-9a-f]{2}$/.test(dir)) continue;
      for (const name of await readdirOrEmpty(path.join(root, dir))) {
        if (/^[0-9a-f]{64}$/.test(name) && name.startsWith(dir)) files.push({ hex: name, file: path.join(root, dir, name) });
      }
    }
    const stored = new Set<string>();
    for (let i = 0; i < files.length; i += 1000) {
      const rows = await this.db.artifact.findMany({ where: { sha256: { in: files.slice(i, i + 1000).map((f) => f.hex) } }, select: { sha256: true } });
      for (const r of rows) stored.add(r.sha256);
    }
    for (const { hex, file } of files) {
      if (stored.has(hex)) {
        result.skipped += 1;
        continue;
      }
      try {
        const meta = await readMeta(`${file}.json`);
        const { size } = await fs.stat(file);
        const put = await this.write(hex, meta.media_type, size, checked(fileChunks(file), hex, refOf(hex)), meta.created_at);
        result[put.created ? "imported" : "skipped"] += 1;
      } catch (err) {
        log.warn({ err, file }, "an artifact file could not be imported into the database; it is left for the next start");
        result.failed += 1;
      }
    }
    return result;
  }

  private checkSize(size: number): void {
    if (size > this.maxBytes) {
      throw new ClutchError("artifact_too_large", `the artifact is larger than ${this.maxBytes} bytes (CLUTCH_ARTIFACT_MAX_BYTES); nothing was stored`, 413);
    }
  }

  /**
   * Writes the artifact `hex` (its row, then `chunks` in order) in one transaction, unless it is
   * stored already. `chunks` must yield at most CHUNK_BYTES at a time, `size` bytes in all.
   */
  private async write(hex: string, mediaType: string, size: number, chunks: AsyncIterable<Uint8Array>, createdAt?: Date): Promise<PutResult> {
    const ref = refOf(hex);
    const existing = await this.db.artifact.findUnique({ where: { sha256: hex }, select: { media_type: true } });
    if (existing) return { ref, size, media_type: existing.media_type, created: false };
    const count = Math.ceil(size / CHUNK_BYTES);
    return this.db.$transaction(async (tx) => {
      // A concurrent put of the same bytes waits here for the first to commit, then does nothing.
      const inserted = await tx.$queryRaw<{ sha256: string }[]>`
        INSERT INTO "artifacts" ("sha256", "media_type", "size", "chunks", "created_at")
        VALUES (${hex}, ${mediaType}, ${BigInt(size)}, ${count}, ${createdAt ?? new Date()})
        ON CONFLICT ("sha256") DO NOTHING RETURNING "sha256"`;
      if (!inserted.length) {
        const first = await tx.artifact.findUniqueOrThrow({ where: { sha256: hex }, select: { media_type: true } });
        return { ref, size, media_type: first.media_type, created: false };
      }
      let n = 0;
      let written = 0;
      for await (const piece of chunks) {
        if (piece.byteLength > CHUNK_BYTES) throw new Error(`artifact chunk of ${piece.byteLength} bytes is over CHUNK_BYTES`);
        await tx.artifactChunk.create({ data: { sha256: hex, n, bytes: new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength) as Uint8Array<ArrayBuffer> } });
        n += 1;
        written += piece.byteLength;
      }
      if (n !== count || written !== size) throw new Error(`artifact ${ref}: ${written} bytes in ${n} chunks written, ${size} in ${count} expected; nothing was stored`);
      return { ref, size, media_type: mediaType, created: true };
    }, TX_OPTIONS);
  }
}

function checkMediaType(mediaType: string): void {
  if (!MEDIA_TYPE.test(mediaType)) throw new ClutchError("INVALID_MEDIA_TYPE", `"${mediaType}" is not a media type (type/subtype)`, 400);
}

/** The file's bytes, CHUNK_BYTES at a time, read as they are consumed. */
async function* fileChunks(file: string): AsyncGenerator<Uint8Array> {
  const fh = await fs.open(file, "r");
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let filled = 0;
      while (filled < CHUNK_BYTES) {
        const { bytesRead } = await fh.read(buf, filled, CHUNK_BYTES - filled, null);
        if (!bytesRead) break;
        filled += bytesRead;
      }
      if (filled) yield buf.subarray(0, filled);
      if (filled < CHUNK_BYTES) return;
    }
  } finally {
    await fh.close();
  }
}

/** `chunks` passed through, hashed: throws (so the transaction writing them rolls back) when they do not hash to `hex`. */
async function* checked(chunks: AsyncIterable<Uint8Array>, hex: string, ref: string): AsyncGenerator<Uint8Array> {
  const hash: Hash = createHash("sha256");
  for await (const piece of chunks) {
    hash.update(piece);
    yield piece;
  }
  if (hash.digest("hex") !== hex) throw new Error(`the bytes given for ${ref} do not match its hash (the file changed, or is not what its name says); nothing was stored`);
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw e;
  }
}

/** The media type and creation time of an on-disk artifact's `.json`; octet-stream and now when it is missing or unreadable. */
async function readMeta(file: string): Promise<{ media_type: string; created_at: Date }> {
  try {
    const m = JSON.parse(await fs.readFile(file, "utf8")) as { media_type?: unknown; created_at?: unknown };
    const created = typeof m.created_at === "string" ? new Date(m.created_at) : new Date();
    return {
      media_type: typeof m.media_type === "string" && MEDIA_TYPE.test(m.media_type) ? m.media_type : "application/octet-stream",
      created_at: Number.isNaN(created.getTime()) ? new Date() : created,
    };
  } catch {
    return { media_type: "application/octet-stream", created_at: new Date() };
  }
}
