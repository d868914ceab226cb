"use client";
/**
 * `ProblemsAlert`: an API refusal as a person reads it. One problem: the server's message. Several
 * (an `ApiRequestError` whose `issues` carry `{ path, message }`, e.g. invalid_pack,
 * invalid_workflow): `summary(n)`, then each problem with its path.
 */
import { ApiRequestError } from "./api";

/** The issues of `error` that name a message (and usually a path). */
function issuesOf(error: Error): { path?: string; message: string }[] {
  if (!(error instanceof ApiRequestError) || !Array.isArray(error.issues)) return [];
  return (error.issues as { path?: unknown; message?: unknown }[]).filter((i) => typeof i.message === "string").map((i) => ({ ...(typeof i.path === "string" && i.path ? { path: i.path } : {}), message: i.message as string }));
}

/** The alert (see the file comment); `id` for the field's aria-describedby. */
export function ProblemsAlert({ id, error, summary, className = "" }: { id: string; error: Error; summary: (count: number) => string; className?: string }) {
  const issues = issuesOf(error);
  return (
    <div id={id} role="alert" className={`rounded-md bg-danger/10 px-3 py-2 text-[13px] text-danger ${className}`}>
      <p>{issues.length > 1 ? summary(issues.length) : error.message}</p>
      {issues.length > 1 && (
        <ul className="mt-1 list-disc space-y-0.5 pl-5">
          {issues.map((i) => (
            <li key={`${i.path}:${i.message}`}>
              {i.path && <code className="font-mono text-[12px]">{i.path}</code>}
              {i.path ? ": " : ""}
              {i.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
