"use client";
/**
 * @-mention completion for the composer: a person mentions an agent (`@analyst-1`), a person
 * of the channel (`@Dana_Scully`) or a capability (`@skill:research`) and picks it from a
 * list, following the WAI-ARIA combobox pattern: the textarea is the combobox (aria-expanded,
 * aria-controls, aria-activedescendant; focus never leaves it), `MentionList` the listbox of
 * options grouped into Agents (handle, name, status), People (handle, name, role, presence; the
 * channel's members only, docs/channels.md "Mentions"), Everyone (`@here`, `@channel`, in a
 * channel: what each notifies) and Capabilities (id, version, how many agents offer it).
 *
 * `useMentionCompletion` holds the state: the `@partial` at the caret (mention-complete.ts), the
 * matching options, the active one, and whether Escape dismissed the list for this mention. Its
 * `onKeyDown` takes ↑/↓, Enter/Tab (insert) and Escape while the list is open and says so, so
 * the composer does not send on that Enter.
 */
import { useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from "react";
import type { AgentSummary } from "@/lib/api/types";
import { useAgents } from "@/components/live/use-agents";
import { useChannelPeople } from "@/components/live/people";
import { usePresence } from "@/components/live/presence";
import { useThread } from "@/components/live/use-threads";
import { Avatar } from "@/components/ui/avatar";
import { AvatarWithPresence } from "@/components/ui/presence-dot";
import { hueFor } from "@/components/events/participant";
import { BellIcon, BotIcon, RouteIcon } from "@/components/ui/icons";
import {
  agentCount,
  filterMentions,
  insertMention,
  mentionAt,
  mentionOptions,
  specialDescription,
  type MentionOption,
  type MentionQuery,
} from "./mention-complete";

const STATUS_DOT: Record<AgentSummary["status"], string> = {
  online: "bg-success",
  busy: "bg-warning",
  offline: "border-[1.5px] border-fg-subtle bg-surface",
};

/** The state and handlers of the completion, for a textarea whose value is `text`, in channel `threadId`. */
export function useMentionCompletion({
  text,
  setText,
  area,
  threadId,
}: {
  text: string;
  setText: (text: string) => void;
  area: RefObject<HTMLTextAreaElement | null>;
  threadId?: string;
}) {
  const listId = useId();
  const { data: agents } = useAgents();
  const { data: people } = useChannelPeople(threadId);
  // @here and @channel in a channel; a direct message is between two already.
  const thread = useThread(threadId);
  const channel = thread && thread.kind !== "dm" ? `#${thread.name}` : null;
  const options = useMemo(() => mentionOptions(agents ?? [], people ?? [], { special: channel !== null }), [agents, people, channel]);
  const [caret, setCaret] = useState<number | null>(null);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const [active, setActive] = useState<{ key: string; index: number }>({ key: "", index: 0 });
  const pendingCaret = useRef<number | null>(null);

  const at: MentionQuery | null = caret === null ? null : mentionAt(text, caret);
  const query = at ? at.query : null;
  const matches = useMemo(() => (query === null ? [] : filterMentions(options, query)), [options, query]);
  const open = Boolean(at) && matches.length > 0 && dismissed !== at!.start;
  const key = at ? `${at.start}:${at.query}` : "";
  const activeIndex = open ? (active.key === key ? Math.min(active.index, matches.length - 1) : 0) : -1;
  const optionId = (i: number) => `${listId}-option-${i}`;

  // Put the caret after an inserted mention once the new text is rendered.
  useLayoutEffect(() => {
    const el = area.current;
    if (el && pendingCaret.current !== null && el.value === text) {
      el.setSelectionRange(pendingCaret.current, pendingCaret.current);
      setCaret(pendingCaret.current);
      pendingCaret.current = null;
    }
  }, [text, area]);

  // Keep the active option in view while arrowing through a long list.
  useLayoutEffect(() => {
    if (activeIndex >= 0) document.getElementById(optionId(activeIndex))?.scrollIntoView({ block: "nearest" });
  });

  const choose = (option: MentionOption) => {
    if (!at) return;
    const next = insertMention(text, at, option);
    pendingCaret.current = next.caret;
    setText(next.text);
    setDismissed(null);
  };

  /** Reads the caret after a change, a click or a key (textarea `onSelect`, `onChange`). */
  const track = (el: HTMLTextAreaElement) => {
    const c = el.selectionStart === el.selectionEnd ? el.selectionStart : null;
    setCaret(c);
    const now = c === null ? null : mentionAt(el.value, c);
    if (dismissed !== null && now?.start !== dismissed) setDismissed(null);
  };

  /** Handles the key when the list is open; true when it did (the composer must not act on it). */
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || e.nativeEvent.isComposing) return false;
    const n = matches.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive({ key, index: (activeIndex + step + n) % n });
    } else if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      choose(matches[activeIndex]!);
    } else if (e.key === "Escape") {
      setDismissed(at!.start);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };

  return {
    open,
    /** Props for the textarea (the combobox). */
    inputProps: {
      role: "combobox" as const,
      "aria-autocomplete": "list" as const,
      "aria-expanded": open,
      "aria-controls": open ? listId : undefined,
      "aria-activedescendant": open ? optionId(activeIndex) : undefined,
      onSelect: (e: React.SyntheticEvent<HTMLTextAreaElement>) => track(e.currentTarget),
      onBlur: () => setCaret(null),
    },
    track,
    onKeyDown,
    list: open ? (
      <MentionList
        id={listId}
        channel={channel ?? "the channel"}
        options={matches}
        activeIndex={activeIndex}
        optionId={optionId}
        onHover={(i) => setActive({ key, index: i })}
        onChoose={choose}
      />
    ) : null,
  };
}

function AgentRow({ o }: { o: Extract<MentionOption, { kind: "agent" }> }) {
  return (
    <>
      <span className="relative shrink-0" aria-hidden="true">
        <span
          className="inline-flex h-5 w-5 items-center justify-center rounded-[5px] text-white"
          style={{ background: `hsl(${hueFor(o.agent_id)} 55% 48%)` }}
        >
          <BotIcon size={13} strokeWidth={2.25} />
        </span>
        <span className={`absolute -bottom-0.5 -right-0.5 block h-2 w-2 rounded-full ring-2 ring-surface ${STATUS_DOT[o.status]}`} />
      </span>
      <span className="shrink-0 font-mono text-[13px] font-semibold text-fg">@{o.handle}</span>
      <span className="min-w-0 flex-1 truncate text-[13px] text-fg-muted">{o.name}</span>
      <span className="shrink-0 text-[11px] text-fg-subtle">{o.status}</span>
    </>
  );
}

function PersonRow({ o, online }: { o: Extract<MentionOption, { kind: "person" }>; online: boolean }) {
  return (
    <>
      <AvatarWithPresence online={online} dot={8}>
        <Avatar name={o.name} hue={hueFor(o.agent_id)} agent={false} size={20} />
      </AvatarWithPresence>
      <span className="shrink-0 font-mono text-[13px] font-semibold text-fg">@{o.handle}</span>
      <span className="min-w-0 flex-1 truncate text-[13px] text-fg-muted">{o.name}</span>
      <span className="shrink-0 text-[11px] text-fg-subtle">{o.role}</span>
    </>
  );
}

function SpecialRow({ o, channel }: { o: Extract<MentionOption, { kind: "special" }>; channel: string }) {
  return (
    <>
      <span aria-hidden="true" className="inline-flex h-5 w-5 shrink-0 items-center justify-center rounded-[5px] bg-warning/15 text-warning">
        <BellIcon size={12} strokeWidth={2.25} />
      </span>
      <span className="shrink-0 font-mono text-[13px] font-semibold text-fg">@{o.id}</span>
      <span className="min-w-0 flex-1 truncate text-[13px] text-fg-muted">{specialDescription(o.id, channel)}</span>
    </>
  );
}

function CapabilityRow({ o }: { o: Extract<MentionOption, { kind: "capability" }> }) {
  return (
    <>
      <span aria-hidden="true" className="inline-flex h-5 w-5 shrink-0 items-center justify-center rounded-[5px] bg-accent/12 text-accent">
        <RouteIcon size={12} strokeWidth={2.25} />
      </span>
      <span className="shrink-0 font-mono text-[13px] font-semibold text-fg">@{o.id}</span>
      {o.versions.length > 0 && <span className="shrink-0 font-mono text-[11px] text-fg-muted">v{o.versions.join(", v")}</span>}
      <span className="min-w-0 flex-1 truncate text-[11px] text-fg-subtle">{o.tags.join(" · ")}</span>
      <span className="shrink-0 text-[11px] text-fg-subtle">{agentCount(o.agents.length)}</span>
    </>
  );
}

/** The accessible name of an option: what it inserts, then what it is. */
function optionLabel(o: MentionOption, online: boolean, channel: string): string {
  if (o.kind === "agent") return `@${o.handle}, ${o.name}, ${o.status}`;
  if (o.kind === "special") return `@${o.id}, ${specialDescription(o.id, channel)}`;
  if (o.kind === "person") return `@${o.handle}, ${o.name}, person, ${o.role}, ${online ? "online" : "offline"}`;
  const version = o.versions.length ? `, version ${o.versions.join(" or ")}` : "";
  return `@${o.id}, capability${version}, offered by ${agentCount(o.agents.length)}`;
}

/** The listbox above the composer: options grouped into Agents, People, Everyone and Capabilities. */
export function MentionList({
  id,
  channel,
  options,
  activeIndex,
  optionId,
  onHover,
  onChoose,
}: {
  id: string;
  /** The channel's name ("#sales"), for what @here and @channel do. */
  channel: string;
  options: readonly MentionOption[];
  activeIndex: number;
  optionId: (i: number) => string;
  onHover: (i: number) => void;
  onChoose: (o: MentionOption) => void;
}) {
  const groups = [
    { kind: "agent", title: "Agents" },
    { kind: "person", title: "People in this channel" },
    { kind: "special", title: "Everyone" },
    { kind: "capability", title: "Capabilities · routed to the best match" },
  ] as const;
  const isOnline = usePresence();
  return (
    <div
      id={id}
      role="listbox"
      aria-label="Mention an agent, a person or a capability"
      className="scroll-slim absolute bottom-full left-0 z-30 mb-1.5 max-h-72 w-full max-w-lg animate-pop-in overflow-y-auto rounded-lg border border-line bg-surface py-1 shadow-pop"
    >
      {groups.map((g) => {
        const items = options.map((o, i) => ({ o, i })).filter((x) => x.o.kind === g.kind);
        if (!items.length) return null;
        const headId = `${id}-${g.kind}`;
        return (
          <div key={g.kind} role="group" aria-labelledby={headId}>
            <div id={headId} role="presentation" className="px-3 pb-0.5 pt-1.5 text-[10.5px] font-semibold uppercase tracking-wide text-fg-subtle">
              {g.title}
            </div>
            {items.map(({ o, i }) => (
              <div
                key={o.kind === "capability" || o.kind === "special" ? o.id : o.agent_id}
                id={optionId(i)}
                role="option"
                aria-selected={i === activeIndex}
                aria-label={optionLabel(o, o.kind === "person" && isOnline(o.agent_id), channel)}
                onMouseDown={(e) => e.preventDefault()}
                onMouseMove={() => i !== activeIndex && onHover(i)}
                onClick={() => onChoose(o)}
                className={`mx-1 flex h-8 cursor-pointer items-center gap-2 rounded-md px-2 ${i === activeIndex ? "bg-accent/12" : ""}`}
              >
                {o.kind === "agent" ? (
                  <AgentRow o={o} />
                ) : o.kind === "person" ? (
                  <PersonRow o={o} online={isOnline(o.agent_id)} />
                ) : o.kind === "special" ? (
                  <SpecialRow o={o} channel={channel} />
                ) : (
                  <CapabilityRow o={o} />
                )}
              </div>
            ))}
          </div>
        );
      })}
    </div>
  );
}
