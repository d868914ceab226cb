/**
 * DocsServer: an MCP server over stdio (official SDK) serving the project documents of
 * `examples/sales-analysis/docs/` (or `$CLUTCH_DOCS_DIR`). CAP "MCP Integration" and the
 * PM → Analyst → QA example: pm-1 reads the project spec through DocsServer.
 *
 * Tools:
 * - `list_documents {}` → `{ documents: [{ name, title, size }] }` (size in bytes);
 * - `read_file { path }` → `{ path, title, size, text }`; `path` is relative to the docs folder,
 *   anything outside it is refused;
 * - `create_summary { text? | path?, max_sentences? }` → an extractive summary (headings and the
 *   most informative sentences; deterministic, no model).
 *
 * Start: `node --import tsx examples/sales-analysis/mcp-servers/docs-server.ts` (see
 * examples/sales-analysis/mcp.json).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { docsDir, guarded, isMainModule, jsonResult, logToStderr, serveStdio, ToolInputError } from "./common";
import { listDocuments, readDocument } from "./docs-store";
import { DEFAULT_MAX_SENTENCES, MAX_SENTENCES_LIMIT, summarizeText } from "./summarize";

const NAME = "DocsServer";

/** Builds the DocsServer over the folder `root` (absolute). Exported for in-process tests. */
export function createDocsServer(root: string): McpServer {
  const server = new McpServer(
    { name: NAME, version: "1.0.0" },
    { instructions: "Project documents for the sales analysis: the project spec, the data dictionary, a glossary and notes. Call list_documents, then read_file." },
  );

  server.registerTool(
    "list_documents",
    {
      title: "List documents",
      description: "Lists the project documents: name (the path to give read_file), title (first heading) and size in bytes.",
      inputSchema: {},
      outputSchema: {
        documents: z.array(z.object({ name: z.string(), title: z.string(), size: z.number() })),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => guarded("list_documents", async () => jsonResult({ documents: await listDocuments(root) })),
  );

  server.registerTool(
    "read_file",
    {
      title: "Read a document",
      description:
        "Reads one project document as text. `path` is relative to the docs folder, e.g. \"project-spec-q4-sales-trends.md\"; " +
        "paths outside the folder are refused. Returns { path, title, size (bytes), text }.",
      inputSchema: { path: z.string().min(1).max(500).describe("document name as listed by list_documents") },
      outputSchema: { path: z.string(), title: z.string(), size: z.number(), text: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ path }) => guarded("read_file", async () => jsonResult(await readDocument(root, path))),
  );

  server.registerTool(
    "create_summary",
    {
      title: "Summarize a document or text",
      description:
        "Deterministic extractive summary (no model): the document's headings and its most informative sentences, in source order. " +
        "Give either `path` (a document from list_documents) or `text`. `max_sentences` 1–50, default 5. " +
        "Returns { source, title, headings, sentences: [{ text, section }], summary (markdown), stats }.",
      inputSchema: {
        path: z.string().min(1).max(500).optional().describe("document to summarize (relative to the docs folder)"),
        text: z.string().min(1).max(200_000).optional().describe("text to summarize instead of a document"),
        max_sentences: z.number().int().min(1).max(MAX_SENTENCES_LIMIT).optional().describe(`default ${DEFAULT_MAX_SENTENCES}`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ path, text, max_sentences }) =>
      guarded("create_summary", async () => {
        if ((path === undefined) === (text === undefined)) {
          throw new ToolInputError("give exactly one of `path` (a document name) or `text`");
        }
        const source = path !== undefined ? await readDocument(root, path) : undefined;
        const s = summarizeText(source ? source.text : (text as string), max_sentences ?? DEFAULT_MAX_SENTENCES);
        return jsonResult({
          source: source ? { path: source.path, size: source.size } : { text_chars: (text as string).length },
          title: s.title,
          headings: s.headings,
          sentences: s.sentences.map(({ text: t, section }) => ({ text: t, section })),
          summary: s.summary,
          stats: s.stats,
        });
      }),
  );

  return server;
}

if (isMainModule(import.meta.url)) {
  const root = docsDir();
  logToStderr(NAME, `serving ${root}`);
  await serveStdio(NAME, createDocsServer(root));
}
