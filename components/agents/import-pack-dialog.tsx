"use client";
/**
 * `ImportPackDialog`: an admin imports a PromptPack (RFC 0007, docs/promptpacks.md) or an AutoGen
 * team spec or gallery (docs/adapters.md "AutoGen") as a team: its YAML or JSON (pasted, or from a
 * file), the values of a pack's `{{variables}}`, one `name=value` a line, and which of a
 * gallery's teams (its index or label; empty: the first). A refusal lists each problem with its JSONPath; a success says which
 * agents joined, how the pack's tools were read, what was left out, and opens the team's channel.
 */
import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { PackImport } from "@/lib/api/types";
import { importPack } from "@/components/live/api";
import { ProblemsAlert } from "@/components/live/problems-alert";
import { queryKeys } from "@/components/live/query-keys";
import { bareId } from "@/components/events/participant";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FileChoice } from "@/components/ui/file-choice";

/** `name=value` lines → variables; blank lines and lines without `=` are skipped. */
export function parseVariables(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/** The import dialog (see the file comment). */
export function ImportPackDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Import a team" description="A PromptPack with an agents section (RFC 0007), in YAML or JSON, or an AutoGen team or AutoGen Studio gallery (JSON)." className="max-w-2xl">
      {open && <ImportPackForm onClose={onClose} />}
    </Dialog>
  );
}

const areaClass =
  "scroll-slim block w-full resize-y rounded-md border border-line-strong bg-sunken px-2.5 py-2 font-mono text-[12px] leading-[18px] text-fg placeholder:text-fg-subtle focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25";

function ImportPackForm({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [text, setText] = useState("");
  const [vars, setVars] = useState("");
  const [team, setTeam] = useState("");
  const [fileName, setFileName] = useState<string | null>(null);
  const ids = { pack: useId(), vars: useId(), team: useId(), err: useId() };
  const mutation = useMutation({
    mutationFn: () => importPack(text, parseVariables(vars), team.trim() || undefined),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.agents });
      void client.invalidateQueries({ queryKey: queryKeys.threads });
    },
  });
  if (mutation.data) return <Imported result={mutation.data} onClose={onClose} />;
  const error = mutation.error;

  return (
    <form
      className="space-y-3 px-5 pb-5 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() && !mutation.isPending) mutation.mutate();
      }}
    >
      <div>
        <div className="mb-1 flex items-baseline justify-between gap-2">
          <label htmlFor={ids.pack} className="text-[13px] font-semibold">
            PromptPack or AutoGen team
          </label>
          <FileChoice
            accept=".yaml,.yml,.json,application/json,application/yaml,text/yaml,text/plain"
            fileName={fileName}
            onFile={(text, name) => {
              setText(text);
              setFileName(name);
              mutation.reset();
            }}
          />
        </div>
        <textarea
          id={ids.pack}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setFileName(null);
            mutation.reset();
          }}
          rows={12}
          spellCheck={false}
          placeholder={"id: research-team\nname: Research Team\nprompts:\n  coordinator: …\nagents:\n  entry: coordinator\n  members: …"}
          aria-invalid={Boolean(error) || undefined}
          aria-describedby={error ? ids.err : undefined}
          className={areaClass}
        />
      </div>
      <div>
        <label htmlFor={ids.vars} className="mb-1 block text-[13px] font-semibold">
          Variables <span className="font-normal text-fg-muted">(name=value, one a line; for the prompts’ {"{{variables}}"})</span>
        </label>
        <textarea id={ids.vars} value={vars} onChange={(e) => setVars(e.target.value)} rows={2} spellCheck={false} placeholder="company=Acme" className={areaClass} />
      </div>
      <div>
        <label htmlFor={ids.team} className="mb-1 block text-[13px] font-semibold">
          Gallery team <span className="font-normal text-fg-muted">(an AutoGen gallery’s team: its index or label; empty: the first)</span>
        </label>
        <input id={ids.team} value={team} onChange={(e) => setTeam(e.target.value)} spellCheck={false} placeholder="Web Agent Team (Operator)" className={areaClass} />
      </div>
      {error && <ProblemsAlert id={ids.err} error={error} summary={(n) => `The team cannot be imported (${n} problems); nothing was imported:`} />}
      <div className="flex justify-end gap-2 pt-1">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={!text.trim() || mutation.isPending}>
          {mutation.isPending ? "Importing…" : "Import"}
        </Button>
      </div>
    </form>
  );
}

function Imported({ result, onClose }: { result: PackImport; onClose: () => void }) {
  return (
    <div className="space-y-3 px-5 pb-5 pt-3 text-[13.5px]" role="status">
      <p>
        <span className="font-semibold">{result.pack.name}</span> joined the workspace: {result.agents.length} agent{result.agents.length === 1 ? "" : "s"}, working in{" "}
        <span className="font-semibold">#{result.channel.name}</span>.
      </p>
      <ul className="flex flex-wrap gap-1.5" aria-label="New agents">
        {result.agents.map((id, i) => (
          <li key={id} className="rounded-md bg-agent/12 px-2 py-0.5 text-[12.5px] font-medium text-agent">
            {bareId(id)}
            {i === 0 ? " (entry)" : ""}
          </li>
        ))}
      </ul>
      {result.notes.length > 0 && (
        <div>
          <h3 className="text-[12.5px] font-semibold text-fg-muted">Notes</h3>
          <ul className="mt-0.5 list-disc pl-5 text-fg-muted">
            {result.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </div>
      )}
      {result.warnings.length > 0 && (
        <div className="rounded-md bg-warning/10 px-3 py-2">
          <h3 className="text-[12.5px] font-semibold text-warning">Left out</h3>
          <ul className="mt-0.5 list-disc pl-5">
            {result.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="flex justify-end gap-2 pt-1">
        <Button onClick={onClose}>Close</Button>
        <Link
          href={`/c/${encodeURIComponent(result.channel.thread_id)}`}
          onClick={onClose}
          className="inline-flex h-8 items-center justify-center rounded-md bg-accent px-3 text-[13px] font-medium text-accent-fg hover:brightness-110"
        >
          Open #{result.channel.name}
        </Link>
      </div>
    </div>
  );
}
