"use client";
/**
 * `Welcome`: what a person sees on their first visit (docs/channels.md). It introduces the
 * agents (name, what they do, whether they are online) and the workspace's channels where they
 * take requests, each with the requests it suggests: choosing one sends it there (addressed to
 * the channel's entry agent where agents answer only when @mentioned) and opens the channel, where
 * its run starts. Later visits go straight to the last channel.
 * Data: `GET /api/workspace` (channels, entry agents, suggestions) and `GET /api/agents`.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { WorkspaceChannel } from "@/lib/api/types";
import { postMessage } from "@/components/live/api";
import { ingestEvents } from "@/components/live/live-sync";
import { useWorkspaceChannels } from "@/components/live/workspace-channels";
import { useAgents } from "@/components/live/use-agents";
import { hueFor } from "@/components/events/participant";
import { agentName } from "@/components/events/use-sender-name";
import { useMe } from "@/components/identity/me";
import { writeLocal } from "@/components/prefs/local-store";
import { LAST_THREAD_KEY } from "@/components/thread/thread-screen";
import { Avatar } from "@/components/ui/avatar";
import { HashIcon, SendIcon } from "@/components/ui/icons";

const STATUS = { online: "Online", busy: "Working", offline: "Offline" } as const;

/** The first visit's page (see the file comment). `fallback` is where to go when the workspace has no agents' channel. */
export function Welcome({ fallback }: { fallback: { id: string; name: string } }) {
  const me = useMe();
  const router = useRouter();
  const agents = useAgents().data ?? [];
  const channels = useWorkspaceChannels().data;
  const open = (threadId: string) => {
    writeLocal(LAST_THREAD_KEY, threadId);
    router.push(`/c/${encodeURIComponent(threadId)}`);
  };
  // Ask: the suggestion is sent as the person's message, then the channel opens on its run.
  const [asking, setAsking] = useState<string | null>(null);
  const [askError, setAskError] = useState<string | null>(null);
  const ask = async (c: WorkspaceChannel, suggestion: string) => {
    setAsking(`${c.thread_id}:${suggestion}`);
    setAskError(null);
    try {
      const addressed = c.answers === "mentions" && c.entry_agent ? `@${c.entry_agent.replace(/^agent:/, "")} ${suggestion}` : suggestion;
      ingestEvents([await postMessage(c.thread_id, addressed)]);
      open(c.thread_id);
    } catch (err) {
      setAskError(`Couldn’t send “${suggestion}”: ${err instanceof Error ? err.message : "try again"}`);
      setAsking(null);
    }
  };
  const first = me.name.split(/\s+/)[0];
  return (
    <div className="scroll-slim flex-1 overflow-y-auto">
      <div className="mx-auto max-w-2xl px-5 py-8 sm:py-12">
        <h2 className="text-2xl font-bold tracking-tight">Welcome to Clutch{first ? `, ${first}` : ""}</h2>
        <p className="mt-2 text-[15px] text-fg-muted">
          Your agents work in channels, like colleagues. Ask in plain words: they plan, hand parts to each other, ask you when
          something is unclear, and report back. Each request becomes a run you can follow live in its thread, and you approve
          what the workspace’s policy holds for a person.
        </p>

        {channels && channels.length > 0 && (
          <section aria-labelledby="welcome-channels" className="mt-8">
            <h3 id="welcome-channels" className="text-sm font-semibold uppercase tracking-wide text-fg-muted">
              Where to ask
            </h3>
            <ul className="mt-3 space-y-3">
              {channels.map((c) => (
                <li key={c.thread_id} className="rounded-xl border border-line bg-surface p-4 shadow-sm">
                  <div className="flex items-center gap-2">
                    <HashIcon size={16} className="text-fg-muted" />
                    <span className="font-semibold">{c.name}</span>
                    {c.entry_agent && <span className="text-xs text-fg-muted">· requests go to {agentName(agents, c.entry_agent)}</span>}
                  </div>
                  {c.topic && <p className="mt-1 text-sm text-fg-muted">{c.topic}</p>}
                  <div className="mt-3 flex flex-wrap gap-2">
                    {c.suggestions.map((s) => (
                      <button
                        key={s}
                        type="button"
                        onClick={() => void ask(c, s)}
                        disabled={asking !== null}
                        aria-busy={asking === `${c.thread_id}:${s}`}
                        className="inline-flex items-center gap-2 rounded-lg bg-accent px-3 py-1.5 text-sm font-semibold text-accent-fg hover:brightness-110 disabled:opacity-70"
                      >
                        <SendIcon size={14} />
                        Ask “{s}”
                      </button>
                    ))}
                    <button
                      type="button"
                      onClick={() => open(c.thread_id)}
                      className="inline-flex items-center rounded-lg border border-line-strong px-3 py-1.5 text-sm font-medium hover:bg-hover"
                    >
                      Open #{c.name}
                    </button>
                  </div>
                </li>
              ))}
            </ul>
            {askError && (
              <p role="alert" className="mt-2 text-sm font-medium text-danger">
                {askError}
              </p>
            )}
          </section>
        )}

        {agents.length > 0 && (
          <section aria-labelledby="welcome-agents" className="mt-8">
            <h3 id="welcome-agents" className="text-sm font-semibold uppercase tracking-wide text-fg-muted">
              Your agents
            </h3>
            <ul className="mt-3 grid gap-2 sm:grid-cols-2">
              {agents.map((a) => (
                <li key={a.agent_id} className="flex gap-3 rounded-lg border border-line p-3">
                  <Avatar name={a.name} hue={hueFor(a.agent_id)} agent size={32} />
                  <div className="min-w-0">
                    <p className="flex items-center gap-2 text-sm font-semibold">
                      <span title={a.agent_id}>{a.name}</span>
                      <span className="text-xs font-normal text-fg-muted">{STATUS[a.status]}</span>
                    </p>
                    {a.description && <p className="line-clamp-2 text-xs text-fg-muted">{a.description}</p>}
                  </div>
                </li>
              ))}
            </ul>
            <p className="mt-2 text-sm">
              <Link href="/agents" className="font-medium text-accent hover:underline">
                See every agent, its skills and tools
              </Link>
            </p>
          </section>
        )}

        {channels && channels.length === 0 && (
          <button
            type="button"
            onClick={() => open(fallback.id)}
            className="mt-8 inline-flex items-center rounded-lg bg-accent px-3 py-1.5 text-sm font-semibold text-accent-fg hover:brightness-110"
          >
            Open #{fallback.name}
          </button>
        )}
      </div>
    </div>
  );
}
