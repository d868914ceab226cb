/** Any other /api/* path: a JSON 404 (never the HTML page), for every method. */
import { json } from "../_lib/http";

export const dynamic = "force-dynamic";

const notFound = async (req: Request) =>
  json({ error: { code: "not_found", message: `there is no API route ${req.method} ${new URL(req.url).pathname}` } }, 404);

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
