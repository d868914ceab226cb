/**
 * GET /api/usage/prices: the workspace's model prices (workspace.json `prices`; docs/observability.md
 * "Prices"), per million tokens in `currency`, with the built-in model at zero, for the browser to
 * price the usage it folds. 200 { currency, models: { <model>: { input, output, cached_input? } },
 * status: { ok, error } } (error: why the file's newest prices were not taken).
 */
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "signed-in" }, async () => {
  const { prices } = getClutch();
  const { ok, error } = prices.status();
  return json({ ...prices.current(), status: { ok, error } });
});
