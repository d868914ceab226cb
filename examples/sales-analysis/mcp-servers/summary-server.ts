/**
 * SummaryServer: an MCP server over stdio (official SDK) that turns text or structured findings
 * into a human-readable summary, deterministically (no model). CAP's qa-1 binding: "Generate
 * human-readable summaries for review and approval."
 *
 * Tool `create_summary`, either
 * - `{ text, max_sentences? }` → extractive summary of the text (headings and its most informative
 *   sentences; see summarize.ts), or
 * - `{ title, sections: [{ heading, text?, bullets?, facts?, table? }], max_sentences? }` → a
 *   markdown document with one section per entry (text cut to `max_sentences` per section,
 *   default 3; numbers formatted with thousands separators).
 * Both return `{ kind, title, summary (markdown), … }`.
 *
 * Start: `node --import tsx examples/sales-analysis/mcp-servers/summary-server.ts`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { guarded, isMainModule, jsonResult, serveStdio, ToolInputError } from "./common";
import { DEFAULT_MAX_SENTENCES, MAX_SENTENCES_LIMIT, renderStructuredSummary, summarizeText } from "./summarize";

const NAME = "SummaryServer";

const Cell = z.union([z.string().max(2_000), z.number(), z.boolean(), z.null()]);
const Section = z.object({
  heading: z.string().min(1).max(200),
  text: z.string().max(50_000).optional(),
  bullets: z.array(z.string().max(2_000)).max(200).optional(),
  facts: z.record(z.string().max(200), Cell).optional().describe("label → value, e.g. { \"Q4 2017 sales\": 1234.5 }"),
  table: z
    .object({ columns: z.array(z.string().max(200)).min(1).max(30), rows: z.array(z.array(Cell).max(30)).max(1_000) })
    .optional(),
});

/** Builds the SummaryServer. Exported for in-process tests. */
export function createSummaryServer(): McpServer {
  const server = new McpServer({ name: NAME, version: "1.0.0" }, { instructions: "Deterministic summaries of text or structured findings, for review and approval." });

  server.registerTool(
    "create_summary",
    {
      title: "Create a summary",
      description:
        "Turns text or structured findings into a human-readable markdown summary, deterministically (no model). " +
        "Give either { text, max_sentences? } (extractive: headings and the most informative sentences, default 5) " +
        "or { title, sections: [{ heading, text?, bullets?, facts?, table?: { columns, rows } }], max_sentences? } " +
        "(one markdown section per entry; text cut to max_sentences per section, default 3). Returns { kind, title, summary, … }.",
      inputSchema: {
        text: z.string().min(1).max(200_000).optional().describe("prose or markdown to summarize"),
        title: z.string().min(1).max(300).optional().describe("title of a structured summary"),
        sections: z.array(Section).min(1).max(50).optional().describe("sections of a structured summary"),
        max_sentences: z.number().int().min(1).max(MAX_SENTENCES_LIMIT).optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    ({ text, title, sections, max_sentences }) =>
      guarded("create_summary", () => {
        if (text !== undefined && sections !== undefined) throw new ToolInputError("give either `text` or `title` + `sections`, not both");
        if (text !== undefined) {
          const s = summarizeText(text, max_sentences ?? DEFAULT_MAX_SENTENCES);
          return jsonResult({
            kind: "text",
            title: title ?? s.title,
            headings: s.headings,
            sentences: s.sentences.map(({ text: t, section }) => ({ text: t, section })),
            summary: title && title !== s.title ? `# ${title}\n\n${s.summary}` : s.summary,
            stats: s.stats,
          });
        }
        if (sections === undefined || title === undefined) {
          throw new ToolInputError("give `text`, or `title` with `sections` (a structured summary needs both)");
        }
        const r = renderStructuredSummary(title, sections, max_sentences ?? 3);
        return jsonResult({ kind: "structured", title, sections: r.sections, summary: r.summary });
      }),
  );

  return server;
}

if (isMainModule(import.meta.url)) {
  await serveStdio(NAME, createSummaryServer());
}
