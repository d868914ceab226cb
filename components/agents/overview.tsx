"use client";
/**
 * `DirectoryOverview`, the right-hand side of `/agents` before an agent is picked: what the
 * directory shows,
 * how many agents are online, busy and offline (live), and `RegisterNote`: the two curl commands
 * that register an external agent and keep it online with heartbeats.
 */
import { useSyncExternalStore } from "react";
import { useAgents } from "@/components/live/use-agents";
import { BotIcon } from "@/components/ui/icons";
import { TerminalIcon } from "./icons";
import { countByStatus } from "./model";
import { CopyButton, PresenceDot } from "./parts";

const noop = () => () => {};

/** This page's origin (`http://localhost:3000` while rendering on the server). */
function useOrigin(): string {
  return useSyncExternalStore(noop, () => window.location.origin, () => "http://localhost:3000");
}

/** The overview shown at `/agents` (see the file comment). */
export function DirectoryOverview() {
  const { data } = useAgents();
  const counts = countByStatus(data ?? []);
  return (
    <div className="mx-auto max-w-2xl px-4 pb-10 pt-6 sm:px-6">
      <div className="max-lg:hidden">
        <span className="inline-flex h-11 w-11 items-center justify-center rounded-2xl bg-agent/12 text-agent">
          <BotIcon size={22} />
        </span>
        <h2 className="mt-3 text-[18px] font-bold">Agent directory</h2>
        <p className="mt-1 max-w-prose text-[14px] leading-relaxed text-fg-muted">
          Every agent that can take work in this workspace, with its AgentCard, whether it is online (from its heartbeats), how loaded it
          is and how its recent tasks went. Pick an agent to see its capabilities, delegation rules, limits and recent tasks.
        </p>
        {data && data.length > 0 && (
          <ul className="mt-4 flex flex-wrap gap-2" aria-label="Agents by status">
            {(["online", "busy", "offline"] as const).map((s) => (
              <li key={s} className="inline-flex items-center gap-2 rounded-lg border border-line bg-surface px-3 py-2 text-[13px]">
                <PresenceDot status={s} />
                <span className="text-[16px] font-bold tabular-nums">{counts[s]}</span>
                <span className="text-fg-muted">{s}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      <RegisterNote interval={data?.find((a) => a.heartbeat_interval_sec)?.heartbeat_interval_sec} offlineAfter={data?.find((a) => a.offline_after_sec)?.offline_after_sec} />
    </div>
  );
}

/**
 * How to register an external agent: `POST /api/agents` with an AgentCard, then
 * `POST /api/agents/{agent_id}/heartbeat` every `interval` seconds (Clutch Protocol §2.4).
 */
export function RegisterNote({ interval, offlineAfter }: { interval?: number; offlineAfter?: number }) {
  const origin = useOrigin();
  const card = {
    v: "clutch/0.1",
    agent_id: "agent:research-1",
    display: { name: "Research", desc: "Finds and summarises market research." },
    capabilities: [{ id: "skill:research", version: "1.0", tags: ["market"] }],
    limits: { max_concurrency: 2 },
  };
  // One top-level key a line: short enough to read, still valid JSON to paste.
  const json = `{\n${Object.entries(card)
    .map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(",\n")}\n  }`;
  const register = `curl -X POST ${origin}/api/agents \\\n  -H 'content-type: application/json' \\\n  -d '${json}'`;
  const beat = `curl -X POST \\\n  ${origin}/api/agents/agent%3Aresearch-1/heartbeat \\\n  -H 'content-type: application/json' -d '{}'`;
  return (
    <section aria-labelledby="register-agent" className="mt-8 lg:mt-8">
      <h2 id="register-agent" className="flex items-center gap-2 text-[15px] font-semibold">
        <TerminalIcon size={16} className="text-fg-muted" />
        Register an agent
      </h2>
      <p className="mt-1 text-[13.5px] leading-relaxed text-fg-muted">
        An agent outside this workspace joins by posting its AgentCard. It shows up here at once, online; the router can then pick it by
        capability.
      </p>
      <Command label="Register" code={register} />
      <p className="mt-3 text-[13.5px] leading-relaxed text-fg-muted">
        Then it sends a heartbeat{interval ? ` every ${interval} s` : " regularly"} (optionally with <code className="font-mono text-[12px] text-fg">status</code> and{" "}
        <code className="font-mono text-[12px] text-fg">active_tasks</code>); after {offlineAfter ? `${offlineAfter} s` : "a few missed beats"} without one it shows as offline.
      </p>
      <Command label="Heartbeat" code={beat} />
    </section>
  );
}

function Command({ label, code }: { label: string; code: string }) {
  return (
    <figure className="mt-2 overflow-hidden rounded-lg border border-line bg-sunken">
      <figcaption className="flex items-center justify-between border-b border-line px-3 py-1">
        <span className="text-[11px] font-semibold uppercase tracking-wider text-fg-subtle">{label}</span>
        <CopyButton text={code} label={`Copy the ${label.toLowerCase()} command`} className="h-6 border-transparent bg-transparent px-1.5 text-[11px]" />
      </figcaption>
      {/* Focusable: a long command scrolls sideways, also from the keyboard. */}
      <pre tabIndex={0} className="scroll-slim overflow-x-auto px-3 py-2.5 font-mono text-[12px] leading-[1.6] text-fg">
        <code>{code}</code>
      </pre>
    </figure>
  );
}
