/**
 * Helpers for thin route handlers: JSON responses, the error shape
 * `{ error: { code, message, issues? } }`, body and cursor parsing.
 */
import { z } from "zod";
import { ClutchError, isClutchError } from "@/server/errors";
import { log } from "@/server/log";

export function json(data: unknown, status = 200): Response {
  return Response.json(data, { status, headers: { "cache-control": "no-store" } });
}

function errorBody(code: string, message: string, issues?: unknown[]) {
  return { error: issues ? { code, message, issues } : { code, message } };
}

/** Wrap a handler: ClutchErrors become their status; anything else a logged 500. */
export function route<C>(fn: (req: Request, ctx: C) => Promise<Response>) {
  return async (req: Request, ctx: C): Promise<Response> => {
    try {
      return await fn(req, ctx);
    } catch (err) {
      if (isClutchError(err)) return json(errorBody(err.code, err.message, err.issues), err.status);
      log.error({ err, url: req.url }, "request failed");
      return json(errorBody("internal", "something went wrong on the server; nothing was stored"), 500);
    }
  };
}

/** The request body as JSON. Throws ClutchError invalid_json (400). */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (!text.trim()) throw new ClutchError("invalid_json", "the request body is empty; send JSON");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ClutchError("invalid_json", `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

const cursor = z.coerce.number().int().nonnegative();
const PageQuery = z.strictObject({
  after: cursor.optional(),
  before: z.union([z.literal("end"), cursor]).optional(),
  limit: z.coerce.number().int().min(1).max(5000).optional(),
});

/** `?after=&before=&limit=` from a URL. Throws ClutchError invalid_query (400). */
export function pageQuery(url: string) {
  const params = Object.fromEntries(new URL(url).searchParams);
  const r = PageQuery.safeParse(params);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ClutchError("invalid_query", `${i.path.join(".") || "query"}: ${i.message}`, 400, r.error.issues);
  }
  if (r.data.after !== undefined && r.data.before !== undefined) {
    throw new ClutchError("invalid_query", "use either after or before, not both");
  }
  return r.data;
}
