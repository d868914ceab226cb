"use client";
/**
 * What is being written now, under a channel's (or a run thread's) messages
 * (docs/channels.md "Streaming replies"; components/live/streams.ts):
 *
 * - `LiveReplies`: each reply being written, drawn like the message it becomes (the agent's
 *   name and avatar, markdown as it grows, a caret while open). The run's requester and admins
 *   get a Stop button (and Esc while the reply has focus): the agent's turn ends, what was
 *   written is kept, marked "Stopped by …". A reply whose writer went away stays, marked
 *   "Interrupted", with what was written. In a channel only the replies its conversation would
 *   show are drawn (an agent's message or question to people, lib/conversation.ts `inChannel`);
 *   a run's thread draws them all.
 * - `LiveLine`: one line under the list: what agents are doing ("Project Manager is querying
 *   DataServer…") and who is typing ("Lee is typing…").
 */
import { useMemo, useState } from "react";
import type { StoredEvent } from "@/lib/protocol";
import type { RunSummary } from "@/lib/api/types";
import type { AgentStatus, LiveStream } from "@/lib/realtime/streams";
import { inChannel, threadOnlyTasks } from "@/lib/conversation";
import { useMeOrNull } from "@/components/identity/me";
import { SenderRow } from "@/components/events/event-shell";
import { useNameOf } from "@/components/events/use-sender-name";
import { usePersonLabel } from "@/components/identity/names";
import { listOf } from "@/components/events/participant";
import { Markdown } from "@/components/markdown/markdown";
import { apiRequest, ApiRequestError } from "@/components/live/api";

/** A stream drawn as the stored event it will become (its id, author, recipients, task). */
function asEvent(s: LiveStream): StoredEvent {
  return {
    id: s.stream_id,
    seq: 0,
    ts: new Date(s.started_at).toISOString(),
    type: "chat.message",
    thread_id: s.thread_id,
    run_id: s.run_id ?? "",
    task_id: s.task_id ?? "",
    from: { agent_id: s.author, role: s.author.startsWith("user:") ? "human" : "worker" },
    to: s.to.map((agent_id) => ({ agent_id, ...(agent_id === "user" || agent_id.startsWith("user:") ? { role: "human" as const } : {}) })),
    payload: { text: s.text, ...(s.kind === "question" ? { expects_reply: true } : {}) },
  } as unknown as StoredEvent;
}

/** The replies being written here (see the module doc). `where`: a channel's conversation, or a run's thread. */
export function LiveReplies({ streams, events, runs, where }: { streams: readonly LiveStream[]; events: readonly StoredEvent[]; runs?: readonly RunSummary[]; where: "channel" | "thread" }) {
  const threadOnly = useMemo(() => (where === "channel" ? threadOnlyTasks(events) : new Set<string>()), [events, where]);
  const shown = streams.filter((s) => where === "thread" || ((s.kind === "message" || s.kind === "question") && inChannel(asEvent(s), threadOnly)));
  if (!shown.length) return null;
  return (
    <div data-testid="live-replies">
      {shown.map((s) => (
        <StreamingMessage key={s.stream_id} stream={s} run={runs?.find((r) => r.run_id === s.run_id)} />
      ))}
    </div>
  );
}

function StreamingMessage({ stream, run }: { stream: LiveStream; run?: RunSummary }) {
  const me = useMeOrNull();
  const nameOf = useNameOf();
  const personName = usePersonLabel();
  const [stopping, setStopping] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const open = !stream.ended;
  const event = useMemo(() => asEvent(stream), [stream]);
  const name = nameOf(stream.author);
  const mayStop = open && Boolean(me && (me.role === "admin" || (run?.requester && run.requester === me.agent_id)));
  const stop = async () => {
    if (!mayStop || stopping) return;
    setStopping(true);
    setError(null);
    try {
      await apiRequest(`/api/streams/${encodeURIComponent(stream.stream_id)}/stop`, { method: "POST", body: "{}" });
    } catch (err) {
      setStopping(false);
      // It finished as Stop was pressed: nothing left to stop, and its message arrives as usual.
      if (err instanceof ApiRequestError && err.code === "stream_ended") return;
      setError(err instanceof ApiRequestError ? err.message : "Could not stop the reply; try again.");
    }
  };
  const ended = stream.ended;
  return (
    <div
      data-testid="streaming-reply"
      data-stream-id={stream.stream_id}
      data-state={open ? "open" : ended!.status}
      data-kind={stream.kind}
      tabIndex={mayStop ? 0 : undefined}
      onKeyDown={(e) => {
        if (e.key === "Escape" && mayStop) {
          e.preventDefault();
          void stop();
        }
      }}
      className="outline-none focus-visible:ring-2 focus-visible:ring-accent/60"
    >
      <SenderRow
        event={event}
        continued={false}
        label={`${open ? `${name} is writing` : `Message from ${name}`}`}
        headerExtra={open ? <span className="text-[11px] font-medium text-fg-muted">writing…</span> : undefined}
      >
        <div className="text-msg text-fg" dir="auto" aria-busy={open}>
          <Markdown text={stream.text || "…"} suffix={open ? <span aria-hidden className="streaming-caret" /> : undefined} />
        </div>
        {ended?.status === "stopped" && <div className="mt-0.5 text-[11px] font-medium text-fg-muted">Stopped{ended.stopped_by ? ` by ${personName(ended.stopped_by)}` : ""}</div>}
        {ended?.status === "interrupted" && (
          <div className="mt-0.5 text-[11px] font-medium text-warning">Interrupted{ended.reason ? `: ${ended.reason}` : ""}. What was written is shown; the task carries on per its retry rules.</div>
        )}
        {mayStop && (
          <button
            type="button"
            onClick={() => void stop()}
            disabled={stopping}
            aria-keyshortcuts="Escape"
            className="mt-1 inline-flex items-center gap-1 rounded-md border border-line bg-canvas px-2 py-0.5 text-[12px] font-medium text-fg-muted hover:border-danger/50 hover:text-danger disabled:opacity-60"
          >
            <span aria-hidden className="inline-block h-2 w-2 rounded-[2px] bg-current" />
            {stopping ? "Stopping…" : "Stop"}
          </button>
        )}
        {error && (
          <p role="alert" className="mt-1 text-[12px] text-danger">
            {error}
          </p>
        )}
      </SenderRow>
    </div>
  );
}

/** What an agent's status says, as the end of "<name> is …" ("querying DataServer"). */
function doing(s: AgentStatus, nameOf: (id: string) => string): string {
  return `${nameOf(s.agent_id)} is ${s.status}…`;
}

/** The line under the list: agents' statuses and people typing (see the module doc). */
export function LiveLine({ statuses, typing, streams }: { statuses: readonly AgentStatus[]; typing: readonly string[]; streams: readonly LiveStream[] }) {
  const nameOf = useNameOf();
  const personName = usePersonLabel();
  const me = useMeOrNull();
  // An agent already shown writing its reply needs no status line too.
  const writing = new Set(streams.filter((s) => !s.ended).map((s) => s.author));
  const agents = [...new Map(statuses.filter((s) => !writing.has(s.agent_id)).map((s) => [s.agent_id, s])).values()];
  const people = typing.filter((id) => id !== me?.agent_id).map((id) => personName(id));
  const parts = [
    ...agents.map((s) => doing(s, nameOf)),
    ...(people.length ? [people.length > 3 ? "Several people are typing…" : `${listOf(people)} ${people.length === 1 ? "is" : "are"} typing…`] : []),
  ];
  return (
    <div data-testid="live-line" role="status" aria-live="polite" className="h-5 truncate px-4 text-[12px] text-fg-muted sm:px-5">
      {parts.length ? (
        <>
          <span aria-hidden className="mr-1.5 inline-flex gap-0.5 align-middle">
            <span className="typing-dot" />
            <span className="typing-dot [animation-delay:150ms]" />
            <span className="typing-dot [animation-delay:300ms]" />
          </span>
          {parts.join(" · ")}
        </>
      ) : null}
    </div>
  );
}
