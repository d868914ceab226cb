/** Pieces the sales team's playbooks share: the MCP tools they call and how they read answers. */
import { mcpToolName } from "@/server/agents/contract";
import type { Dimension } from "./sql";

/** DataServer's and DocsServer's tools, as the runner offers them (contract.ts mcpToolName). */
export const QUERY_DATA = mcpToolName("DataServer", "query_data");
export const LIST_DOCUMENTS = mcpToolName("DocsServer", "list_documents");
export const READ_FILE = mcpToolName("DocsServer", "read_file");

/**
 * The breakdown a request or an answer asks for. An explicit `Breakdown: <dim>` line wins (pm-1
 * writes one into its delegation); else keywords: segment(s) → segment; overall/total/trend
 * without region or market → total; else region (the spec's default: major markets).
 */
export function dimensionOf(text: string): Dimension {
  const explicit = /breakdown:\s*(region|segment|total)/i.exec(text)?.[1]?.toLowerCase();
  if (explicit === "region" || explicit === "segment" || explicit === "total") return explicit;
  const t = text.toLowerCase();
  if (/\bregion|\bmarket|geograph/.test(t)) return "region";
  if (/segment|customer type|consumer|corporate|home office/.test(t)) return "segment";
  if (/overall|total|trend|big picture|whole/.test(t)) return "total";
  return "region";
}

/** True when an answer declines ("no", "don't", "skip", "not needed"). */
export function isNegative(text: string): boolean {
  return /^\s*(no|nope|not now)\b|\bno need\b|\bdon'?t\b|\bdo not\b|\bskip\b|\bnot needed\b|\bunnecessary\b/i.test(text);
}
