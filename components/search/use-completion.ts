"use client";
/**
 * `useSearchCompletion`: the completion of the search box's operators (completion.ts) with the
 * channels (as the person reads them: a DM by its other party), agents and people the person can
 * see, kept as the box changes. The box gives its text
 * and caret; the hook gives the suggestions, the active one, and a key handler for the box
 * (↑/↓ move, Enter or Tab accept, Esc closes the list) that answers true when it used the key.
 */
import { useMemo, useState, type KeyboardEvent } from "react";
import { usePeople } from "@/components/identity/api";
import { useAgents } from "@/components/live/use-agents";
import { useThreads } from "@/components/live/use-threads";
import { useChannelNames } from "@/components/workspace/thread-title";
import { acceptCompletion, completions, type Completion } from "./completion";

export interface SearchCompletion {
  options: Completion[];
  /** The index of the active suggestion (meaningful while `options` is not empty). */
  active: number;
  setActive(i: number): void;
  /** Put suggestion `c` in the box (through `onAccept`). */
  accept(c: Completion): void;
  /** Handles ↑/↓/Enter/Tab/Esc while suggestions show; true when the key was used. */
  onKeyDown(e: KeyboardEvent<HTMLInputElement>): boolean;
}

/** See the file comment. `onAccept(text, caret)` sets the box's text and moves the caret. */
export function useSearchCompletion(text: string, caret: number, onAccept: (text: string, caret: number) => void): SearchCompletion {
  const threads = useThreads().data;
  const { label } = useChannelNames();
  const channels = useMemo(() => threads?.map((t) => ({ name: t.name, topic: t.topic, label: label({ thread_id: t.id }) })), [threads, label]);
  const agents = useAgents().data;
  const people = usePeople().data;
  const [active, setActive] = useState(0);
  const [closedFor, setClosedFor] = useState<string | null>(null);
  const options = useMemo(
    () => (closedFor === text ? [] : completions(text, caret, { channels: channels ?? [], agents: agents ?? [], people: people ?? [] })),
    [text, caret, channels, agents, people, closedFor],
  );
  const index = Math.min(active, Math.max(0, options.length - 1));
  const accept = (c: Completion) => {
    const next = acceptCompletion(text, c);
    setActive(0);
    onAccept(next.text, next.caret);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): boolean => {
    if (!options.length) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((index + step + options.length) % options.length);
      return true;
    }
    if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey) {
      e.preventDefault();
      accept(options[index]!);
      return true;
    }
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      setClosedFor(text);
      return true;
    }
    return false;
  };
  return { options, active: index, setActive, accept, onKeyDown };
}
