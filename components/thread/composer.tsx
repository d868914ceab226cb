"use client";
/**
 * `Composer`: writes the person's chat.message. Enter sends, Shift+Enter adds a line; while
 * sending the field is read-only and the button disabled; if sending fails the text stays and
 * the error is shown (Enter tries again). The draft is kept per channel and per thread
 * (localStorage), so switching channels loses nothing.
 *
 * What a message does is always said before it is sent, never guessed (components/thread/
 * composer-mode.ts; docs/channels.md "Who answers"): the line under the box reads "Starts a run
 * with Project Manager", "Continues the run: Project Manager answers", "Answers Project
 * Manager’s question" or "Just chat: no agent answers", and Esc switches a message that would
 * ask an agent to plain chat and back (the line's button does the same).
 * - `new`: a new message in the channel: a run when it addresses an agent (or the channel's
 *   entry agent answers every message), else plain chat.
 * - `answer`: the answer to one question of one run, "Answering pm-1 in “Analyze sales”: …"
 *   (a question's Answer button picks it; × or Escape goes back to a new message). Sent from the
 *   channel's own composer, it shows in the channel too.
 * - `follow_up`: in a run's thread, the agent that spoke last carries on.
 * - `thread`: a reply in the thread of a person's message.
 * A reply (answer, follow-up, thread reply) stays in its thread; "Also send to #channel" shows
 * it in the channel too, as in Slack.
 *
 * ↑ in an empty box edits your last message (`onEditLast`, as in Slack).
 *
 * Mentions: typing `@` opens a completion list of agents and capabilities
 * (mention-list.tsx; the textarea is a WAI-ARIA combobox); while it is open, Enter and Tab
 * insert the active option instead of sending, and Escape closes it. Only the text is sent.
 */
import { useNameOf } from "@/components/events/use-sender-name";
import { useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type Ref } from "react";
import { excerpt } from "@/lib/fold/questions";
import type { Participant } from "@/lib/protocol";
import { isSpecialMention, mentionIds, parseMentions } from "@/lib/mentions";
import { CloseIcon, CornerDownRightIcon, MessageIcon, RouteIcon, SendIcon } from "@/components/ui/icons";
import { useSendMessage } from "@/components/live/use-send-message";
import { useAgents } from "@/components/live/use-agents";
import { readLocal, writeLocal } from "@/components/prefs/local-store";
import { composerMode, modeLine, toggleLabel, type ChannelAnswers } from "./composer-mode";
import { useMentionCompletion } from "./mention-list";
import { useChannelPeople } from "@/components/live/people";
import { sendTyping } from "@/components/live/streams";

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
  channel = null,
  chatParentId = null,
  answersInChannel = false,
  alsoSendTo = null,
  onShowQuestion,
  onSent,
  label,
  fieldId,
  onEditLast,
  typingRunId,
}: {
  ref?: Ref<ComposerHandle>;
  threadId: string;
  channelName: string;
  /** Where the draft is kept: the channel's id, or the thread's. */
  draft: string;
  target?: ComposerTarget;
  /** Switch between a new message and an answer (× / Escape / "Answer"). */
  onTargetChange?: (target: ComposerTarget) => void;
  /** Who answers a new message here (null: no agent of the workspace takes messages here). */
  channel?: ChannelAnswers | null;
  /** In a run's thread: the message plain chat replies to (the request that started the run); null: no plain chat. */
  chatParentId?: string | null;
  /** The channel's own composer: an answer sent from it shows in the channel too. */
  answersInChannel?: boolean;
  /** In a thread: the channel's name for "Also send to #channel". */
  alsoSendTo?: string | null;
  /** Scrolls to a question (the chip's text is a link to it). */
  onShowQuestion?: (id: string) => void;
  onSent?: () => void;
  /** The field's accessible name; "Message #channel" by default. */
  label?: string;
  /** The field's id (the channel's own composer is the skip link's target, components/workspace/skip-links.tsx). */
  fieldId?: string;
  /** ↑ in the empty box: start editing the person's last message; false when there is none (the key does nothing then). */
  onEditLast?: () => boolean;
  /** In a run's thread: its run, so "… is typing" shows there rather than in the channel. */
  typingRunId?: string;
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
  // Plain chat instead of asking an agent (Esc), for the next message; "Also send to #channel" for a reply.
  const [plain, setPlain] = useState(false);
  const [alsoSend, setAlsoSend] = useState(false);
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
  // Plain chat is offered where it makes sense: a new message, or a reply in a run's thread that has a request to reply to.
  const mayChat = target.kind === "new" || ((target.kind === "follow_up" || target.kind === "answer") && chatParentId !== null);
  const chatting = plain && mayChat;
  const mode = composerMode({
    target:
      target.kind === "answer"
        ? { kind: "answer", agent: target.question.from.agent_id }
        : target.kind === "follow_up"
          ? { kind: "follow_up", agent: target.agent.agent_id }
          : target.kind === "thread"
            ? { kind: "thread" }
            : { kind: "new" },
    plain: chatting,
    mentions: mentionIds(mentioned),
    channel,
    isAgent: (id) => mentioned.agents.includes(id),
  });
  const personName = (id: string) => people?.find((p) => p.agent_id === id)?.name ?? "a teammate";
  const nameOfId = (id: string) =>
    id === "here" ? `everyone online in ${channelName}` : isSpecialMention(id) ? `everyone in ${channelName}` : id.startsWith("user:") ? personName(id) : nameOf({ agent_id: id });
  const asked = target.kind === "answer" ? target.question.from.agent_id : target.kind === "follow_up" ? target.agent.agent_id : channel?.answers === "every_message" ? channel.entry_agent : null;
  const toggle = mayChat && !(target.kind === "answer" && !chatting) ? toggleLabel(mode, chatting, asked, nameOfId) : null;
  const isReply = target.kind !== "new";
  const toggleMode = () => {
    setPlain(!chatting);
    area.current?.focus();
  };

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
    const replyTo =
      target.kind === "new"
        ? null
        : chatting
          ? chatParentId
          : target.kind === "answer"
            ? target.question.id
            : target.parentId;
    send.mutate(
      {
        text: body,
        replyTo,
        chatOnly: target.kind === "new" && chatting,
        alsoInChannel: isReply && ((answersInChannel && target.kind === "answer" && !chatting) || (alsoSendTo !== null && alsoSend)),
      },
      {
        onSuccess: () => {
          setText("");
          setPlain(false);
          setAlsoSend(false);
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
  const placeholder = chatting && isReply
    ? "Reply in thread…"
    : answering
      ? `Answer ${nameOf(answering.from)}…`
      : followUp
        ? `Ask ${nameOf(followUp)} a follow-up…`
        : target.kind === "thread"
          ? "Reply in thread…"
          : `Message ${channelName}`;
  const line = modeLine(mode, nameOfId);
  return (
    <form
      className="@container px-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-1 sm:px-5 sm:pb-4"
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
              aria-label="Don’t answer: write something else"
              title="Don’t answer: write something else (Esc)"
              className="inline-flex h-6 w-6 shrink-0 items-center justify-center rounded text-fg-muted hover:bg-hover hover:text-fg"
            >
              <CloseIcon size={14} />
            </button>
          </div>
        )}
        {followUp && !chatting && (
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
              if (e.target.value.trim()) sendTyping(threadId, typingRunId);
              mention.track(e.target);
              if (send.isError) send.reset();
            }}
            onKeyDown={(e) => {
              if (mention.onKeyDown(e)) return;
              if (e.key === "ArrowUp" && onEditLast && text === "" && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
                if (onEditLast()) e.preventDefault();
              } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                submit();
              } else if (e.key === "Escape" && toggle) {
                e.preventDefault();
                toggleMode();
              } else if (e.key === "Escape" && answering) {
                e.preventDefault();
                onTargetChange?.({ kind: "new" });
              }
            }}
            className="scroll-slim max-h-60 min-h-[24px] flex-1 resize-none bg-transparent py-[3px] text-base text-fg sm:text-msg placeholder:text-fg-subtle focus:outline-none read-only:opacity-70"
          />
          <button
            type="submit"
            aria-label={chatting && isReply ? "Send reply" : answering ? `Send answer to ${nameOf(answering.from)}` : followUp ? `Send follow-up to ${nameOf(followUp)}` : target.kind === "thread" ? "Send reply" : "Send message"}
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
        ) : (
          <>
            <p className="flex min-w-0 items-center gap-1.5" aria-live="polite">
              {line && (
                <span data-testid="composer-mode" className={`flex min-w-0 items-center gap-1 font-medium ${mode.kind === "chat" ? "text-fg-muted" : "text-accent"}`}>
                  {mode.kind === "chat" ? <MessageIcon size={11} className="shrink-0" /> : <RouteIcon size={11} className="shrink-0" />}
                  <span className="truncate">{line}</span>
                </span>
              )}
              {toggle && (
                <button
                  type="button"
                  onClick={toggleMode}
                  className="shrink-0 rounded px-1 font-semibold text-accent hover:bg-hover"
                  title={`${toggle} (Esc)`}
                >
                  {toggle} <kbd className="font-sans text-fg-subtle">Esc</kbd>
                </button>
              )}
            </p>
            {alsoSendTo !== null && isReply ? (
              <label className="flex shrink-0 items-center gap-1.5 text-fg-muted">
                <input type="checkbox" checked={alsoSend} onChange={(e) => setAlsoSend(e.target.checked)} className="h-3.5 w-3.5 accent-[var(--color-accent)]" />
                Also send to {alsoSendTo}
              </label>
            ) : (
              <p className="hidden shrink-0 @2xl:block">
                <kbd className="font-sans font-semibold">Enter</kbd> to send · <kbd className="font-sans font-semibold">Shift + Enter</kbd> new line
                {target.kind === "new" && (
                  <>
                    {" "}
                    · <kbd className="font-sans font-semibold">@</kbd> to mention
                  </>
                )}
              </p>
            )}
          </>
        )}
      </div>
    </form>
  );
}
