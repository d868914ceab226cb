/**
 * GET /api/artifacts/:ref: the bytes of an artifact (`artifact:sha256-<hex>`, URL-encoded), e.g.
 * the whole result of a tool call whose event holds only a preview (Clutch Protocol §8.2).
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
  const artifact = await getClutch().artifacts.get(ref);
  if (!artifact) throw new ClutchError("unknown_artifact", `artifact ${ref} does not exist`, 404);
  return new Response(new Uint8Array(artifact.bytes), {
    headers: { "content-type": artifact.media_type, "cache-control": "private, max-age=31536000, immutable", "x-content-type-options": "nosniff" },
  });
});
