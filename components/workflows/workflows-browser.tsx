"use client";
/**
 * `WorkflowsBrowser`, the page `/workflows`, `/workflows/new` and `/workflows/<name>`
 * (docs/workflows.md): the workflows by name, each with its steps and version, beside the one
 * selected (./workflow-editor.tsx) or how workflows work. From 1024 px up the list and the
 * workflow sit side by side; below, one or the other.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { fetchWorkflows } from "@/components/live/api";
import { queryKeys } from "@/components/live/query-keys";
import { Button } from "@/components/ui/button";
import { ListIcon, PlusIcon } from "@/components/ui/icons";
import { PageHeader, PageTitle } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { NewWorkflow, WorkflowPane } from "./workflow-editor";

/** The page (see the file comment); `selected` is a workflow's name, "new", or null. */
export function WorkflowsBrowser({ selected }: { selected: string | null }) {
  const list = useQuery({ queryKey: queryKeys.workflows, queryFn: fetchWorkflows });
  useEffect(() => {
    document.title = selected && selected !== "new" ? `${selected} · Workflows · Clutch` : "Workflows · Clutch";
  }, [selected]);
  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <PageTitle icon={<ListIcon size={16} className="shrink-0 text-fg-muted" />} title="Workflows" detail={list.data ? `${list.data.length} workflow${list.data.length === 1 ? "" : "s"}` : null} />
        <Link href="/workflows/new" aria-label="New workflow" className="inline-flex h-8 items-center gap-1.5 rounded-md bg-accent px-3 text-[13px] font-medium text-accent-fg hover:brightness-110">
          <PlusIcon size={14} /> <span className="max-sm:hidden">New workflow</span>
        </Link>
      </PageHeader>
      <div className="min-h-0 flex-1 overflow-y-auto lg:flex lg:overflow-hidden">
        <section aria-label="Workflow list" className={`border-line lg:w-[340px] lg:shrink-0 lg:overflow-y-auto lg:border-r ${selected ? "max-lg:hidden" : ""}`}>
          {list.isPending ? (
            <div role="status" aria-label="Loading workflows" className="space-y-2 p-3">
              {Array.from({ length: 3 }, (_, i) => (
                <div key={i} className="h-14 animate-pulse rounded-md bg-sunken" />
              ))}
            </div>
          ) : list.isError ? (
            <div role="alert" className="px-6 py-10 text-center text-[13px]">
              <p className="font-semibold">Couldn’t load the workflows.</p>
              <p className="mt-1 text-fg-muted">{list.error.message}</p>
              <Button className="mt-2" onClick={() => void list.refetch()}>
                Try again
              </Button>
            </div>
          ) : list.data.length === 0 ? (
            <p role="status" className="px-6 py-10 text-center text-[13px] text-fg-muted">
              No workflow yet. Create one, or put YAML files in the workspace’s <code className="font-mono">workflows/</code> folder.
            </p>
          ) : (
            <ul>
              {list.data.map((wf) => (
                <li key={wf.name}>
                  <Link
                    href={`/workflows/${encodeURIComponent(wf.name)}`}
                    aria-current={wf.name === selected ? "page" : undefined}
                    className={`block border-b border-line px-3 py-2 hover:bg-hover ${wf.name === selected ? "bg-accent/10" : ""}`}
                  >
                    <span className="flex items-center gap-2">
                      <span className="min-w-0 flex-1 truncate font-mono text-[13px] font-semibold">{wf.name}</span>
                      <span className="shrink-0 text-[11.5px] text-fg-muted">
                        {wf.steps.length} step{wf.steps.length === 1 ? "" : "s"} · v{wf.version}
                      </span>
                    </span>
                    <span className="mt-0.5 block truncate text-[12px] text-fg-muted">{wf.description || wf.steps.map((s) => s.title).join(" → ")}</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </section>
        <div className="scroll-slim min-w-0 lg:flex-1 lg:overflow-y-auto">
          {selected === "new" ? <NewWorkflow /> : selected ? <WorkflowPane name={selected} /> : <Overview />}
        </div>
      </div>
    </div>
  );
}

function Overview() {
  return (
    <div className="mx-auto max-w-2xl px-6 py-10 max-lg:hidden">
      <span className="inline-flex h-11 w-11 items-center justify-center rounded-2xl bg-accent/12 text-accent">
        <ListIcon size={22} />
      </span>
      <h2 className="mt-3 text-[18px] font-bold">Workflows</h2>
      <p className="mt-2 text-[14px] leading-relaxed text-fg-muted">
        A workflow declares a team’s process: its steps in order, the capability that does each, and the payload type each must produce. A run of it is routed step by step; a
        step whose result does not match fails the run with the reason, and the run view shows the workflow beside the live task tree.
      </p>
    </div>
  );
}
