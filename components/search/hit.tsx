"use client";
/**
 * `SearchHitView`: a search hit shown as the message it is (docs/channels.md "Search"): the
 * sender by name (an agent by its card's display name), the channel ("#sales", a direct message by
 * its other party: components/workspace/thread-title.ts `useChannelNames`), the run, the kind, when
 * ("Today 4:12 PM", "Nov 24"), the excerpt as read with the matched words marked, and the forks
 * that hold a copy of it ("also in fork …"). Used by the search page and Ctrl/⌘+K (`compact`).
 */
import type { SearchHit } from "@/lib/api/types";
import { bareId, hueFor, isHuman } from "@/components/events/participant";
import { useNameOf } from "@/components/events/use-sender-name";
import { useChannelNames } from "@/components/workspace/thread-title";
import { Avatar } from "@/components/ui/avatar";
import { formatFull, formatWhen } from "@/components/ui/time";
import { Snippet } from "./snippet";

/** The kind of each searchable event type, as a hit labels it. */
export const KIND_LABEL: Record<string, string> = {
  "chat.message": "Message",
  "task.request": "Request",
  "task.result": "Result",
  "task.error": "Error",
  "tool.result": "Tool result",
  "approval.requested": "Approval",
};

/** "also in fork A, fork B": the runs forked from the hit's run that copied it. */
function ForkNote({ hit, quiet }: { hit: SearchHit; quiet: string }) {
  if (!hit.also_in.length) return null;
  return (
    <span className={`block text-[11px] ${quiet}`}>
      also in {hit.also_in.map((f) => `fork ${f.run_title ?? bareId(f.run_id)}`).join(", ")}
    </span>
  );
}

/** See the file comment. `selected`: drawn on the accent (the active option of Ctrl/⌘+K). */
export function SearchHitView({ hit, compact = false, selected = false }: { hit: SearchHit; compact?: boolean; selected?: boolean }) {
  const nameOf = useNameOf();
  const channel = useChannelNames();
  const ev = hit.event;
  const name = nameOf(ev.from);
  const where = { thread_id: ev.thread_id, thread_name: hit.thread_name };
  const quiet = selected ? "text-accent-fg/85" : "text-fg-muted";
  const when = (
    <time dateTime={ev.ts} title={formatFull(ev.ts)} className={compact ? "" : "ml-auto shrink-0"}>
      {formatWhen(ev.ts)}
    </time>
  );
  if (compact)
    return (
      <>
        <span className={`flex min-w-0 gap-1 text-[11px] ${quiet}`}>
          <span className="min-w-0 truncate">
            <span className="font-semibold">{name}</span> {channel.place(where)}
            {hit.run_title ? ` · ${hit.run_title}` : ""}
          </span>
          <span aria-hidden="true">·</span>
          <span className="shrink-0">{when}</span>
        </span>
        <span className="line-clamp-2 text-sm">
          <Snippet text={hit.snippet} />
        </span>
        <ForkNote hit={hit} quiet={quiet} />
      </>
    );
  return (
    <div className="flex gap-3">
      <Avatar name={name} hue={hueFor(ev.from.agent_id)} agent={!isHuman(ev.from)} size={32} />
      <div className="min-w-0 flex-1">
        <p className="flex min-w-0 flex-wrap items-baseline gap-x-2 text-xs text-fg-muted">
          <span className="font-semibold text-fg">{name}</span>
          <span>{channel.label(where)}</span>
          {hit.run_title && <span className="min-w-0 truncate">· {hit.run_title}</span>}
          <span className="rounded bg-fg-muted/12 px-1 text-[11px] font-medium">{KIND_LABEL[ev.type] ?? ev.type}</span>
          {when}
        </p>
        <p className="mt-0.5 line-clamp-3 whitespace-pre-line break-words text-sm text-fg" dir="auto">
          <Snippet text={hit.snippet} />
        </p>
        <ForkNote hit={hit} quiet={quiet} />
      </div>
    </div>
  );
}
