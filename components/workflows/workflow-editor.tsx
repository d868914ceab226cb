"use client";
/**
 * One workflow on `/workflows/<name>` (docs/workflows.md): its steps as a row (capability and
 * expected payload type each), a form that runs it in a channel and opens the run, and its
 * YAML/JSON in an editor. Saving sends the version the editor started from, so a save over
 * someone else's is refused rather than lost; a refusal lists each problem with its path.
 * `NewWorkflow` is the editor for a workflow that does not exist yet.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { WorkflowDetail } from "@/lib/api/types";
import { fetchWorkflow, runWorkflow, saveWorkflow } from "@/components/live/api";
import { ProblemsAlert } from "@/components/live/problems-alert";
import { queryKeys } from "@/components/live/query-keys";
import { useThreads } from "@/components/live/use-threads";
import { useChannelNames } from "@/components/workspace/thread-title";
import { usePersonLabel } from "@/components/identity/names";
import { Button, inputClass } from "@/components/ui/button";
import { Chip } from "@/components/ui/chip";
import { ChevronRightIcon } from "@/components/ui/icons";
import { formatFull, formatTime } from "@/components/ui/time";

/**
 * What a new workflow starts from: the seed's §3.4 shape with capabilities the example workspace's
 * agents offer (analyst-1 analyses, qa-1 reviews), so it can be run as it is.
 */
export const WORKFLOW_TEMPLATE = `workflow: sales-check
description: Analyse the sales data, then have the analysis reviewed
steps:
  - id: analyse
    title: Analyse the sales data
    capability: skill:data-analysis
  - id: review
    title: Review the analysis
    capability: skill:review
    expects:
      payload_type: review.feedback.v1
`;

const areaClass =
  "scroll-slim block w-full resize-y rounded-md border border-line-strong bg-sunken px-2.5 py-2 font-mono text-[12.5px] leading-[19px] text-fg focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25";

/** The saved workflow `name`, loaded. */
export function WorkflowPane({ name }: { name: string }) {
  const q = useQuery({ queryKey: queryKeys.workflow(name), queryFn: () => fetchWorkflow(name), retry: (n, err) => (err as { status?: number }).status !== 404 && n < 2 });
  if (q.isPending) return <div role="status" aria-label="Loading the workflow" className="m-6 h-64 animate-pulse rounded-lg bg-sunken" />;
  if (q.isError) {
    return (
      <p role="alert" className="px-6 py-12 text-center text-[14px]">
        {(q.error as { status?: number }).status === 404 ? `No workflow ${name}.` : `Couldn’t load the workflow: ${q.error.message}`}
      </p>
    );
  }
  return <WorkflowView key={`${q.data.name}@${q.data.version}`} wf={q.data} />;
}

function WorkflowView({ wf }: { wf: WorkflowDetail }) {
  const label = usePersonLabel();
  return (
    <article aria-labelledby="workflow-title" className="mx-auto max-w-4xl space-y-6 px-4 py-5 sm:px-6">
      <header>
        <h2 id="workflow-title" className="font-mono text-[18px] font-bold">
          {wf.name} <span className="text-[13px] font-semibold text-fg-muted">v{wf.version}</span>
        </h2>
        {wf.description && <p className="mt-1 text-[14px]">{wf.description}</p>}
        <p className="mt-1 text-[12.5px] text-fg-muted">
          Saved by {wf.updated_by === "workspace" ? "the workspace folder" : label(wf.updated_by)}{" "}
          <time dateTime={wf.updated_at} title={formatFull(wf.updated_at)}>
            {formatTime(wf.updated_at)}
          </time>
        </p>
      </header>
      <ol aria-label="Steps" className="flex flex-wrap items-center gap-1.5">
        {wf.steps.map((s, i) => (
          <li key={s.id} className="flex items-center gap-1.5">
            {i > 0 && <ChevronRightIcon size={12} className="text-fg-subtle" aria-hidden="true" />}
            <span className="rounded-md border border-line bg-surface px-2.5 py-1.5">
              <span className="block text-[13px] font-semibold">
                {i + 1}. {s.title}
              </span>
              <span className="mt-0.5 flex flex-wrap gap-1">
                {s.capability ? <Chip>{s.capability}</Chip> : <Chip title="No capability: an agent whose card produces the payload type takes the step">any producer</Chip>}
                {s.payload_type && <Chip title="The payload type its result must have">→ {s.payload_type}</Chip>}
              </span>
            </span>
          </li>
        ))}
      </ol>
      {wf.uncovered.length > 0 && (
        <div role="alert" className="rounded-md border border-warning/40 bg-warning/[0.07] px-3 py-2 text-[13px]">
          <p className="font-semibold text-warning">No agent can take {wf.uncovered.length === 1 ? "this step" : "these steps"} now: a run would wait there for one.</p>
          <ul className="mt-1 list-disc pl-5">
            {wf.uncovered.map((u) => (
              <li key={u.step}>
                {u.capability !== null ? (
                  <>
                    {u.title} needs <code className="font-mono">{u.capability}</code>, which no agent offers. Add an agent that does, or change the step’s capability.
                  </>
                ) : (
                  <>
                    {u.title} expects <code className="font-mono">{u.payload_type}</code>, which no agent produces. Add an agent whose card produces it, or name the step’s capability.
                  </>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      <RunForm name={wf.name} />
      <SourceEditor initial={wf.source} version={wf.version} />
    </article>
  );
}

function RunForm({ name }: { name: string }) {
  const router = useRouter();
  const threads = useThreads().data ?? [];
  const channel = useChannelNames();
  const [text, setText] = useState("");
  const [threadId, setThreadId] = useState("");
  const ids = { text: useId(), channel: useId() };
  const run = useMutation({ mutationFn: () => runWorkflow(name, text.trim(), threadId || undefined), onSuccess: (r) => router.push(`/runs/${encodeURIComponent(r.run_id)}`) });
  return (
    <form
      aria-label="Run this workflow"
      className="rounded-lg border border-line bg-surface p-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() && !run.isPending) run.mutate();
      }}
    >
      <div className="flex flex-wrap items-end gap-2">
        <div className="min-w-[14rem] flex-1">
          <label htmlFor={ids.text} className="mb-1 block text-[13px] font-semibold">
            Run it on
          </label>
          <input id={ids.text} value={text} onChange={(e) => setText(e.target.value)} placeholder="What is new in battery research?" className={inputClass} />
        </div>
        <div>
          <label htmlFor={ids.channel} className="mb-1 block text-[13px] font-semibold">
            Channel
          </label>
          <select id={ids.channel} value={threadId} onChange={(e) => setThreadId(e.target.value)} className="h-9 rounded-md border border-line-strong bg-canvas px-2 text-[13px] text-fg focus:border-accent focus:outline-none">
            <option value="">The workspace’s first</option>
            {threads.map((t) => (
              <option key={t.id} value={t.id}>
                {channel.label({ thread_id: t.id })}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" variant="primary" disabled={!text.trim() || run.isPending} className="h-9">
          {run.isPending ? "Starting…" : "Run"}
        </Button>
      </div>
      {run.isError && (
        <p role="alert" className="mt-2 text-[13px] text-danger">
          {run.error.message}
        </p>
      )}
    </form>
  );
}

/** The definition's text with Save; `version` undefined for a new workflow. */
export function SourceEditor({ initial, version }: { initial: string; version?: number }) {
  const router = useRouter();
  const client = useQueryClient();
  const [text, setText] = useState(initial);
  const ids = { area: useId(), err: useId() };
  const save = useMutation({
    mutationFn: () => saveWorkflow(text, version),
    onSuccess: async (wf) => {
      await client.invalidateQueries({ queryKey: queryKeys.workflows });
      router.push(`/workflows/${encodeURIComponent(wf.name)}`);
    },
  });
  const changed = text !== initial;
  return (
    <section aria-labelledby={`${ids.area}-label`}>
      <div className="mb-1 flex items-baseline justify-between gap-2">
        <label id={`${ids.area}-label`} htmlFor={ids.area} className="text-[14px] font-semibold">
          Definition <span className="font-normal text-fg-muted">(YAML or JSON)</span>
        </label>
        {changed && version !== undefined && (
          <button type="button" onClick={() => setText(initial)} className="text-[12.5px] font-medium text-accent hover:underline">
            Discard changes
          </button>
        )}
      </div>
      <textarea
        id={ids.area}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          save.reset();
        }}
        rows={Math.min(30, Math.max(12, text.split("\n").length + 1))}
        spellCheck={false}
        aria-invalid={save.isError || undefined}
        aria-describedby={save.isError ? ids.err : undefined}
        className={areaClass}
      />
      {save.isError && <ProblemsAlert id={ids.err} error={save.error} summary={(n) => `Not saved: ${n} problems.`} className="mt-2" />}
      <div className="mt-2 flex justify-end">
        <Button variant="primary" onClick={() => save.mutate()} disabled={!text.trim() || save.isPending || (version !== undefined && !changed)}>
          {save.isPending ? "Saving…" : version === undefined ? "Create workflow" : `Save as v${version + 1}`}
        </Button>
      </div>
    </section>
  );
}

/** `/workflows/new`: a workflow that does not exist yet, from the template. */
export function NewWorkflow() {
  return (
    <article aria-labelledby="new-workflow" className="mx-auto max-w-4xl space-y-3 px-4 py-5 sm:px-6">
      <h2 id="new-workflow" className="text-[18px] font-bold">
        New workflow
      </h2>
      <p className="text-[13.5px] text-fg-muted">
        Each step names the capability that does it and, under <code className="font-mono">expects</code>, the payload type its result must have (Clutch Protocol §3.4). Steps run
        in order; each gets the previous step’s result as its input.
      </p>
      <SourceEditor initial={WORKFLOW_TEMPLATE} />
    </article>
  );
}
