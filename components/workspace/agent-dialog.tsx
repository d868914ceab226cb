"use client";
/**
 * `AgentDialog`: the card of an agent clicked in the sidebar (Clutch Protocol §1.4 AgentCard):
 * status, what it is for, its capabilities, the tools it may use (CAP
 * `mcp_bindings`: server, allowed tools, scopes) and its limits; a link to its full entry in
 * the agent directory (`/agents`).
 */
import Link from "next/link";
import type { AgentSummary } from "@/lib/api/types";
import { bindingsOf } from "@/components/agents/model";
import { bareId, hueFor } from "@/components/events/participant";
import { Avatar } from "@/components/ui/avatar";
import { Chip, StatusBadge, type Tone } from "@/components/ui/chip";
import { Dialog } from "@/components/ui/dialog";
import { ChevronRightIcon } from "@/components/ui/icons";
import { formatDuration } from "@/components/ui/time";
import { agentHref, statusText } from "./agent-status";
import { MessageButton } from "./message-button";

const TONE: Record<AgentSummary["status"], Tone> = { online: "success", busy: "warning", offline: "neutral" };

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="mt-4">
      <h3 className="mb-1.5 text-[11px] font-semibold uppercase tracking-wider text-fg-muted">{title}</h3>
      {children}
    </section>
  );
}

/**
 * The card of `agent` in a dialog; closed when `agent` is null. `onNavigate` runs as well as
 * `onClose` when the person follows the link to the directory (the sidebar closes its drawer).
 */
export function AgentDialog({ agent, onClose, onNavigate }: { agent: AgentSummary | null; onClose: () => void; onNavigate?: () => void }) {
  const card = agent?.card;
  const bindings = agent ? bindingsOf(agent) : [];
  const skills = card?.capabilities.filter((c) => c.id !== "tool:mcp") ?? [];
  const limits = card?.limits;
  return (
    <Dialog
      open={Boolean(agent)}
      onClose={onClose}
      title={agent ? agent.name : "Agent"}
      description={agent ? bareId(agent.agent_id) : undefined}
      className="max-h-[85dvh] max-w-lg overflow-y-auto"
    >
      {agent && card && (
        <div className="px-5 pb-5 pt-2 text-[13px]">
          <div className="flex items-start gap-3">
            <Avatar name={agent.name} hue={hueFor(agent.agent_id)} agent size={40} />
            <div className="min-w-0 flex-1">
              <div className="flex flex-wrap items-center gap-2">
                <StatusBadge tone={TONE[agent.status]} label={`Status: ${agent.status}`}>
                  <span className="h-1.5 w-1.5 rounded-full bg-current" aria-hidden="true" />
                  {agent.status === "busy" ? `Busy · ${agent.active_tasks}` : agent.status === "online" ? "Online" : "Offline"}
                </StatusBadge>
                {agent.waiting_tasks > 0 && <StatusBadge tone="warning">{agent.waiting_tasks} waiting for an answer</StatusBadge>}
                <span className="font-mono text-[11px] text-fg-subtle">{agent.agent_id}</span>
              </div>
              {agent.description && <p className="mt-1.5 text-fg">{agent.description}</p>}
              <p className="sr-only">{statusText(agent)}</p>
            </div>
          </div>

          <Section title="Capabilities">
            {skills.length === 0 ? (
              <p className="text-fg-muted">None listed.</p>
            ) : (
              <ul className="flex flex-wrap gap-1.5">
                {skills.map((c, i) => (
                  <li key={`${c.id}-${i}`}>
                    <Chip title={[c.trust_level && `trust: ${c.trust_level}`, c.tools?.length && `needs: ${c.tools.join(", ")}`].filter(Boolean).join(" · ") || undefined}>
                      {c.id}
                      {c.version ? ` ${c.version}` : ""}
                    </Chip>
                  </li>
                ))}
              </ul>
            )}
          </Section>

          <Section title="Tools">
            {bindings.length === 0 ? (
              <p className="text-fg-muted">No tool servers bound.</p>
            ) : (
              <ul className="space-y-2">
                {bindings.map((b, i) => (
                  <li key={`${b.server}-${i}`} className="rounded-md border border-line bg-sunken/60 px-2.5 py-2">
                    <div className="font-mono text-[12px] font-semibold text-fg">{b.server}</div>
                    {b.description && <p className="mt-0.5 text-xs text-fg-muted">{b.description}</p>}
                    <div className="mt-1 flex flex-wrap items-center gap-1">
                      {b.tools.map((t) => (
                        <Chip key={t} className="text-fg">
                          {t}
                        </Chip>
                      ))}
                      {b.scopes.map((s) => (
                        <Chip key={s} title="scope" className="border-transparent bg-transparent text-fg-subtle">
                          {s}
                        </Chip>
                      ))}
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </Section>

          <Section title="Limits">
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-0.5 text-fg">
              <dt className="text-fg-muted">Parallel tasks</dt>
              <dd className="tabular-nums">
                {agent.status === "busy" ? `${agent.active_tasks} of ` : ""}
                {limits?.max_concurrency ?? agent.max_concurrency}
              </dd>
              {typeof limits?.max_runtime_sec === "number" && (
                <>
                  <dt className="text-fg-muted">Max runtime</dt>
                  <dd>{formatDuration(limits.max_runtime_sec * 1000)}</dd>
                </>
              )}
              {card.security?.sandbox !== undefined && (
                <>
                  <dt className="text-fg-muted">Sandbox</dt>
                  <dd>{card.security.sandbox ? "Yes" : "No"}</dd>
                </>
              )}
              {card.security?.network && (
                <>
                  <dt className="text-fg-muted">Network</dt>
                  <dd>{card.security.network}</dd>
                </>
              )}
            </dl>
          </Section>

          <MessageButton
            with={agent.agent_id}
            name={agent.name}
            className="mt-5 flex"
            onOpened={() => {
              onClose();
              onNavigate?.();
            }}
          />
          <Link
            href={agentHref(agent.agent_id)}
            onClick={() => {
              onClose();
              onNavigate?.();
            }}
            className="mt-3 inline-flex items-center gap-1 text-[13px] font-medium text-accent hover:underline"
          >
            Open in the agent directory
            <ChevronRightIcon size={13} />
          </Link>
        </div>
      )}
    </Dialog>
  );
}
