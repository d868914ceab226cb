"use client";
/**
 * `Composer`: writes the person's chat.message. Enter sends, Shift+Enter adds a line; while
 * sending the field is read-only and the button disabled; if sending fails the text stays and
 * the error is shown (Enter tries again). The draft is kept per channel and per thread
 * (localStorage), so switching channels loses nothing.
 *
 * What a message does is always said, never guessed (docs/channels.md):
 * - `new`: a new request in the channel (the orchestrator opens a run for it). While agents wait
 *   for an answer, a line says so and offers "Answer" instead: a plain message never answers.
 * - `answer`: the answer to one question of one run, "Answering pm-1 in “Analyze sales”: …"
 *   (a question's Answer button picks it; × or Escape goes back to a new request).
 * - `thread`: a reply in the thread of a message (the side pane's composer).
 *
 * Mentions: typing `@` opens a completion list of agents and capabilities
 * (mention-list.tsx; the textarea is a WAI-ARIA combobox); while it is open, Enter and Tab
 * insert the active option instead of sending, and Escape closes it. Under the box the person
 * sees what a mention will do, read with lib/mentions.ts as the server reads it: "New request
 * for analyst-1", "New request routed by skill:data-analysis" or, when it mentions only people
 * of the channel, "A message for Lee: no agent request". Only the text is sent.
 */
import { useNameOf } from "@/components/events/use-sender-name";
import { useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type Ref } from "react";
import { excerpt } from "@/lib/fold/questions";
import type { Participant } from "@/lib/protocol";
import { parseMentions } from "@/lib/mentions";
import { CloseIcon, CornerDownRightIcon, MessageIcon, RouteIcon, SendIcon } from "@/components/ui/icons";
import { useMutation } from "@tanstack/react-query";
import { useSendMessage } from "@/components/live/use-send-message";
import { makeAnswer } from "@/components/live/api";
import { ingestEvents } from "@/components/live/live-sync";
import { useAgents } from "@/components/live/use-agents";
import { readLocal, writeLocal } from "@/components/prefs/local-store";
import { handleOf } from "./mention-complete";
import { useMentionCompletion } from "./mention-list";
import { useChannelPeople } from "@/components/live/people";

/** A question people can answer: an agent's message that waits for a reply, and its run's title. */
export interface AnswerableQuestion {
  id: string;
  run_id: string;
  from: Participant;
  text: string;
  /** The title of the question's run, when known. */
  runTitle?: string | null;
}

/** What the next message does (see the file comment). */
export type ComposerTarget =
  | { kind: "new" }
  | { kind: "answer"; question: AnswerableQuestion }
  | { kind: "thread"; parentId: string; label: string }
  /** A follow-up: a reply to an agent's message or result, which that agent carries on from (docs/channels.md "Follow-ups"). */
  | { kind: "follow_up"; parentId: string; agent: Participant };

/** What the channel can ask of the composer. */
export interface ComposerHandle {
  focus(): void;
}

/** localStorage key of the draft for `key` (a channel id, or a thread's). */
export const draftKey = (key: string) => `clutch:draft:${key}`;

/** The message box of a channel or a thread; `onSent` runs after a successful send. */
export function Composer({
  ref,
  threadId,
  channelName,
  draft,
  target = { kind: "new" },
  onTargetChange,
  waiting = [],
  onShowQuestion,
  onSent,
  label,
  fieldId,
}: {
  ref?: Ref<ComposerHandle>;
  threadId: string;
  channelName: string;
  /** Where the draft is kept: the channel's id, or the thread's. */
  draft: string;
  target?: ComposerTarget;
  /** Switch between a new request and an answer (× / Escape / "Answer"). */
  onTargetChange?: (target: ComposerTarget) => void;
  /** Questions waiting for people in this channel, oldest first (server state: RunSummary.questions). */
  waiting?: readonly AnswerableQuestion[];
  /** Scrolls to a question (the chip's text is a link to it). */
  onShowQuestion?: (id: string) => void;
  onSent?: () => void;
  /** The field's accessible name; "Message #channel" by default. */
  label?: string;
  /** The field's id (the channel's own composer is the skip link's target, components/workspace/skip-links.tsx). */
  fieldId?: string;
}) {
  const nameOf = useNameOf();
  const [text, setTextState] = useState(() => readLocal<string>(draftKey(draft), ""));
  const setText = (t: string) => {
    setTextState(t);
    writeLocal(draftKey(draft), t);
  };
  // Another channel or thread: its own draft.
  const shownDraft = useRef(draft);
  useEffect(() => {
    if (shownDraft.current === draft) return;
    shownDraft.current = draft;
    setTextState(readLocal<string>(draftKey(draft), ""));
  }, [draft]);
  const send = useSendMessage(threadId);
  // Right after a new request was sent while a question waited: offer to make it the answer.
  const [meant, setMeant] = useState<{ messageId: string; question: AnswerableQuestion } | null>(null);
  useEffect(() => {
    if (!meant) return;
    const t = setTimeout(() => setMeant(null), 30_000);
    return () => clearTimeout(t);
  }, [meant]);
  const asAnswer = useMutation({
    mutationFn: (m: { messageId: string; question: AnswerableQuestion }) => makeAnswer(threadId, m.messageId, m.question.id),
    onSuccess: (event) => {
      ingestEvents([event]);
      setMeant(null);
    },
  });
  const area = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(ref, () => ({ focus: () => area.current?.focus() }), []);
  const mention = useMentionCompletion({
    text,
    setText: (t) => {
      setText(t);
      if (send.isError) send.reset();
    },
    area,
    threadId,
  });
  const { data: agents } = useAgents();
  const { data: people } = useChannelPeople(threadId);
  const mentioned = useMemo(() => {
    const known = new Set((agents ?? []).map((a) => a.agent_id));
    return parseMentions(text, (id) => known.has(id), people ?? []);
  }, [agents, people, text]);

  const answering = target.kind === "answer" ? target.question : null;
  const newest = waiting.length ? waiting[waiting.length - 1]! : null;

  // Grow with the text up to ~10 lines.
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);

  const submit = () => {
    const body = text.trim();
    if (!body || send.isPending) return;
    send.mutate(
      { text: body, replyTo: target.kind === "answer" ? target.question.id : target.kind === "thread" || target.kind === "follow_up" ? target.parentId : null },
      {
        onSuccess: (event) => {
          setText("");
          asAnswer.reset();
          setMeant(target.kind === "new" && newest ? { messageId: event.id, question: newest } : null);
          if (target.kind === "answer") onTargetChange?.({ kind: "new" });
          onSent?.();
          area.current?.focus();
        },
      },
    );
  };

  const error = send.isError ? send.error : null;
  const fieldLabel = label ?? `Message ${channelName}`;
  const followUp = target.kind === "follow_up" ? target.agent : null;
  const placeholder = answering
    ? `Answer ${nameOf(answering.from)}…`
    : followUp
      ? `Ask ${nameOf(followUp)} a follow-up…`
      : target.kind === "thread"
        ? "Reply in thread…"
        : `Message ${channelName}`;
  // What a mention does to a new message (the server reads the text the same way): only people is no request.
  const routedTo =
    target.kind !== "new" || !text.trim()
      ? null
      : mentioned.agents.length
        ? `New request for ${mentioned.agents.map(handleOf).join(", ")}`
        : mentioned.capabilities.length
          ? `New request routed by ${mentioned.capabilities.join(" + ")}`
          : mentioned.people.length
            ? `A message for ${mentioned.people.map((id) => people?.find((p) => p.agent_id === id)?.name ?? "a teammate").join(", ")}: no agent request`
            : null;
  return (
    <form
      className="px-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-1 sm:px-5 sm:pb-4"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div
        className={`relative rounded-xl border bg-surface shadow-sm transition-colors focus-within:border-fg-muted ${
          error ? "border-danger/60" : answering ? "border-warning/50" : "border-line-strong"
        }`}
      >
        {answering && (
          <div
            role="group"
            aria-label={`Answering ${nameOf(answering.from)}`}
            className="flex min-w-0 items-center gap-1.5 rounded-t-xl border-b border-warning/25 bg-warning/[0.08] py-1 pl-3 pr-1 text-xs"
          >
            <CornerDownRightIcon size={13} className="shrink-0 text-warning" />
            <button
              type="button"
              onClick={() => onShowQuestion?.(answering.id)}
              className="flex min-w-0 flex-1 items-baseline gap-1 text-left hover:underline"
              title={answering.text}
            >
              <span className="shrink-0 text-fg-muted">
                Answering <span className="font-semibold text-fg">{nameOf(answering.from)}</span>
                {answering.runTitle ? (
                  <>
                    {" "}
                    in <span className="font-semibold text-fg">“{excerpt(answering.runTitle, 48)}”</span>
                  </>
                ) : null}
                :
              </span>
              <span className="min-w-0 truncate text-fg-muted">{excerpt(answering.text, 140)}</span>
            </button>
            <button
              type="button"
              onClick={() => {
                onTargetChange?.({ kind: "new" });
                area.current?.focus();
              }}
              aria-label="Don’t answer: send as a new request"
              title="Don’t answer: send as a new request (Esc)"
              className="inline-flex h-6 w-6 shrink-0 items-center justify-center rounded text-fg-muted hover:bg-hover hover:text-fg"
            >
              <CloseIcon size={14} />
            </button>
          </div>
        )}
        {target.kind === "new" && meant && (
          <div role="status" aria-label="Sent as a new request" className="flex min-w-0 items-center gap-1.5 rounded-t-xl border-b border-line py-1 pl-3 pr-1.5 text-xs text-fg-muted">
            <span className="min-w-0 flex-1 truncate">
              {asAnswer.isError ? `Couldn’t make it the answer: ${asAnswer.error.message}` : `Sent as a new request. Meant as your answer to ${nameOf(meant.question.from)}?`}
            </span>
            <button
              type="button"
              disabled={asAnswer.isPending}
              onClick={() => asAnswer.mutate(meant)}
              className="shrink-0 rounded px-1.5 py-0.5 font-semibold text-accent hover:bg-hover disabled:opacity-60"
            >
              Make it the answer
            </button>
            <button
              type="button"
              onClick={() => setMeant(null)}
              aria-label="Keep it as a new request"
              title="Keep it as a new request"
              className="inline-flex h-6 w-6 shrink-0 items-center justify-center rounded text-fg-muted hover:bg-hover hover:text-fg"
            >
              <CloseIcon size={14} />
            </button>
          </div>
        )}
        {target.kind === "new" && newest && !meant && (
          <div
            role="group"
            aria-label="A question is waiting"
            className="flex min-w-0 items-center gap-1.5 rounded-t-xl border-b border-line py-1 pl-3 pr-1.5 text-xs text-fg-muted"
          >
            <span className="min-w-0 flex-1 truncate">
              {nameOf(newest.from)} is waiting for an answer{newest.runTitle ? ` in “${excerpt(newest.runTitle, 48)}”` : ""}. This message
              starts a new request.
            </span>
            <button
              type="button"
              onClick={() => {
                onTargetChange?.({ kind: "answer", question: newest });
                area.current?.focus();
              }}
              className="shrink-0 rounded px-1.5 py-0.5 font-semibold text-accent hover:bg-hover"
            >
              Answer {nameOf(newest.from)}
            </button>
          </div>
        )}
        {followUp && (
          <div
            role="group"
            aria-label={`Follow-up for ${nameOf(followUp)}`}
            className="flex min-w-0 items-center gap-1.5 rounded-t-xl border-b border-line py-1 pl-3 pr-1.5 text-xs text-fg-muted"
          >
            <CornerDownRightIcon size={13} className="shrink-0 text-accent" />
            <span className="min-w-0 truncate">
              Follow-up for <span className="font-semibold text-fg">{nameOf(followUp)}</span>: it carries on with this conversation
            </span>
          </div>
        )}
        {target.kind === "thread" && (
          <div className="flex min-w-0 items-center gap-1.5 rounded-t-xl border-b border-line py-1 pl-3 pr-1.5 text-xs text-fg-muted">
            <MessageIcon size={12} className="shrink-0" />
            <span className="min-w-0 truncate">{target.label}</span>
          </div>
        )}
        {mention.list}
        <div className="flex items-end gap-2 px-3 py-2">
          <textarea
            {...mention.inputProps}
            ref={area}
            id={fieldId}
            rows={1}
            value={text}
            readOnly={send.isPending}
            aria-busy={send.isPending}
            aria-label={fieldLabel}
            aria-invalid={Boolean(error)}
            aria-describedby={error ? `${threadId}-send-error` : undefined}
            placeholder={placeholder}
            onChange={(e) => {
              setText(e.target.value);
              mention.track(e.target);
              if (send.isError) send.reset();
            }}
            onKeyDown={(e) => {
              if (mention.onKeyDown(e)) return;
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                submit();
              } else if (e.key === "Escape" && answering) {
                e.preventDefault();
                onTargetChange?.({ kind: "new" });
              }
            }}
            className="scroll-slim max-h-60 min-h-[24px] flex-1 resize-none bg-transparent py-[3px] text-base text-fg sm:text-msg placeholder:text-fg-subtle focus:outline-none read-only:opacity-70"
          />
          <button
            type="submit"
            aria-label={answering ? `Send answer to ${nameOf(answering.from)}` : followUp ? `Send follow-up to ${nameOf(followUp)}` : target.kind === "thread" ? "Send reply" : "Send message"}
            disabled={!text.trim() || send.isPending}
            className="inline-flex h-8 w-8 shrink-0 items-center justify-center rounded-lg bg-accent text-accent-fg transition hover:brightness-110 disabled:bg-fg-muted/15 disabled:text-fg-subtle"
          >
            {send.isPending ? (
              <span className="h-3.5 w-3.5 animate-spin rounded-full border-2 border-current border-t-transparent" aria-hidden="true" />
            ) : (
              <SendIcon size={15} />
            )}
          </button>
        </div>
      </div>
      <div className="mt-1 flex min-h-4 items-center justify-between gap-3 px-1 text-[11px] text-fg-subtle">
        {error ? (
          <p id={`${threadId}-send-error`} role="alert" className="font-medium text-danger">
            Couldn’t send: {error.message}. Your message is kept — press Enter to try again.
          </p>
        ) : mention.open ? (
          <p className="max-sm:hidden">
            <kbd className="font-sans font-semibold">↑</kbd> <kbd className="font-sans font-semibold">↓</kbd> to choose ·{" "}
            <kbd className="font-sans font-semibold">Enter</kbd> or <kbd className="font-sans font-semibold">Tab</kbd> to insert ·{" "}
            <kbd className="font-sans font-semibold">Esc</kbd> to close
          </p>
        ) : routedTo ? (
          <p className="flex min-w-0 items-center gap-1 font-medium text-accent" aria-live="polite">
            <RouteIcon size={11} className="shrink-0" />
            <span className="truncate">{routedTo}</span>
          </p>
        ) : (
          <p className="max-sm:hidden">
            <kbd className="font-sans font-semibold">Enter</kbd> to send · <kbd className="font-sans font-semibold">Shift + Enter</kbd> for a new line
            {answering ? (
              <>
                {" "}
                · <kbd className="font-sans font-semibold">Esc</kbd> to send as a new request
              </>
            ) : target.kind === "thread" || followUp ? null : (
              <>
                {" "}
                · <kbd className="font-sans font-semibold">@</kbd> to mention an agent, a person or a capability
              </>
            )}
          </p>
        )}
      </div>
    </form>
  );
}
