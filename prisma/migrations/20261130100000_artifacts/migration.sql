-- Artifacts (Clutch Protocol section 8.2, docs/architecture.md): the bytes kept off the event stream, in
-- the database so that every node serves every artifact. One row per artifact, named by the SHA-256
-- of its bytes, and the bytes in order in artifact_chunks (at most 1 MiB a row), written in the same
-- transaction as the artifact's row and never changed (server/artifacts/store.ts).
-- CreateTable
CREATE TABLE "artifacts" (
    "sha256" TEXT NOT NULL,
    "media_type" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "chunks" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "artifacts_pkey" PRIMARY KEY ("sha256")
);

-- CreateTable
CREATE TABLE "artifact_chunks" (
    "sha256" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,

    CONSTRAINT "artifact_chunks_pkey" PRIMARY KEY ("sha256","n")
);

-- AddForeignKey
ALTER TABLE "artifact_chunks" ADD CONSTRAINT "artifact_chunks_sha256_fkey" FOREIGN KEY ("sha256") REFERENCES "artifacts"("sha256") ON DELETE CASCADE ON UPDATE CASCADE;

