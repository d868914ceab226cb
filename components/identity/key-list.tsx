"use client";
/**
 * `KeyList`: API keys in a table (name, owner, prefix, created, last used, state) with Revoke, and
 * `NewKeyForm`, which creates one and shows the key once with a copy button (docs/identity.md).
 */
import { useId, useState } from "react";
import { ApiRequestError } from "@/components/live/api";
import { Button, inputClass } from "@/components/ui/button";
import { useCreateKey, useRevokeKey, type ApiKeySummary } from "./api";

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString("en-US", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" }) : "never");

export function KeyList({ keys, showOwner = false }: { keys: ApiKeySummary[]; showOwner?: boolean }) {
  const revoke = useRevokeKey();
  if (!keys.length) return <p className="text-sm text-fg-muted">No keys yet.</p>;
  return (
    <table className="w-full text-left text-[13px]">
      <thead className="text-xs text-fg-muted">
        <tr>
          <th className="py-1 pr-3 font-medium">Name</th>
          {showOwner && <th className="py-1 pr-3 font-medium">For</th>}
          <th className="py-1 pr-3 font-medium">Key</th>
          <th className="py-1 pr-3 font-medium">Last used</th>
          <th className="py-1 font-medium">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id} className="border-t border-line">
            <td className="py-1.5 pr-3 font-medium">{k.name}</td>
            {showOwner && <td className="py-1.5 pr-3 font-mono text-xs">{k.owner}</td>}
            <td className="py-1.5 pr-3 font-mono text-xs">{k.prefix}…</td>
            <td className="py-1.5 pr-3 text-fg-muted">{when(k.last_used_at)}</td>
            <td className="py-1.5 text-right">
              {k.revoked_at ? (
                <span className="text-xs text-fg-muted">Revoked {when(k.revoked_at)}</span>
              ) : (
                <Button onClick={() => revoke.mutate(k.id)} disabled={revoke.isPending} aria-label={`Revoke ${k.name}`}>
                  Revoke
                </Button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Create a key (yours, or with `forAgent` an external agent's); the key is shown once. */
export function NewKeyForm({ forAgent = false }: { forAgent?: boolean }) {
  const create = useCreateKey();
  const [shown, setShown] = useState<{ key: string; name: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const nameId = useId();
  const agentId = useId();
  const err = create.error instanceof ApiRequestError ? create.error.message : create.error ? "Could not create the key." : null;
  return (
    <div>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const name = String(data.get("name") ?? "").trim();
          const agent = forAgent ? String(data.get("agent") ?? "").trim() : undefined;
          create.mutate(
            { name, agent_id: agent ? (agent.startsWith("agent:") ? agent : `agent:${agent}`) : undefined },
            { onSuccess: (r) => (setShown({ key: r.key, name }), setCopied(false)) },
          );
        }}
      >
        {forAgent && (
          <div>
            <label htmlFor={agentId} className="mb-1 block text-xs font-semibold">
              Agent
            </label>
            <input id={agentId} name="agent" required placeholder="agent:ken" className={`${inputClass} w-44 font-mono`} />
          </div>
        )}
        <div>
          <label htmlFor={nameId} className="mb-1 block text-xs font-semibold">
            Key name
          </label>
          <input id={nameId} name="name" required maxLength={80} placeholder={forAgent ? "production" : "my script"} className={`${inputClass} w-48`} />
        </div>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create key"}
        </Button>
      </form>
      {err && (
        <p role="alert" className="mt-1 text-xs font-medium text-danger">
          {err}
        </p>
      )}
      {shown && (
        <div role="status" className="mt-3 rounded-md border border-warning/50 bg-warning/10 p-3 text-[13px]">
          <p className="font-semibold">Copy the key “{shown.name}” now: it is not shown again.</p>
          <div className="mt-2 flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-sunken px-2 py-1 font-mono text-xs" data-testid="new-key">
              {shown.key}
            </code>
            <Button onClick={() => void navigator.clipboard?.writeText(shown.key).then(() => setCopied(true))}>{copied ? "Copied" : "Copy"}</Button>
          </div>
        </div>
      )}
    </div>
  );
}
