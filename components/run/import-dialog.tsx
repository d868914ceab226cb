"use client";
/**
 * `ImportRunDialog`: imports a run from JSON Lines, one ClutchMessage a line
 * (`POST /api/runs/import`): every line is validated; a bad line is reported with its line number
 * and the zod issue, and nothing is stored. Paste the text or choose a .jsonl file; pick the
 * channel; by default the run gets new ids so it can sit next to the run it was exported from.
 * With "Import a copy" unticked (a restore, for admins) the events go into the run they name: when that run exists, a dry
 * run (`?dry_run=true`) finds it and a second dialog asks first, naming the run and how many
 * events it holds. Errors list each bad line ("Line 3 · payload.text: …"); on success it says
 * what it did ("927 events imported into “…”", components/ui/announce.tsx) and opens the run.
 */
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useThreads } from "@/components/live/use-threads";
import { useChannelNames } from "@/components/workspace/thread-title";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FileChoice } from "@/components/ui/file-choice";
import { announce } from "@/components/ui/announce";
import type { RunImportResult } from "@/lib/api/types";
import { importIssues, importRun } from "./api";

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? "" : "s"}`;

/** What an import did, as people read it: "927 events imported into “Quarterly review”". */
export function importedText(r: RunImportResult): string {
  const into = r.existing ? `into “${r.title ?? r.run_id}”` : `as a new run${r.title ? ` “${r.title}”` : ""}`;
  const skipped = r.events - r.created;
  return `${plural(r.created, "event")} imported ${into}${skipped > 0 ? ` (${plural(skipped, "event")} it already had were skipped)` : ""}`;
}

/** The dialog (see the file comment). */
export function ImportRunDialog({ open, onClose, defaultThreadId }: { open: boolean; onClose: () => void; defaultThreadId?: string }) {
  return (
    <Dialog open={open} onClose={onClose} title="Import a run" description="JSON Lines, one ClutchMessage a line, as “Export” writes it." className="max-w-xl">
      {open && <ImportForm onClose={onClose} defaultThreadId={defaultThreadId} />}
    </Dialog>
  );
}

function ImportForm({ onClose, defaultThreadId }: { onClose: () => void; defaultThreadId?: string }) {
  const router = useRouter();
  const threads = useThreads().data ?? [];
  const channelNames = useChannelNames();
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState<string | null>(null);
  const [threadId, setThreadId] = useState(defaultThreadId ?? "");
  const [newRun, setNewRun] = useState(true);
  const textId = useId();
  const chanId = useId();
  const errId = useId();
  // Into an existing run only once the person said so: `confirm` is the dry run that found it.
  const [confirm, setConfirm] = useState<RunImportResult | null>(null);
  const mutation = useMutation({
    mutationFn: async (sure: boolean) => {
      const opts = { threadId: threadId || undefined, newRun };
      if (!newRun && !sure) {
        const dry = await importRun(text, { ...opts, dryRun: true });
        if (dry.existing) return dry;
      }
      return importRun(text, opts);
    },
    onSuccess: (r) => {
      if (r.dry_run) {
        setConfirm(r);
        return;
      }
      setConfirm(null);
      announce(importedText(r));
      onClose();
      router.push(`/runs/${encodeURIComponent(r.run_id)}`);
    },
  });
  const issues = importIssues(mutation.error);
  const lines = text ? text.split(/\r?\n/).filter((l) => l.trim()).length : 0;

  return (
    <form
      className="px-5 pb-5 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (!text.trim() || mutation.isPending) return;
        mutation.mutate(false);
      }}
    >
      <div className="mb-1 flex items-baseline justify-between gap-2">
        <label htmlFor={textId} className="text-[13px] font-semibold">
          Events
        </label>
        <FileChoice
          accept=".jsonl,.ndjson,.json,application/x-ndjson,application/json,text/plain"
          fileName={fileName}
          onFile={(text, name) => {
            setText(text);
            setFileName(name);
            mutation.reset();
          }}
        />
      </div>
      <textarea
        id={textId}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setFileName(null);
          if (mutation.isError) mutation.reset();
        }}
        rows={8}
        spellCheck={false}
        placeholder={'{"v":"clutch/0.1","id":"msg_…","type":"task.request",…}\n{"v":"clutch/0.1",…}'}
        aria-invalid={mutation.isError}
        aria-describedby={mutation.isError ? errId : undefined}
        className="scroll-slim block w-full resize-y rounded-md border border-line-strong bg-sunken px-2.5 py-2 font-mono text-[12px] leading-[18px] text-fg placeholder:text-fg-subtle focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25"
      />
      <p className="mt-1 text-[11.5px] text-fg-subtle">{lines ? `${lines.toLocaleString()} line${lines === 1 ? "" : "s"}` : "Paste the lines, or choose a file."}</p>

      <div className="mt-3 grid gap-3 sm:grid-cols-2">
        <div>
          <label htmlFor={chanId} className="mb-1 block text-[13px] font-semibold">
            Channel
          </label>
          <select
            id={chanId}
            value={threadId}
            onChange={(e) => setThreadId(e.target.value)}
            className="h-9 w-full rounded-md border border-line-strong bg-canvas px-2 text-[13px] text-fg focus:border-accent focus:outline-none"
          >
            <option value="">The channel the events name</option>
            {threads.map((t) => (
              <option key={t.id} value={t.id}>
                {channelNames.label({ thread_id: t.id })}
              </option>
            ))}
          </select>
        </div>
        <label className="flex items-start gap-2 self-end pb-1.5 text-[13px]">
          <input type="checkbox" checked={newRun} onChange={(e) => setNewRun(e.target.checked)} className="mt-0.5 accent-[var(--c-accent)]" />
          <span>
            Import a copy
            <span className="block text-[11.5px] text-fg-muted">A copy under your name, to replay and compare: it starts no work and decides nothing.</span>
          </span>
        </label>
      </div>

      {mutation.isError && (
        <div id={errId} role="alert" className="mt-3 rounded-md border border-danger/35 bg-danger/[0.05] px-3 py-2 text-[12.5px]">
          <p className="font-medium text-danger">{issues.length ? "Nothing was imported: fix these lines." : mutation.error.message}</p>
          {issues.length > 0 && (
            <ul className="scroll-slim mt-1 max-h-40 space-y-0.5 overflow-y-auto" aria-label="Problems by line">
              {issues.map((i, k) => (
                <li key={k} className="flex gap-2">
                  <span className="shrink-0 font-mono font-semibold text-fg">Line {i.line}</span>
                  <span className="min-w-0 text-fg-muted">
                    {i.path.length > 0 && <code className="mr-1 font-mono text-[11.5px] text-fg">{i.path.join(".")}</code>}
                    {i.message}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}

      <div className="mt-4 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={!text.trim() || mutation.isPending}>
          {mutation.isPending ? "Importing…" : "Import"}
        </Button>
      </div>
      <Dialog open={confirm !== null} onClose={() => setConfirm(null)} title="Import into an existing run?" className="max-w-md">
        {confirm && (
          <div className="px-5 pb-5 pt-2 text-[13.5px]">
            <p>
              These {plural(confirm.events, "event")} go into the run <strong>“{confirm.title ?? confirm.run_id}”</strong>, which already holds{" "}
              {plural(confirm.existing?.event_count ?? 0, "event")}. Events it already has are skipped; the others are added after its own.
            </p>
            <p className="mt-2 text-fg-muted">To keep the run as it is, tick “Import a copy” and import it beside it.</p>
            <div className="mt-4 flex justify-end gap-2">
              <Button onClick={() => setConfirm(null)}>Cancel</Button>
              <Button variant="primary" disabled={mutation.isPending} onClick={() => mutation.mutate(true)}>
                {mutation.isPending ? "Importing…" : "Import into this run"}
              </Button>
            </div>
          </div>
        )}
      </Dialog>
    </form>
  );
}
