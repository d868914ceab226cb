/**
 * GET /api/artifacts/:ref: the bytes of an artifact (`artifact:sha256-<hex>`, URL-encoded), e.g.
 * the whole result of a tool call whose event holds only a preview (Clutch Protocol §8.2).
 * 400 malformed ref; 404 unknown.
 */
import { ClutchError } from "@/server/errors";
import { ARTIFACT_REF_PATTERN } from "@/server/artifacts/store";
import { getClutch } from "@/server/instance";
import { pathParam, route } from "../../_lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async (_req, { params }: { params: Promise<{ ref: string }> }) => {
  const ref = pathParam((await params).ref);
  if (!ARTIFACT_REF_PATTERN.test(ref)) throw new ClutchError("invalid_ref", `${ref} is not an artifact ref (artifact:sha256-<64 hex>)`);
  const artifact = await getClutch().artifacts.get(ref);
  if (!artifact) throw new ClutchError("unknown_artifact", `artifact ${ref} does not exist`, 404);
  return new Response(new Uint8Array(artifact.bytes), {
    headers: { "content-type": artifact.media_type, "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" },
  });
});
