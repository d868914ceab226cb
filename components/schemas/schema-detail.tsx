"use client";
/**
 * One schema of the registry (`/schemas/<name>@<version>`, docs/schemas.md): its payload type
 * and ref, its versions (each a link), who added it and when, the agents that produce and
 * consume it (their AgentCards' `produces` / `consumes`), its JSON Schema, and a comparison with
 * another version as a line diff. `SchemasOverview` is the page with nothing selected.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import type { SchemaDetail, SchemaSummary } from "@/lib/api/types";
import { fetchSchema } from "@/components/live/api";
import { queryKeys } from "@/components/live/query-keys";
import { bareId } from "@/components/events/participant";
import { usePersonLabel } from "@/components/identity/names";
import { Button } from "@/components/ui/button";
import { Chip } from "@/components/ui/chip";
import { BracesIcon, PlusIcon } from "@/components/ui/icons";
import { JsonView } from "@/components/ui/json-view";
import { formatFull, formatTime } from "@/components/ui/time";
import { agentHref } from "@/components/workspace/agent-status";
import { diffSchemas, groupSchemas, nextPayloadType, schemaHref, type SchemaGroup } from "./model";
import type { NewSchemaStart } from "./new-schema-dialog";

/** The selected schema, loaded by ref; a 404 says so with a way back. */
export function SchemaDetailPane({ selectedRef, onNewVersion }: { selectedRef: string; onNewVersion: (start: NewSchemaStart) => void }) {
  const q = useQuery({ queryKey: queryKeys.schema(selectedRef), queryFn: () => fetchSchema(selectedRef), retry: (n, err) => (err as { status?: number }).status !== 404 && n < 2 });
  if (q.isPending) return <div role="status" aria-label="Loading the schema" className="m-6 h-64 animate-pulse rounded-lg bg-sunken" />;
  if (q.isError) {
    return (
      <div role="alert" className="px-6 py-12 text-center">
        <p className="font-semibold">{(q.error as { status?: number }).status === 404 ? `No schema ${selectedRef}` : "Couldn’t load the schema."}</p>
        <p className="mt-1 text-[13px] text-fg-muted">{q.error.message}</p>
        <Link href="/schemas" className="mt-3 inline-block text-[13px] font-medium text-accent hover:underline">
          All schemas
        </Link>
      </div>
    );
  }
  return <SchemaView schema={q.data.schema} versions={q.data.versions} onNewVersion={onNewVersion} />;
}

function SchemaView({ schema, versions, onNewVersion }: { schema: SchemaDetail; versions: SchemaSummary[]; onNewVersion: (start: NewSchemaStart) => void }) {
  const label = usePersonLabel();
  const group = useMemo(() => groupSchemas(versions)[0]!, [versions]);
  const next = nextPayloadType(group);
  const title = schema.payload_type ?? `${schema.message_type} payload`;
  return (
    <article aria-labelledby="schema-title" className="mx-auto max-w-4xl px-4 py-5 sm:px-6">
      <Link href="/schemas" className="mb-3 inline-block text-[13px] font-medium text-accent hover:underline lg:hidden">
        ← All schemas
      </Link>
      <header className="flex flex-wrap items-start gap-3">
        <div className="min-w-0 flex-1">
          <h2 id="schema-title" className="break-all font-mono text-[18px] font-bold">
            {title}
          </h2>
          <p className="mt-0.5 break-all font-mono text-[12.5px] text-fg-muted">{schema.ref}</p>
        </div>
        {next && (
          <Button onClick={() => onNewVersion({ payload_type: next, description: schema.description, json_schema: schema.json_schema })}>
            <PlusIcon size={14} /> New version
          </Button>
        )}
      </header>
      <p className="mt-3 text-[14px]">{schema.description || <span className="text-fg-muted">No description.</span>}</p>

      <dl className="mt-4 grid gap-x-6 gap-y-3 text-[13px] sm:grid-cols-[max-content_1fr]">
        <dt className="font-semibold text-fg-muted">Versions</dt>
        <dd>
          <nav aria-label="Versions" className="flex flex-wrap gap-1.5">
            {versions.map((v) => (
              <Link
                key={v.ref}
                href={schemaHref(v.ref)}
                aria-current={v.ref === schema.ref ? "page" : undefined}
                className={`rounded-full px-2.5 py-0.5 text-[12px] font-semibold ring-1 ring-inset ${v.ref === schema.ref ? "bg-accent text-accent-fg ring-accent" : "ring-line-strong hover:bg-hover"}`}
              >
                v{v.version}
              </Link>
            ))}
          </nav>
        </dd>
        <dt className="font-semibold text-fg-muted">Source</dt>
        <dd>
          {schema.source === "builtin" ? (
            "Built in: generated from Clutch’s own zod schema"
          ) : (
            <>
              Added by <span className="font-medium">{schema.created_by ? label(schema.created_by) : "someone"}</span>
              {schema.created_at && (
                <>
                  {" "}
                  <time dateTime={schema.created_at} title={formatFull(schema.created_at)}>
                    {formatTime(schema.created_at)}
                  </time>
                </>
              )}
            </>
          )}
        </dd>
        {schema.payload_type && (
          <>
            <dt className="font-semibold text-fg-muted">Produced by</dt>
            <dd>
              <AgentLinks ids={schema.producers} none="No agent declares it in its AgentCard’s produces" />
            </dd>
            <dt className="font-semibold text-fg-muted">Consumed by</dt>
            <dd>
              <AgentLinks ids={schema.consumers} none="No agent declares it in its AgentCard’s consumes" />
            </dd>
          </>
        )}
      </dl>

      <Compare schema={schema} versions={versions} />
    </article>
  );
}

function AgentLinks({ ids, none }: { ids: string[]; none: string }) {
  if (!ids.length) return <span className="text-fg-muted">{none}</span>;
  return (
    <ul className="flex flex-wrap gap-1.5">
      {ids.map((id) => (
        <li key={id}>
          <Link href={agentHref(id)} className="rounded-md bg-agent/12 px-2 py-0.5 text-[12.5px] font-medium text-agent hover:underline">
            {bareId(id)}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** The JSON Schema, or its line diff against another version the person picks. */
function Compare({ schema, versions }: { schema: SchemaDetail; versions: SchemaSummary[] }) {
  const others = versions.filter((v) => v.ref !== schema.ref);
  const [against, setAgainst] = useState("");
  const selectId = useId();
  const other = useQuery({ queryKey: queryKeys.schema(against), queryFn: () => fetchSchema(against), enabled: Boolean(against) });
  const diff = useMemo(() => {
    if (!against || !other.data) return null;
    const older = other.data.schema.version < schema.version;
    return { older, ...(older ? diffSchemas(other.data.schema.json_schema, schema.json_schema) : diffSchemas(schema.json_schema, other.data.schema.json_schema)), version: other.data.schema.version };
  }, [against, other.data, schema]);

  return (
    <section aria-labelledby="schema-json" className="mt-6">
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <h3 id="schema-json" className="flex min-w-0 flex-1 items-center gap-1.5 whitespace-nowrap text-[14px] font-semibold">
          <BracesIcon size={14} className="text-fg-muted" /> JSON Schema <Chip className="max-sm:hidden">draft 2020-12</Chip>
        </h3>
        {others.length > 0 && (
          <>
            <label htmlFor={selectId} className="text-[13px] text-fg-muted">
              Compare with
            </label>
            <select
              id={selectId}
              value={against}
              onChange={(e) => setAgainst(e.target.value)}
              className="h-8 rounded-md border border-line-strong bg-canvas px-2 text-[13px] text-fg focus:border-accent focus:outline-none"
            >
              <option value="">—</option>
              {others.map((v) => (
                <option key={v.ref} value={v.ref}>
                  v{v.version}
                </option>
              ))}
            </select>
          </>
        )}
      </div>
      {diff ? (
        <div>
          <p className="mb-1.5 text-[12.5px] text-fg-muted">
            {diff.older ? `Changes from v${diff.version} to v${schema.version}` : `Changes from v${schema.version} to v${diff.version}`}:{" "}
            <span className="font-semibold text-success">+{diff.added}</span> <span className="font-semibold text-danger">−{diff.removed}</span> lines
          </p>
          <pre aria-label="Differences between the versions" tabIndex={0} className="scroll-slim max-h-[32rem] overflow-auto rounded-md border border-line bg-sunken py-2 font-mono text-[12px] leading-[1.55]">
            {diff.lines.map((l, i) => (
              <div
                key={i}
                className={`px-3 ${l.op === "add" ? "bg-success/15 text-fg" : l.op === "remove" ? "bg-danger/15 text-fg" : "text-fg-muted"}`}
              >
                <span aria-hidden="true" className="mr-2 inline-block w-3 select-none">
                  {l.op === "add" ? "+" : l.op === "remove" ? "−" : " "}
                </span>
                <span className="sr-only">{l.op === "add" ? "added: " : l.op === "remove" ? "removed: " : ""}</span>
                {l.text}
              </div>
            ))}
          </pre>
        </div>
      ) : against && other.isPending ? (
        <div role="status" aria-label="Loading the other version" className="h-40 animate-pulse rounded-md bg-sunken" />
      ) : (
        <JsonView value={schema.json_schema} label={`JSON Schema of ${schema.ref}`} maxHeight="max-h-[32rem]" />
      )}
    </section>
  );
}

/** `/schemas` with nothing selected: what the registry is, and how to add to it. */
export function SchemasOverview({ groups, onAdd }: { groups: SchemaGroup[]; onAdd: () => void }) {
  const payloadTypes = groups.filter((g) => g.kind === "payload");
  const declared = payloadTypes.filter((g) => g.versions.some((v) => v.producers.length || v.consumers.length)).length;
  return (
    <div className="mx-auto max-w-2xl px-6 py-10">
      <span className="inline-flex h-11 w-11 items-center justify-center rounded-2xl bg-accent/12 text-accent">
        <BracesIcon size={22} />
      </span>
      <h2 className="mt-3 text-[18px] font-bold">The schema registry</h2>
      <p className="mt-2 text-[14px] leading-relaxed text-fg-muted">
        Every payload type agents exchange has a versioned JSON Schema, <code className="font-mono text-[12.5px]">schema://&lt;name&gt;@&lt;version&gt;</code>. Messages that name a
        registered <code className="font-mono text-[12.5px]">payload_type</code> are checked against it when they arrive; one that does not match is refused with the field that
        failed. AgentCards say which types an agent produces and consumes, and the router uses it.
      </p>
      <p className="mt-3 text-[14px] text-fg-muted">
        {payloadTypes.length} payload types, {declared} with agents that declare them. A version never changes: a new shape is a new version, side by side with the old.
      </p>
      <Button variant="primary" className="mt-4" onClick={onAdd}>
        <PlusIcon size={14} /> New payload type
      </Button>
    </div>
  );
}
