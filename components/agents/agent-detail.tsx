"use client";
/**
 * `AgentDetail`, the right-hand side of `/agents/:agent_id`: its AgentCard (Clutch Protocol
 * §1.4: name, description, capabilities with version, tags, tools, trust level and cost hint,
 * limits, endpoints, security), online or offline from heartbeats, shown live, current load
 * against max_concurrency, recent success rate, and its recent tasks:
 *
 * - who it is: name, id, status (live), source, description;
 * - four figures: presence (last heartbeat, ticking), load, success rate, heartbeat settings;
 * - capabilities as a table (a `tool:mcp` capability lists its servers and, from CAP
 *   `mcp_bindings`, the tools each server allows);
 * - CAP delegation (allowed_agents, overseer) as links to those agents; limits, security and
 *   endpoints;
 * - its model usage of the last 7 days (tokens, cost, time in the model; agent-usage.tsx);
 * - recent tasks with their state, linked to their run and channel;
 * - the raw AgentCard JSON, collapsed.
 */
import Link from "next/link";
import { Fragment, useId, type ReactNode } from "react";
import type { AgentSummary, AgentTaskSummary } from "@/lib/api/types";
import type { Capability } from "@/lib/protocol/agent-card";
import { useAgents } from "@/components/live/use-agents";
import { useThreads } from "@/components/live/use-threads";
import { bareId, hueFor } from "@/components/events/participant";
import { JsonView } from "@/components/ui/json-view";
import { stateStyle } from "@/components/run/task-style";
import { AgentUsage } from "./agent-usage";
import { Avatar } from "@/components/ui/avatar";
import { Chip } from "@/components/ui/chip";
import { Disclosure } from "@/components/ui/disclosure";
import { HashIcon } from "@/components/ui/icons";
import { useNow } from "@/components/ui/use-now";
import { formatDuration, formatFull } from "@/components/ui/time";
import { agentHref, seenText, sinceText, STATUS_WORD } from "@/components/workspace/agent-status";
import { ArrowLeftIcon } from "./icons";
import { bindingsOfCapability, resolveAgent } from "./model";
import { CopyButton, LoadMeter, PresenceDot, SourceBadge, StatusWord } from "./parts";

/** The card of the agent `agentId` (decoded, e.g. `agent:analyst-1`), live. */
export function AgentDetail({ agentId }: { agentId: string }) {
  const agents = useAgents();
  const agent = agents.data?.find((a) => a.agent_id === agentId);

  if (agents.isPending) return <DetailSkeleton />;
  if (!agent) {
    return (
      <div className="px-4 py-6 sm:px-6">
        <BackLink />
        <div role={agents.isError ? "alert" : "status"} className="mx-auto mt-8 max-w-md text-center">
          <h2 data-agent-heading tabIndex={-1} className="text-[16px] font-semibold outline-none">
            {agents.isError ? "Couldn’t load the agents" : "No such agent"}
          </h2>
          <p className="mt-1.5 text-[13px] text-fg-muted">
            {agents.isError ? (
              agents.error.message
            ) : (
              <>
                No agent with the id <span className="font-mono text-fg">{agentId}</span> is registered in this workspace.
              </>
            )}
          </p>
          {agents.isError ? (
            <button type="button" onClick={() => void agents.refetch()} className="mt-3 text-[13px] font-medium text-accent hover:underline">
              Try again
            </button>
          ) : (
            <Link href="/agents" className="mt-3 inline-block text-[13px] font-medium text-accent hover:underline">
              See every agent
            </Link>
          )}
        </div>
      </div>
    );
  }
  return <AgentCardView agent={agent} all={agents.data ?? []} />;
}

/** "← All agents": back to the list on narrow screens, where the list is hidden. */
function BackLink() {
  return (
    <Link
      href="/agents"
      scroll={false}
      className="-ml-1 mb-3 inline-flex items-center gap-1 rounded px-1 py-0.5 text-[13px] font-medium text-accent hover:underline lg:hidden"
    >
      <ArrowLeftIcon size={14} />
      All agents
    </Link>
  );
}

function AgentCardView({ agent: a, all }: { agent: AgentSummary; all: AgentSummary[] }) {
  const now = useNow(true, 1000);
  const card = a.card;
  const headingId = `agent-${a.agent_id}`;
  return (
    <article aria-labelledby={headingId} className="mx-auto max-w-3xl px-4 pb-10 pt-4 sm:px-6 sm:pt-5">
      <BackLink />
      <header className="flex items-start gap-3.5">
        <span className={`shrink-0 transition-[filter,opacity] ${a.status === "offline" ? "opacity-60 grayscale" : ""}`}>
          <Avatar name={a.name} hue={hueFor(a.agent_id)} agent size={48} />
        </span>
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-x-2.5 gap-y-1">
            <h2 id={headingId} data-agent-heading tabIndex={-1} className="text-[19px] font-bold leading-tight outline-none">
              {a.name}
            </h2>
            <StatusWord status={a.status} className="text-[13px]" />
            <SourceBadge source={a.source} />
          </div>
          <div className="mt-1 flex flex-wrap items-center gap-2">
            <span className="break-all font-mono text-[12.5px] text-fg-muted">{a.agent_id}</span>
            <CopyButton text={a.agent_id} label="Copy agent id" className="h-6 px-1.5 text-[11px]" />
          </div>
          {a.description && <p className="mt-2 text-[14px] leading-relaxed text-fg">{a.description}</p>}
        </div>
      </header>

      <dl className="mt-5 grid grid-cols-2 gap-2 sm:grid-cols-4">
        <Figure label="Presence">
          <span className="block text-[14px]">
            <StatusWord status={a.status} />
          </span>
          <time className="mt-0.5 block text-[12px] tabular-nums text-fg-muted" dateTime={a.last_seen_at ?? undefined} title={a.last_seen_at ? formatFull(a.last_seen_at) : undefined}>
            {seenText(a, now)}
          </time>
        </Figure>
        <Figure label="Load">
          <span className="block text-[14px] font-semibold tabular-nums">
            {a.active_tasks} <span className="font-normal text-fg-muted">of {a.max_concurrency}</span>
          </span>
          <span className="mt-1 flex">
            <LoadMeter active={a.active_tasks} max={a.max_concurrency} wide />
          </span>
          {a.waiting_tasks > 0 && <span className="mt-0.5 block text-[11.5px] font-medium text-warning">{a.waiting_tasks} waiting for an answer</span>}
        </Figure>
        <Figure label="Success rate">
          {a.success_rate === null || !a.recent_outcomes ? (
            <>
              <span className="block text-[14px] font-semibold text-fg-muted">—</span>
              <span className="mt-0.5 block text-[12px] text-fg-muted">no history</span>
            </>
          ) : (
            <>
              <span className={`block text-[14px] font-semibold tabular-nums ${a.success_rate >= 0.8 ? "text-success" : a.success_rate >= 0.5 ? "text-warning" : "text-danger"}`}>
                {Math.round(a.success_rate * 100)}%
              </span>
              <span className="mt-0.5 block text-[12px] text-fg-muted">
                of last {a.recent_outcomes} ended task{a.recent_outcomes === 1 ? "" : "s"}
              </span>
            </>
          )}
        </Figure>
        <Figure label="Heartbeat">
          <span className="block text-[14px] font-semibold tabular-nums">{a.heartbeat_interval_sec ? `every ${formatSeconds(a.heartbeat_interval_sec)}` : "—"}</span>
          <span className="mt-0.5 block text-[12px] text-fg-muted">
            {a.offline_after_sec ? `offline after ${formatSeconds(a.offline_after_sec)}` : "no expiry"}
          </span>
        </Figure>
      </dl>

      <Section title="Capabilities" count={card.capabilities.length}>
        <CapabilityTable capabilities={card.capabilities} />
      </Section>

      <Section title="Delegation">
        <Facts>
          <Fact label="May delegate to">
            {a.allowed_agents.length === 0 ? (
              <span className="text-fg-muted">{a.source === "external" ? "Not set (external agents carry no CAP manifest)" : "No one"}</span>
            ) : (
              <ul className="flex flex-wrap gap-1.5" aria-label="Allowed agents">
                {a.allowed_agents.map((ref) => (
                  <li key={ref}>
                    <AgentRef refId={ref} all={all} />
                  </li>
                ))}
              </ul>
            )}
          </Fact>
          <Fact label="Overseer">
            {a.overseer ? <AgentRef refId={a.overseer} all={all} /> : <span className="text-fg-muted">None</span>}
          </Fact>
        </Facts>
      </Section>

      <div className="grid gap-x-6 sm:grid-cols-2">
        <Section title="Limits">
          <Facts>
            <Fact label="Max concurrency">
              <span className="tabular-nums">
                {card.limits?.max_concurrency ?? a.max_concurrency} task{(card.limits?.max_concurrency ?? a.max_concurrency) === 1 ? "" : "s"} at once
              </span>
            </Fact>
            <Fact label="Max runtime">
              {typeof card.limits?.max_runtime_sec === "number" ? formatDuration(card.limits.max_runtime_sec * 1000) : <span className="text-fg-muted">Not set</span>}
            </Fact>
          </Facts>
        </Section>
        <Section title="Security">
          <Facts>
            <Fact label="Sandbox">
              {card.security?.sandbox === undefined ? <span className="text-fg-muted">Not stated</span> : card.security.sandbox ? "Sandboxed" : "Not sandboxed"}
            </Fact>
            <Fact label="Network">{card.security?.network ? <span className="font-mono text-[12.5px]">{card.security.network}</span> : <span className="text-fg-muted">Not stated</span>}</Fact>
          </Facts>
        </Section>
      </div>

      <Section title="Endpoints" count={Object.keys(card.endpoints ?? {}).length}>
        {Object.keys(card.endpoints ?? {}).length === 0 ? (
          <p className="text-[13px] text-fg-muted">{a.source === "workspace" ? "None: this workspace runs it in process." : "None listed."}</p>
        ) : (
          <Facts>
            {Object.entries(card.endpoints ?? {}).map(([name, ep]) => (
              <Fact key={name} label={name}>
                <span className="break-all font-mono text-[12.5px]">{ep.url}</span>
              </Fact>
            ))}
          </Facts>
        )}
      </Section>

      <Section title="Usage, last 7 days">
        <AgentUsage agentId={a.agent_id} />
      </Section>

      <Section title="Recent tasks" count={a.recent_tasks.length}>
        <RecentTasks tasks={a.recent_tasks} now={now} />
      </Section>

      <section className="mt-6">
        <Disclosure label="Raw AgentCard (JSON)">
          <JsonView value={card} label="AgentCard JSON" maxHeight="max-h-[28rem]" />
        </Disclosure>
      </section>
    </article>
  );
}

function formatSeconds(sec: number): string {
  return sec < 60 ? `${sec} s` : formatDuration(sec * 1000);
}

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0 rounded-lg border border-line bg-surface px-3 py-2.5">
      <dt className="text-[11px] font-semibold uppercase tracking-wider text-fg-subtle">{label}</dt>
      <dd className="mt-1">{children}</dd>
    </div>
  );
}

function Section({ title, count, children }: { title: string; count?: number; children: ReactNode }) {
  return (
    <section className="mt-6" aria-label={title}>
      <h3 className="mb-2 flex items-center gap-2 text-[12px] font-semibold uppercase tracking-wider text-fg-muted">
        {title}
        {count !== undefined && count > 0 && <span className="rounded-full bg-fg-muted/12 px-1.5 text-[11px] tabular-nums">{count}</span>}
      </h3>
      {children}
    </section>
  );
}

function Facts({ children }: { children: ReactNode }) {
  return <div className="space-y-1.5 text-[13.5px]">{children}</div>;
}

/** A labelled fact: a group named by its label (so "Overseer" names the link beside it). */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  const id = useId();
  return (
    <div role="group" aria-labelledby={id} className="flex items-baseline gap-4">
      <span id={id} className="w-[7.5rem] shrink-0 text-fg-muted">
        {label}
      </span>
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  );
}

/** A link to another agent's card, with its presence; plain text when it is not registered. */
function AgentRef({ refId, all }: { refId: string; all: AgentSummary[] }) {
  const target = resolveAgent(all, refId);
  if (!target) {
    return (
      <span className="inline-flex items-center gap-1.5 font-mono text-[12.5px] text-fg-muted" title="Not registered">
        {bareId(refId)} <span className="font-sans text-[11px]">(not registered)</span>
      </span>
    );
  }
  return (
    <Link
      href={agentHref(target.agent_id)}
      scroll={false}
      className="inline-flex items-center gap-1.5 rounded-md border border-line bg-surface px-2 py-0.5 text-[13px] font-medium text-fg hover:border-accent/50 hover:bg-accent-soft"
      aria-label={`${bareId(target.agent_id)} (${target.name}), ${STATUS_WORD[target.status]}`}
    >
      <PresenceDot status={target.status} />
      <span>{target.name}</span>
      <span className="font-mono text-[11.5px] text-fg-muted">{bareId(target.agent_id)}</span>
    </Link>
  );
}

const dash = <span className="text-fg-subtle">—</span>;

function chips(list: readonly string[] | undefined, mono = true): ReactNode {
  if (!list?.length) return dash;
  return (
    <span className="flex flex-wrap gap-1">
      {list.map((t) => (
        <Chip key={t} className={mono ? "text-fg" : "font-sans text-fg"}>
          {t}
        </Chip>
      ))}
    </span>
  );
}

const TRUST: Record<string, string> = { sandbox: "bg-info/12 text-info", prod: "bg-success/12 text-success" };
const COST: Record<string, string> = { low: "text-success", medium: "text-warning", high: "text-danger" };

// Below 36rem of its own width (a phone, or a narrow card pane) the table is stacked: each
// capability a small block, each cell a "label value" line, empty cells left out.
const STACK = "@max-xl:block";
const CELL = `px-2.5 py-2 align-top first:pl-3 last:pr-3 @max-xl:flex @max-xl:items-baseline @max-xl:gap-3 @max-xl:px-3 @max-xl:py-0.5 @max-xl:data-[empty]:hidden @max-xl:before:w-[4.5rem] @max-xl:before:shrink-0 @max-xl:before:text-[10.5px] @max-xl:before:font-semibold @max-xl:before:uppercase @max-xl:before:tracking-wide @max-xl:before:text-fg-subtle @max-xl:before:content-[attr(data-label)]`;

/** A table cell that carries its column's name for the stacked layout, marked when empty. */
function Cell({ label, empty, className = "", children }: { label: string; empty: boolean; className?: string; children: ReactNode }) {
  return (
    <td data-label={label} data-empty={empty || undefined} className={`${CELL} ${className}`}>
      {empty ? dash : children}
    </td>
  );
}

/**
 * The capabilities as a table (id, version, tags, tools, trust level and cost hint); each `tool:mcp`
 * capability gets a second row with its servers' allowed tools and scopes. In a narrow space
 * every capability is stacked as a small block.
 */
function CapabilityTable({ capabilities }: { capabilities: readonly Capability[] }) {
  if (capabilities.length === 0) return <p className="text-[13px] text-fg-muted">This card lists no capabilities, so the router never picks it by capability.</p>;
  const head = "px-2.5 py-1.5 font-semibold first:pl-3 last:pr-3";
  return (
    <div className="@container overflow-hidden rounded-lg border border-line">
      <table className={`w-full border-collapse text-left text-[13px] ${STACK}`} aria-label="Capabilities">
        <thead className="bg-sunken text-[10.5px] font-semibold uppercase tracking-wide text-fg-muted @max-xl:hidden">
          <tr>
            {["Capability", "Version", "Tags", "Tools", "Trust · cost"].map((h) => (
              <th key={h} scope="col" className={head}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={STACK}>
          {capabilities.map((c, i) => {
            const bindings = bindingsOfCapability(c);
            const tools = c.id === "tool:mcp" ? (c.servers ?? c.tools) : c.tools;
            return (
              <Fragment key={`${c.id}-${i}`}>
                <tr className={`border-t border-line first:border-t-0 ${STACK} @max-xl:py-2`}>
                  <th scope="row" className="whitespace-nowrap px-2.5 py-2 pl-3 text-left align-top font-normal @max-xl:block @max-xl:whitespace-normal @max-xl:px-3 @max-xl:pb-1 @max-xl:pt-0">
                    <span className="font-mono text-[12.5px] font-semibold text-fg">{c.id}</span>
                  </th>
                  <Cell label="Version" empty={!c.version} className="whitespace-nowrap font-mono text-[12.5px] tabular-nums">
                    {c.version}
                  </Cell>
                  <Cell label="Tags" empty={!c.tags?.length}>
                    {chips(c.tags, false)}
                  </Cell>
                  <Cell label="Tools" empty={!tools?.length}>
                    {chips(tools)}
                  </Cell>
                  <Cell label="Trust, cost" empty={!c.trust_level && !c.cost_hint}>
                    <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
                      {c.trust_level ? (
                        <span title="Trust level" className={`rounded px-1.5 py-px text-[11.5px] font-medium ${TRUST[c.trust_level] ?? ""}`}>
                          {c.trust_level}
                        </span>
                      ) : (
                        <span className="sr-only">no trust level</span>
                      )}
                      {c.cost_hint && (
                        <span title="Cost hint" className={`whitespace-nowrap text-[12px] font-medium ${COST[c.cost_hint] ?? ""}`}>
                          {c.cost_hint} cost
                        </span>
                      )}
                    </span>
                  </Cell>
                </tr>
                {bindings.length > 0 && (
                  <tr className={STACK}>
                    <td colSpan={5} className={`px-3 pb-2.5 pt-0 ${STACK}`}>
                      <ul className="space-y-2 rounded-md bg-sunken/70 px-2.5 py-2" aria-label={`MCP servers of ${c.id}`}>
                        {bindings.map((b) => (
                          <li key={b.server}>
                            <p className="flex flex-wrap items-baseline gap-x-2">
                              <span className="font-mono text-[12px] font-semibold text-fg">{b.server}</span>
                              {b.description && <span className="text-[12px] text-fg-muted">{b.description}</span>}
                            </p>
                            <p className="mt-1 flex flex-wrap items-center gap-1">
                              <span className="mr-0.5 text-[11px] text-fg-subtle">allowed tools</span>
                              {b.tools.length ? b.tools.map((t) => <Chip key={t} className="text-fg">{t}</Chip>) : <span className="text-[12px] text-fg-muted">none</span>}
                            </p>
                            {b.scopes.length > 0 && (
                              <p className="mt-0.5 flex flex-wrap items-center gap-1">
                                <span className="mr-0.5 text-[11px] text-fg-subtle">scopes</span>
                                {b.scopes.map((sc) => (
                                  <Chip key={sc} className="border-transparent bg-transparent">
                                    {sc}
                                  </Chip>
                                ))}
                              </p>
                            )}
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Its newest tasks with their state, title, when, and links to the run and the channel. */
function RecentTasks({ tasks, now }: { tasks: AgentTaskSummary[]; now: number }) {
  const threads = useThreads();
  if (tasks.length === 0) return <p className="text-[13px] text-fg-muted">No tasks yet.</p>;
  const nameOf = (id: string) => threads.data?.find((t) => t.id === id)?.name;
  return (
    <ul aria-label="Recent tasks" className="divide-y divide-line overflow-hidden rounded-lg border border-line">
      {tasks.map((t) => {
        const style = stateStyle(t.state);
        const channel = nameOf(t.thread_id);
        return (
          <li key={t.task_id} className="flex items-start gap-3 px-3 py-2.5">
            <span className={`mt-px inline-flex shrink-0 items-center gap-1 rounded-full bg-current/10 px-2 py-px text-[11px] font-semibold leading-4 ${style.text}`}>
              <span aria-hidden="true" className="inline-flex">
                {style.icon(11)}
              </span>
              <span className="sr-only">State: </span>
              {style.label}
            </span>
            <div className="min-w-0 flex-1">
              <Link href={`/runs/${encodeURIComponent(t.run_id)}`} className="line-clamp-2 text-[13.5px] font-medium text-fg hover:text-accent hover:underline">
                {t.title ?? t.task_id}
              </Link>
              <p className="mt-0.5 flex flex-wrap items-center gap-x-2 text-[12px] text-fg-muted">
                <Link href={`/c/${encodeURIComponent(t.thread_id)}`} className="inline-flex items-center gap-0.5 font-medium hover:text-accent hover:underline">
                  <HashIcon size={11} />
                  {channel ?? "channel"}
                </Link>
                <span aria-hidden="true">·</span>
                <Link href={`/runs/${encodeURIComponent(t.run_id)}`} className="font-mono text-[11.5px] hover:text-accent hover:underline" aria-label={`Run ${t.run_id}`}>
                  run …{t.run_id.slice(-6)}
                </Link>
                <span aria-hidden="true">·</span>
                <time dateTime={t.updated_at} title={formatFull(t.updated_at)}>
                  {sinceText(t.updated_at, now) || "—"}
                </time>
              </p>
            </div>
          </li>
        );
      })}
    </ul>
  );
}

function DetailSkeleton() {
  return (
    <div className="mx-auto max-w-3xl px-4 pt-5 sm:px-6" role="status" aria-busy="true" aria-label="Loading the agent">
      <div className="flex gap-3.5">
        <span className="h-12 w-12 animate-pulse rounded-[9px] bg-fg-muted/12" />
        <span className="flex-1 space-y-2 pt-1">
          <span className="block h-4 w-1/3 animate-pulse rounded bg-fg-muted/12" />
          <span className="block h-3 w-1/2 animate-pulse rounded bg-fg-muted/10" />
        </span>
      </div>
      <div className="mt-5 grid grid-cols-2 gap-2 sm:grid-cols-4">
        {[0, 1, 2, 3].map((i) => (
          <span key={i} className="h-[70px] animate-pulse rounded-lg bg-fg-muted/8" />
        ))}
      </div>
      <span className="mt-6 block h-32 animate-pulse rounded-lg bg-fg-muted/8" />
    </div>
  );
}
