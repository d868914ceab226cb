/**
 * Helpers for thin route handlers: JSON responses, body and cursor parsing. Every handler is
 * wrapped by `route` (route.ts), which also turns errors into `{ error: { code, message, issues? } }`.
 */
import { z } from "zod";
import { describePath, findUnstorable } from "@/lib/protocol";
import { ClutchError } from "@/server/errors";

export function json(data: unknown, status = 200): Response {
  return Response.json(data, { status, headers: { "cache-control": "no-store" } });
}

/**
 * A JSON Lines response (`text/x-ndjson` unless `headers` say otherwise, `no-store`) whose
 * body is `chunks`, each written as it is produced: the next is asked for only once the client has
 * taken the last (backpressure), and a client that goes away stops the generator. A chunk that fails
 * after the first has been sent breaks the body off (the client sees a network error, never a short
 * answer that looks whole).
 */
export function ndjson(chunks: AsyncGenerator<string>, headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  // As text/*, which Next's compression gzips (it leaves application/x-ndjson alone, and drops a
  // Content-Encoding a route sets itself): a run's 30 MB of lines travel as about 2 MB.
  return new Response(body, { headers: { "content-type": "text/x-ndjson; charset=utf-8", "cache-control": "no-store", ...headers } });
}

/**
 * A path parameter as the id it names. Next.js hands some parameters over still percent-encoded
 * (`agent%3Aken`) and others decoded (`agent:%x` from `agent%3A%25x`), so decoding is tried once and
 * a value that does not decode is taken as it is; decoding never throws.
 */
export function pathParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Largest JSON request body, in bytes (docs/limits.md). */
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;
/** Largest JSON Lines import body, in bytes (docs/limits.md). */
export const MAX_IMPORT_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The request body as text, read as it streams in and abandoned as soon as it passes `maxBytes`,
 * so an oversized body is never held whole. Throws ClutchError body_too_large (413).
 */
export async function readText(req: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new ClutchError("body_too_large", `the request body is larger than ${(maxBytes / 1024 / 1024).toLocaleString("en-US")} MiB; send less at a time`, 413);
  const declared = Number(req.headers.get("content-length"));
  if (declared > maxBytes) throw tooLarge();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The request body as JSON that can be stored (lib/protocol/json-limits.ts: no NUL character, valid
 * Unicode, nesting at most MAX_JSON_DEPTH, no `__proto__` key). Throws ClutchError invalid_json
 * (400, the first bad place in `issues`) or body_too_large (413). An empty body is an error unless
 * `opts.empty` gives the value it stands for.
 */
export async function readJson(req: Request, opts: { maxBytes?: number; empty?: unknown } = {}): Promise<unknown> {
  const text = await readText(req, opts.maxBytes ?? MAX_JSON_BODY_BYTES);
  if (!text.trim()) {
    if (opts.empty !== undefined) return opts.empty;
    throw new ClutchError("invalid_json", "the request body is empty; send JSON");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ClutchError("invalid_json", `the request body is not valid JSON: ${(err as Error).message}`);
  }
  const bad = findUnstorable(value);
  if (bad) throw new ClutchError("invalid_json", `${describePath(bad.path)} ${bad.message}; nothing was stored`, 400, [bad]);
  return value;
}

const cursor = z.coerce.number().int().nonnegative();
const PageQuery = z.strictObject({
  after: cursor.optional(),
  before: z.union([z.literal("end"), cursor]).optional(),
  limit: z.coerce.number().int().min(1).max(5000).optional(),
});

/**
 * `?after=&before=&limit=` from a URL (server/events/read.ts: after, before, or both for the
 * events between them). Throws ClutchError invalid_query (400).
 */
export function pageQuery(url: string) {
  const params = Object.fromEntries(new URL(url).searchParams);
  const r = PageQuery.safeParse(params);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ClutchError("invalid_query", `${i.path.join(".") || "query"}: ${i.message}`, 400, r.error.issues);
  }
  const { after, before } = r.data;
  if (after !== undefined && typeof before === "number" && before <= after + 1) {
    throw new ClutchError("invalid_query", `before (${before}) must be greater than after + 1 (${after + 1}): no event lies between them`);
  }
  return r.data;
}
