"use client";
/**
 * `AgentList`: the sidebar's "Agents" section: each agent with a status dot (online, busy with its
 * number of active tasks, offline), its id and name, a "waiting" hint while one of its tasks waits
 * for an answer, and its card's description on hover. Clicking an agent opens its card
 * (AgentDialog). Kept live by components/live/use-agents.ts (`agents.changed`). The heading is text,
 * not a Tab stop; the "Agent directory" row links to `/agents`.
 */
import { SidebarLink } from "./sidebar-link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import type { AgentSummary } from "@/lib/api/types";
import { useAgents } from "@/components/live/use-agents";
import { bareId, hueFor } from "@/components/events/participant";
import { BotIcon, ChevronRightIcon } from "@/components/ui/icons";
import { AgentDialog } from "./agent-dialog";
import { statusText } from "./agent-status";

const DOT: Record<AgentSummary["status"], string> = {
  online: "bg-success",
  busy: "bg-warning",
  offline: "border-[1.5px] border-sidebar-muted bg-sidebar",
};

/** A status dot on the corner of an avatar. */
export function StatusDot({ status, className = "" }: { status: AgentSummary["status"]; className?: string }) {
  return <span aria-hidden="true" className={`block h-2.5 w-2.5 rounded-full ring-2 ring-sidebar ${DOT[status]} ${className}`} />;
}

/** The Agents section of the sidebar; `onNavigate` closes the drawer after a link is followed. */
export function AgentList({ onNavigate }: { onNavigate?: () => void }) {
  const { data: agents, isPending, isError, refetch } = useAgents();
  const inDirectory = usePathname()?.startsWith("/agents") ?? false;
  const [open, setOpen] = useState<string | null>(null);
  const selected = agents?.find((a) => a.agent_id === open) ?? null;

  return (
    <section aria-labelledby="sidebar-agents" className="mt-4">
      <h2 id="sidebar-agents" className="mb-0.5 pl-2 text-[11px] font-semibold uppercase tracking-wider text-sidebar-muted">
        Agents
      </h2>
      {isPending ? (
        <ul className="space-y-1.5 px-2 pt-1" aria-hidden="true">
          {[55, 70, 45].map((w) => (
            <li key={w} className="h-4 animate-pulse rounded bg-sidebar-hover" style={{ width: `${w}%` }} />
          ))}
        </ul>
      ) : isError ? (
        <p className="px-2 text-xs text-danger" role="alert">
          Couldn’t load agents.{" "}
          <button type="button" className="font-medium underline" onClick={() => refetch()}>
            Retry
          </button>
        </p>
      ) : agents.length === 0 ? (
        <p className="px-2 py-1 text-xs text-sidebar-muted">No agents in this workspace.</p>
      ) : (
        <ul className="space-y-px" aria-label="Agents">
          {agents.map((a) => {
            const id = bareId(a.agent_id);
            return (
              <li key={a.agent_id}>
                <button
                  type="button"
                  onClick={() => setOpen(a.agent_id)}
                  aria-label={`${id}, ${a.name}: ${statusText(a)}`}
                  aria-haspopup="dialog"
                  title={`${a.name}${a.description ? ` — ${a.description}` : ""}\n${statusText(a)}`}
                  className={`group flex h-7 w-full items-center gap-2 rounded-md px-2 text-left text-[14px] hover:bg-sidebar-hover ${
                    a.status === "offline" ? "text-sidebar-muted" : "text-sidebar-fg"
                  }`}
                >
                  <span className="relative shrink-0">
                    <span
                      aria-hidden="true"
                      className="inline-flex h-[18px] w-[18px] items-center justify-center rounded-[5px] text-white"
                      style={{ background: `hsl(${hueFor(a.agent_id)} 55% 48%)` }}
                    >
                      <BotIcon size={12} strokeWidth={2.25} />
                    </span>
                    <StatusDot status={a.status} className="absolute -bottom-0.5 -right-0.5 h-2 w-2" />
                  </span>
                  <span className="min-w-0 flex-1 truncate">
                    <span className={a.status === "offline" ? "" : "font-medium"}>{a.name}</span>
                    {a.name !== id && <span className="ml-1.5 font-mono text-[11px] text-sidebar-muted">{id}</span>}
                  </span>
                  {a.waiting_tasks > 0 && (
                    <span className="shrink-0 rounded bg-warning/15 px-1 text-[10px] font-semibold uppercase tracking-wide text-warning">
                      waiting
                    </span>
                  )}
                  {a.status === "busy" && a.active_tasks > 0 && (
                    <span
                      className="inline-flex h-[18px] min-w-[18px] shrink-0 items-center justify-center rounded-full bg-warning/20 px-1 text-[11px] font-bold tabular-nums text-warning"
                      title={`${a.active_tasks} active task${a.active_tasks === 1 ? "" : "s"}`}
                    >
                      {a.active_tasks}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <SidebarLink href="/agents" active={inDirectory} onNavigate={onNavigate} small className="mt-1 w-full">
        <span className={`inline-flex h-4 w-4 items-center justify-center rounded ${inDirectory ? "bg-white/20" : "bg-sidebar-hover"}`}>
          <ChevronRightIcon size={12} />
        </span>
        Agent directory
      </SidebarLink>
      <AgentDialog agent={selected} onClose={() => setOpen(null)} onNavigate={onNavigate} />
    </section>
  );
}
