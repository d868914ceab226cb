/**
 * GET /api/artifacts/:ref: the bytes of an artifact (`artifact:sha256-<hex>`, URL-encoded), e.g.
 * the whole result of a tool call whose event holds only a preview (Clutch Protocol §8.2).
 * Artifacts live in the database, so any node serves any artifact, whichever node stored it.
 * The body streams from the database one chunk at a time (server/artifacts/store.ts `open`), with
 * `content-length` and the stored media type; the hash is checked as it streams, and a body whose
 * bytes do not match it is cut off rather than completed.
 * 400 malformed ref; 404 unknown. Any signed-in principal may read an artifact whose ref it has:
 * refs are content hashes, known only to those who saw the event that names them.
 */
import { ClutchError } from "@/server/errors";
import { ARTIFACT_REF_PATTERN } from "@/server/artifacts/store";
import { getClutch } from "@/server/instance";
import { z } from "zod";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in", params: z.object({ ref: z.string().min(1) }) }, async ({ params: { ref } }) => {
  if (!ARTIFACT_REF_PATTERN.test(ref)) throw new ClutchError("invalid_ref", `${ref} is not an artifact ref (artifact:sha256-<64 hex>)`);
  const artifact = await getClutch().artifacts.open(ref);
  if (!artifact) throw new ClutchError("unknown_artifact", `artifact ${ref} does not exist`, 404);
  return new Response(artifact.body, {
    headers: {
      "content-type": artifact.media_type,
      "content-length": String(artifact.size),
      "cache-control": "private, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
    },
  });
});
