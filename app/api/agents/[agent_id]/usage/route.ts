/**
 * GET /api/agents/:agent_id/usage?days=7: the agent's model calls of the last `days` UTC days
 * (1–90, default 7), `model.usage` events summed per day and model (docs/observability.md), for
 * the agent's page. 200 { agent_id, since, days: [{ day: "YYYY-MM-DD", rows: [{ model, calls,
 * input_tokens, output_tokens, cached_input_tokens, model_ms }] }] }, oldest day first, every
 * day of the window listed (empty rows on a day without calls). Figures only, no content: any
 * signed-in principal may read them.
 */
import { z } from "zod";
import type { ModelUsageRow } from "@/lib/api/types";
import { getClutch } from "@/server/instance";
import { json } from "../../../_lib/http";
import { route } from "../../../_lib/route";

export const dynamic = "force-dynamic";

const Query = z.object({ days: z.coerce.number({ error: "days is a whole number from 1 to 90" }).int().min(1).max(90).default(7) });

export const GET = route({ auth: "signed-in", params: z.object({ agent_id: z.string().min(1) }), query: Query }, async ({ params, query }) => {
  const { store } = getClutch();
  const now = new Date();
  const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (query.days - 1)));
  const rows = await store.queries.usageByModel({ agent_id: params.agent_id, since });
  const days: { day: string; rows: ModelUsageRow[] }[] = [];
  for (let d = new Date(since); d <= now; d = new Date(d.getTime() + 86_400_000)) {
    const day = d.toISOString().slice(0, 10);
    days.push({ day, rows: rows.filter((r) => r.key === day).map(({ key: _day, ...row }) => row) });
  }
  return json({ agent_id: params.agent_id, since: since.toISOString(), days });
});
