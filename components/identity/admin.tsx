"use client";
/**
 * `AdminPage` (/admin): what an admin manages (docs/identity.md): people, with their presence and
 * a "Message" button, their roles, the lock on a person's sign-in after too many failed passwords
 * (with Unlock), and whether they may sign in at all (Deactivate, after a confirmation; a
 * deactivated person shows who deactivated them, an admin or the identity provider, with
 * Activate), invite
 * links (shown once to pass on; revocable), every API key (people's and agents'; a new key for an
 * external agent), and the registered agents (disable an external one). Every change is an
 * `audit.change` event in the log. Others see a plain note that the page is for admins.
 */
import { useId, useState } from "react";
import { useAgents } from "@/components/live/use-agents";
import { ApiRequestError } from "@/components/live/api";
import { Button, inputClass } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { MessageButton } from "@/components/workspace/message-button";
import { Avatar } from "@/components/ui/avatar";
import { AvatarWithPresence } from "@/components/ui/presence-dot";
import { hueFor } from "@/components/events/participant";
import { usePresence } from "@/components/live/presence";
import { ROLE_LABEL } from "@/components/workspace/settings-dialog";
import { useMe } from "./me";
import { useCreateInvite, useInvites, useKeys, usePeople, useRevokeInvite, useSetAgentDisabled, useSetDeactivated, useSetRole, useUnlockSignIn, type Role } from "./api";
import type { PersonSummary } from "@/lib/api/types";
import { KeyList, NewKeyForm } from "./key-list";

const ROLES: Role[] = ["admin", "member", "guest"];
const errorText = (e: unknown) => (e instanceof ApiRequestError ? e.message : e ? "Something went wrong. Try again." : null);

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="rounded-lg border border-line bg-surface p-4">
      <h2 id={id} className="mb-3 text-[14px] font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

export function AdminPage() {
  const me = useMe();
  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <h1 className="flex-1 text-[15px] font-bold">Admin</h1>
      </PageHeader>
      <div className="scroll-slim min-h-0 flex-1 overflow-y-auto px-4 py-5 sm:px-6">
        {me.role !== "admin" ? (
          <p className="mx-auto max-w-3xl text-sm text-fg-muted">This page is for the workspace&apos;s admins. Ask one of them to change people, invites, keys or agents.</p>
        ) : (
          <div className="mx-auto max-w-4xl space-y-5">
            <People />
            <Invites />
            <Keys />
            <Agents />
          </div>
        )}
      </div>
    </div>
  );
}

function People() {
  const people = usePeople();
  const setRole = useSetRole();
  const unlock = useUnlockSignIn();
  const deactivate = useSetDeactivated();
  /** The person whose deactivation waits for the admin's confirmation. */
  const [confirming, setConfirming] = useState<string | null>(null);
  const me = useMe();
  const isOnline = usePresence();
  return (
    <Section id="admin-people" title="People">
      {people.isPending ? (
        <p className="text-sm text-fg-muted">Loading…</p>
      ) : people.isError ? (
        <p role="alert">Could not load people.</p>
      ) : (
        <table className="w-full text-left text-[13px]">
          <thead className="text-xs text-fg-muted">
            <tr>
              <th className="py-1 pr-3 font-medium">Name</th>
              <th className="py-1 pr-3 font-medium">Email</th>
              <th className="py-1 pr-3 font-medium">Role</th>
              <th className="py-1 font-medium">Sign-in</th>
            </tr>
          </thead>
          <tbody>
            {people.data.map((p) => (
              <tr key={p.id} className="border-t border-line">
                <td className="py-1.5 pr-3 font-medium">
                  <span className="flex items-center gap-2">
                    <AvatarWithPresence online={isOnline(p.agent_id)} dot={9}>
                      <Avatar name={p.name} hue={hueFor(p.agent_id)} agent={false} size={24} />
                    </AvatarWithPresence>
                    <span className="min-w-0 whitespace-nowrap">
                      {p.name}
                      {p.id === me.user_id && <span className="text-fg-muted"> (you)</span>}
                    </span>
                    {p.id !== me.user_id && !p.deactivated && <MessageButton with={p.agent_id} name={p.name} compact className="ml-auto" />}
                  </span>
                </td>
                <td className="py-1.5 pr-3 text-fg-muted">{p.email}</td>
                <td className="py-1.5 pr-3">
                  <select
                    aria-label={`Role of ${p.name}`}
                    value={p.role}
                    disabled={setRole.isPending}
                    onChange={(e) => setRole.mutate({ user_id: p.id, role: e.target.value as Role })}
                    className={`${inputClass} h-7 w-28 min-w-28 py-0`}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {ROLE_LABEL[r]}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="py-1.5">
                  {p.deactivated ? (
                    <Deactivated person={p} people={people.data} busy={deactivate.isPending} onActivate={() => deactivate.mutate({ user_id: p.id, deactivated: false })} />
                  ) : confirming === p.id ? (
                    <span className="flex flex-wrap items-center gap-2" role="group" aria-label={`Deactivate ${p.name}?`}>
                      <span className="basis-full text-xs">Their sessions and keys stop at once.</span>
                      <Button
                        onClick={() => deactivate.mutate({ user_id: p.id, deactivated: true }, { onSettled: () => setConfirming(null) })}
                        disabled={deactivate.isPending}
                        variant="danger"
                        aria-label={`Deactivate ${p.name} now`}
                      >
                        Deactivate
                      </Button>
                      <Button onClick={() => setConfirming(null)}>Cancel</Button>
                    </span>
                  ) : (
                    <span className="flex flex-wrap items-center gap-2">
                      {p.sign_in_lock ? (
                        <>
                          <span className="text-xs font-medium text-danger" title={`${p.sign_in_lock.failures} failed passwords`}>
                            Locked until {new Date(p.sign_in_lock.locked_until).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
                          </span>
                          <Button onClick={() => unlock.mutate(p.id)} disabled={unlock.isPending} aria-label={`Unlock the sign-in of ${p.name}`}>
                            Unlock
                          </Button>
                        </>
                      ) : (
                        <span className="text-xs text-fg-muted">OK</span>
                      )}
                      {p.id !== me.user_id && (
                        <Button onClick={() => setConfirming(p.id)} className="ml-auto" aria-label={`Deactivate ${p.name}`}>
                          Deactivate
                        </Button>
                      )}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {setRole.error || unlock.error || deactivate.error ? (
        <p role="alert" className="mt-2 text-xs font-medium text-danger">
          {errorText(setRole.error ?? unlock.error ?? deactivate.error)}
        </p>
      ) : null}
    </Section>
  );
}

/**
 * A deactivated person's sign-in cell: "Deactivated by Ada Admin · 3 Nov" (or "by the identity
 * provider", whose deactivations it lifts itself when it lets them in again), the reason on
 * hover, and Activate.
 */
function Deactivated({ person, people, busy, onActivate }: { person: PersonSummary; people: PersonSummary[]; busy: boolean; onActivate: () => void }) {
  const d = person.deactivation;
  const by = !d ? null : d.by === "system" ? "the identity provider" : (people.find((x) => x.agent_id === d.by)?.name ?? d.by);
  const when = d ? new Date(d.at).toLocaleDateString([], { day: "numeric", month: "short" }) : null;
  return (
    <span className="flex flex-wrap items-center gap-2">
      <span className="text-xs font-medium text-danger" title={d?.reason || undefined}>
        Deactivated{by ? ` by ${by}` : ""}
        {when ? <span className="font-normal text-fg-muted"> · {when}</span> : null}
      </span>
      <Button onClick={onActivate} disabled={busy} className="ml-auto" aria-label={`Activate ${person.name} again`}>
        Activate
      </Button>
    </span>
  );
}

function Invites() {
  const invites = useInvites();
  const create = useCreateInvite();
  const revoke = useRevokeInvite();
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const roleId = useId();
  const noteId = useId();
  return (
    <Section id="admin-invites" title="Invites">
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const note = String(data.get("note") ?? "").trim();
          create.mutate(
            { role: String(data.get("role")) as Role, ...(note ? { note } : {}) },
            { onSuccess: (r) => (setLink({ url: `${window.location.origin}${r.path}`, expires_at: r.invite.expires_at }), setCopied(false)) },
          );
        }}
      >
        <div>
          <label htmlFor={roleId} className="mb-1 block text-xs font-semibold">
            Role
          </label>
          <select id={roleId} name="role" defaultValue="member" className={`${inputClass} w-32`}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABEL[r]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={noteId} className="mb-1 block text-xs font-semibold">
            Note <span className="font-normal text-fg-muted">(optional)</span>
          </label>
          <input id={noteId} name="note" maxLength={200} placeholder="for Lee" className={`${inputClass} w-48`} />
        </div>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create invite link"}
        </Button>
      </form>
      {create.error ? (
        <p role="alert" className="mt-1 text-xs font-medium text-danger">
          {errorText(create.error)}
        </p>
      ) : null}
      {link && (
        <div role="status" className="mt-3 rounded-md border border-warning/50 bg-warning/10 p-3 text-[13px]">
          <p className="font-semibold">Pass this link on; it works once, until {new Date(link.expires_at).toLocaleString("en-US", { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" })}, and is not shown again.</p>
          <div className="mt-2 flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-sunken px-2 py-1 font-mono text-xs" data-testid="invite-link">
              {link.url}
            </code>
            <Button onClick={() => void navigator.clipboard?.writeText(link.url).then(() => setCopied(true))}>{copied ? "Copied" : "Copy"}</Button>
          </div>
        </div>
      )}
      <ul className="mt-3 divide-y divide-line text-[13px]" aria-label="Invite links">
        {invites.data?.map((i) => (
          <li key={i.id} className="flex items-center gap-3 py-1.5">
            <span className="w-20 font-medium">{ROLE_LABEL[i.role]}</span>
            <span className="min-w-0 flex-1 truncate text-fg-muted">{i.note || "—"}</span>
            <span className="text-xs text-fg-muted">
              {i.state === "open" ? `open until ${new Date(i.expires_at).toLocaleDateString("en-US", { month: "short", day: "numeric" })}` : i.state}
            </span>
            {i.state === "open" && (
              <Button onClick={() => revoke.mutate(i.id)} disabled={revoke.isPending} aria-label={`Revoke the ${i.role} invite${i.note ? ` ${i.note}` : ""}`}>
                Revoke
              </Button>
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Keys() {
  const keys = useKeys(true);
  return (
    <Section id="admin-keys" title="API keys">
      <p className="mb-3 text-xs text-fg-muted">An external agent uses its key to register its AgentCard, send heartbeats, subscribe and post events, only as itself.</p>
      <NewKeyForm forAgent />
      <div className="mt-4">{keys.isPending ? <p className="text-sm text-fg-muted">Loading…</p> : keys.isError ? <p role="alert">Could not load keys.</p> : <KeyList keys={keys.data} showOwner />}</div>
    </Section>
  );
}

function Agents() {
  const agents = useAgents();
  const toggle = useSetAgentDisabled();
  return (
    <Section id="admin-agents" title="Agents">
      <ul className="divide-y divide-line text-[13px]" aria-label="Registered agents">
        {agents.data?.map((a) => (
          <li key={a.agent_id} className="flex items-center gap-3 py-1.5">
            <span className="min-w-0 flex-1 truncate">
              <span className="font-medium">{a.name}</span> <span className="font-mono text-xs text-fg-muted">{a.agent_id}</span>
            </span>
            <span className="text-xs text-fg-muted">{a.source === "workspace" ? "runs in Clutch" : a.disabled ? "disabled" : "external"}</span>
            {a.source !== "workspace" && (
              <Button onClick={() => toggle.mutate({ agent_id: a.agent_id, disabled: !a.disabled })} disabled={toggle.isPending}>
                {a.disabled ? "Enable" : "Disable"}
              </Button>
            )}
          </li>
        ))}
      </ul>
      {toggle.error ? (
        <p role="alert" className="mt-1 text-xs font-medium text-danger">
          {errorText(toggle.error)}
        </p>
      ) : null}
    </Section>
  );
}
