"use client";
/**
 * `SchemaBrowser`, the page `/schemas` and `/schemas/<name>@<version>` (docs/schemas.md): the
 * schema registry.
 *
 * - The list: every schema name with its versions, payload types first, then the payloads of
 *   Clutch's message types; a search box (`/` focuses it) over names, payload types,
 *   descriptions, producers and consumers.
 * - `selectedRef` opens one version beside the list (components/schemas/schema-detail.tsx).
 * - "New payload type" opens the form that adds one (new-schema-dialog.tsx).
 * From 1024 px up the list and the schema sit side by side; below, one or the other.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { fetchSchemas } from "@/components/live/api";
import { queryKeys } from "@/components/live/query-keys";
import { Button, inputClass } from "@/components/ui/button";
import { BracesIcon, PlusIcon, SearchIcon } from "@/components/ui/icons";
import { PageHeader, PageTitle } from "@/components/ui/page-header";
import { useHotkeys } from "@/components/ui/use-hotkeys";
import { useShortcutSection, type ShortcutSection } from "@/components/ui/shortcuts";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { filterGroups, groupSchemas, schemaHref, type SchemaGroup } from "./model";
import { NewSchemaDialog, type NewSchemaStart } from "./new-schema-dialog";
import { SchemaDetailPane, SchemasOverview } from "./schema-detail";

/** The schema browser's section of the shortcut sheet (components/ui/shortcuts.tsx). */
export const SCHEMAS_KEYS: ShortcutSection = {
  id: "schemas",
  title: "Schemas",
  rows: [{ keys: ["/"], does: "Search the schemas" }],
};

/** The registry page (see the file comment). */
export function SchemaBrowser({ selectedRef }: { selectedRef: string | null }) {
  const schemas = useQuery({ queryKey: queryKeys.schemas, queryFn: fetchSchemas });
  const groups = useMemo(() => groupSchemas(schemas.data ?? []), [schemas.data]);
  const [text, setText] = useState("");
  const shown = useMemo(() => filterGroups(groups, text), [groups, text]);
  const [adding, setAdding] = useState<NewSchemaStart | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const searchId = useId();
  const added = groups.filter((g) => g.kind === "payload" && g.latest.source === "added").length;

  useShortcutSection(SCHEMAS_KEYS);
  useHotkeys((e) => {
    if (e.key !== "/") return;
    e.preventDefault();
    searchRef.current?.focus();
  });

  useEffect(() => {
    document.title = selectedRef ? `${selectedRef.replace(/^schema:\/\//, "")} · Schemas · Clutch` : "Schemas · Clutch";
  }, [selectedRef]);

  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <PageTitle
          icon={<BracesIcon size={16} className="shrink-0 text-fg-muted" />}
          title="Schemas"
          detail={schemas.data ? `${groups.filter((g) => g.kind === "payload").length} payload types · ${added} added` : null}
        />
        <Button variant="primary" onClick={() => setAdding({})} aria-label="New payload type">
          <PlusIcon size={14} /> <span className="max-sm:hidden">New payload type</span>
          <span className="sm:hidden">New</span>
        </Button>
      </PageHeader>

      <div className="min-h-0 flex-1 overflow-y-auto lg:flex lg:overflow-hidden">
        <section
          aria-label="Schema list"
          className={`flex-col border-line lg:flex lg:w-[340px] lg:shrink-0 lg:overflow-hidden lg:border-r xl:w-[380px] ${selectedRef ? "max-lg:hidden" : "flex"}`}
        >
          <div className="border-b border-line p-3">
            <label htmlFor={searchId} className="sr-only">
              Search schemas
            </label>
            <div className="relative">
              <SearchIcon size={14} className="pointer-events-none absolute left-2.5 top-1/2 -translate-y-1/2 text-fg-subtle" />
              <input
                id={searchId}
                ref={searchRef}
                type="search"
                value={text}
                onChange={(e) => setText(e.target.value)}
                placeholder="Search payload types, agents…  ( / )"
                className={`${inputClass} pl-8`}
                disabled={!schemas.data}
              />
            </div>
          </div>
          <div className="scroll-slim lg:min-h-0 lg:flex-1 lg:overflow-y-auto">
            {schemas.isPending ? (
              <div role="status" aria-label="Loading schemas" className="space-y-2 p-3">
                {Array.from({ length: 6 }, (_, i) => (
                  <div key={i} className="h-12 animate-pulse rounded-md bg-sunken" />
                ))}
              </div>
            ) : schemas.isError ? (
              <div role="alert" className="flex flex-col items-center gap-2 px-6 py-12 text-center">
                <p className="font-semibold">Couldn’t load the schemas.</p>
                <p className="max-w-xs text-[13px] text-fg-muted">{schemas.error.message}</p>
                <Button onClick={() => void schemas.refetch()} disabled={schemas.isFetching}>
                  {schemas.isFetching ? "Retrying…" : "Try again"}
                </Button>
              </div>
            ) : shown.length === 0 ? (
              <div role="status" className="flex flex-col items-center gap-2 px-6 py-10 text-center">
                <h2 className="text-[14px] font-semibold">No schema matches “{text.trim()}”</h2>
                <button type="button" onClick={() => setText("")} className="text-[13px] font-medium text-accent hover:underline">
                  Clear search
                </button>
              </div>
            ) : (
              <SchemaList groups={shown} selectedRef={selectedRef} />
            )}
          </div>
        </section>

        <div className={`scroll-slim min-w-0 lg:flex-1 lg:overflow-y-auto ${selectedRef ? "" : "max-lg:border-t max-lg:border-line"}`}>
          {selectedRef ? (
            <SchemaDetailPane key={selectedRef} selectedRef={selectedRef} onNewVersion={setAdding} />
          ) : (
            <SchemasOverview groups={groups} onAdd={() => setAdding({})} />
          )}
        </div>
      </div>
      <NewSchemaDialog start={adding} onClose={() => setAdding(null)} />
    </div>
  );
}

/** The list, in two sections: payload types, then message payloads. */
function SchemaList({ groups, selectedRef }: { groups: SchemaGroup[]; selectedRef: string | null }) {
  const sections = [
    { title: "Payload types", items: groups.filter((g) => g.kind === "payload") },
    { title: "Message payloads", items: groups.filter((g) => g.kind === "message") },
  ].filter((s) => s.items.length);
  return (
    <>
      {sections.map((section) => (
        <div key={section.title}>
          <h2 className="sticky top-0 z-[1] border-b border-line bg-canvas/95 px-3 py-1.5 text-[11px] font-semibold uppercase tracking-wide text-fg-subtle backdrop-blur">
            {section.title} <span className="font-medium">({section.items.length})</span>
          </h2>
          <ul>
            {section.items.map((g) => {
              const current = g.versions.some((v) => v.ref === selectedRef);
              const users = new Set(g.versions.flatMap((v) => [...v.producers, ...v.consumers])).size;
              return (
                <li key={g.name}>
                  <Link
                    href={schemaHref(g.latest.ref)}
                    aria-current={current ? "page" : undefined}
                    className={`block border-b border-line px-3 py-2 hover:bg-hover ${current ? "bg-accent/10" : ""}`}
                  >
                    <span className="flex items-center gap-2">
                      <span className="min-w-0 flex-1 truncate font-mono text-[13px] font-semibold">{g.label}</span>
                      <span className="shrink-0 text-[11.5px] text-fg-muted">
                        {g.versions.length === 1 ? `v${g.latest.version}` : `${g.versions.length} versions`}
                      </span>
                    </span>
                    <span className="mt-0.5 flex items-center gap-2 text-[12px] text-fg-muted">
                      <span className="min-w-0 flex-1 truncate">{g.latest.description || "No description"}</span>
                      {g.latest.source === "added" && <span className="shrink-0 rounded bg-agent/12 px-1 text-[10.5px] font-semibold text-agent">added</span>}
                      {users > 0 && (
                        <span className="shrink-0" title="Agents that produce or consume it">
                          {users} agent{users === 1 ? "" : "s"}
                        </span>
                      )}
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </>
  );
}
