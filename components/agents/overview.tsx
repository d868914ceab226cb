"use client";
/**
 * `DirectoryOverview`, the right-hand side of `/agents` before an agent is picked: what the
 * directory shows,
 * how many agents are online, busy and offline (live), and `RegisterNote`: the curl commands that
 * make an external agent's API key, register it with that key and keep it online with heartbeats.
 */
import { useSyncExternalStore } from "react";
import { useMe } from "@/components/identity/me";
import { useAgents } from "@/components/live/use-agents";
import { BotIcon } from "@/components/ui/icons";
import { TerminalIcon } from "./icons";
import { countByStatus } from "./model";
import { registerCommands } from "./register-commands";
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
 * How to register an external agent (docs/identity.md, "API keys"): an admin makes the agent's
 * key (`POST /api/agents/{agent_id}/keys`, here with the admin's personal key `$ME`), then the
 * agent posts its AgentCard (`POST /api/agents`) and a heartbeat every `interval` seconds
 * (`POST /api/agents/{agent_id}/heartbeat`, Clutch Protocol §2.4), each with
 * `Authorization: Bearer $KEY`.
 */
export function RegisterNote({ interval, offlineAfter }: { interval?: number; offlineAfter?: number }) {
  const origin = useOrigin();
  const me = useMe();
  const { key, register, beat } = registerCommands(origin);
  return (
    <section aria-labelledby="register-agent" className="mt-8 lg:mt-8">
      <h2 id="register-agent" className="flex items-center gap-2 text-[15px] font-semibold">
        <TerminalIcon size={16} className="text-fg-muted" />
        Register an agent
      </h2>
      <p className="mt-1 text-[13.5px] leading-relaxed text-fg-muted">
        An agent outside this workspace joins by posting its AgentCard with an API key of its own. It shows up here at once, online; the router
        can then pick it by capability.
      </p>
      <p className="mt-3 text-[13.5px] leading-relaxed text-fg-muted">
        First an admin makes the agent&apos;s key, shown once: in <strong className="font-medium text-fg">Admin → API keys</strong>, or with an
        admin&apos;s personal key as below.
        {me.role !== "admin" ? " You are not an admin: ask one for the key." : null}
      </p>
      <Command label="Make a key" code={key} />
      <p className="mt-3 text-[13.5px] leading-relaxed text-fg-muted">With the key, the agent registers:</p>
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
