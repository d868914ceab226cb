"use client";
/**
 * `Composer`: writes the person's chat.message. Enter sends, Shift+Enter
 * adds a line; while sending the field is read-only and the button disabled; if sending fails
 * the text stays and the error is shown (Enter tries again).
 *
 * Answers: while an agent waits for the person's answer, the composer says what the
 * server will do with the message — "Replying to pm-1: <question>" — and sends it with
 * `reply_to` set to that question. By default that is the newest open question to people; a
 * question's Reply button picks it explicitly; × (or Escape) makes the message a new request
 * instead (`reply_to: null`), which "Reply instead" undoes.
 *
 * Mentions: typing `@` opens a completion list of agents and capabilities
 * (mention-list.tsx; the textarea is a WAI-ARIA combobox); while it is open, Enter and Tab
 * insert the active option instead of sending, and Escape closes it. Under the box the person
 * sees what a mention will do, read with lib/mentions.ts as the server reads it: "New request
 * for analyst-1" or "New request routed by skill:data-analysis". Only the text is sent.
 */
import { useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type Ref } from "react";
import { excerpt, type QuestionView } from "@/lib/fold/questions";
import { parseMentions } from "@/lib/mentions";
import { displayName } from "@/components/events/participant";
import { CloseIcon, CornerDownRightIcon, RouteIcon, SendIcon } from "@/components/ui/icons";
import { useSendMessage } from "@/components/live/use-send-message";
import { useAgents } from "@/components/live/use-agents";
import { handleOf } from "./mention-complete";
import { useMentionCompletion } from "./mention-list";

/**
 * What the next message answers: `auto` — the newest open question to people, if any;
 * `question` — that question (while it is open); `new` — nothing, it is a new request (chosen
 * while `against` was the newest open question; a newer question brings the reply chip back).
 */
export type ReplyMode = { kind: "auto" } | { kind: "question"; id: string } | { kind: "new"; against: string | null };

/** What the channel can ask of the composer. */
export interface ComposerHandle {
  focus(): void;
}

/** The question the next message answers under `mode`, given the open questions (oldest first). */
export function replyTarget(mode: ReplyMode, open: readonly QuestionView[]): QuestionView | null {
  const newest = open.length ? open[open.length - 1] : null;
  if (mode.kind === "new" && (mode.against === null || mode.against === newest?.id)) return null;
  if (mode.kind === "question") {
    const q = open.find((x) => x.id === mode.id);
    if (q) return q;
  }
  return newest;
}

/** The message box of a channel; `onSent` runs after a successful send. */
export function Composer({
  ref,
  threadId,
  channelName,
  onSent,
  openQuestions = [],
  reply = { kind: "auto" },
  onReplyChange,
  onShowQuestion,
}: {
  ref?: Ref<ComposerHandle>;
  threadId: string;
  channelName: string;
  onSent?: () => void;
  /** Open questions to people in this channel, oldest first (lib/fold/questions.ts). */
  openQuestions?: readonly QuestionView[];
  reply?: ReplyMode;
  onReplyChange?: (mode: ReplyMode) => void;
  /** Scrolls to a question (the chip's text is a link to it). */
  onShowQuestion?: (id: string) => void;
}) {
  const [text, setText] = useState("");
  const send = useSendMessage(threadId);
  const area = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(ref, () => ({ focus: () => area.current?.focus() }), []);
  const mention = useMentionCompletion({
    text,
    setText: (t) => {
      setText(t);
      if (send.isError) send.reset();
    },
    area,
  });
  const { data: agents } = useAgents();
  const mentioned = useMemo(() => {
    const known = new Set((agents ?? []).map((a) => a.agent_id));
    return parseMentions(text, (id) => known.has(id));
  }, [agents, text]);

  const target = replyTarget(reply, openQuestions);
  const asNew = !target && reply.kind === "new" && openQuestions.length > 0;
  const newest = openQuestions.length ? openQuestions[openQuestions.length - 1] : null;

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
      {
        text: body,
        // Say explicitly what the chip shows; with no open question let the server decide.
        replyTo: target ? target.id : asNew ? null : undefined,
      },
      {
        onSuccess: () => {
          setText("");
          onReplyChange?.({ kind: "auto" });
          onSent?.();
          area.current?.focus();
        },
      },
    );
  };

  const error = send.isError ? send.error : null;
  const placeholder = target ? `Reply to ${displayName(target.from)}…` : `Message #${channelName}`;
  // What a mention does to a new request (the server reads the text the same way).
  const routedTo =
    target || !text.trim()
      ? null
      : mentioned.agents.length
        ? `New request for ${mentioned.agents.map(handleOf).join(", ")}`
        : mentioned.capabilities.length
          ? `New request routed by ${mentioned.capabilities.join(" + ")}`
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
        className={`relative rounded-xl border bg-surface shadow-sm transition-colors focus-within:border-fg-subtle ${
          error ? "border-danger/60" : target ? "border-warning/50" : "border-line-strong"
        }`}
      >
        {target && (
          <div
            role="group"
            aria-label={`Replying to ${displayName(target.from)}`}
            className="flex min-w-0 items-center gap-1.5 rounded-t-xl border-b border-warning/25 bg-warning/[0.08] py-1 pl-3 pr-1 text-xs"
          >
            <CornerDownRightIcon size={13} className="shrink-0 text-warning" />
            <button
              type="button"
              onClick={() => onShowQuestion?.(target.id)}
              className="flex min-w-0 flex-1 items-baseline gap-1 text-left hover:underline"
              title={target.text}
            >
              <span className="shrink-0 text-fg-muted">
                Replying to <span className="font-semibold text-fg">{displayName(target.from)}</span>:
              </span>
              <span className="min-w-0 truncate text-fg-muted">{excerpt(target.text, 140)}</span>
            </button>
            <button
              type="button"
              onClick={() => {
                onReplyChange?.({ kind: "new", against: newest?.id ?? null });
                area.current?.focus();
              }}
              aria-label="Don’t reply: send as a new request"
              title="Don’t reply: send as a new request (Esc)"
              className="inline-flex h-6 w-6 shrink-0 items-center justify-center rounded text-fg-muted hover:bg-hover hover:text-fg"
            >
              <CloseIcon size={14} />
            </button>
          </div>
        )}
        {asNew && newest && (
          <div
            role="group"
            aria-label="Sending as a new request"
            className="flex min-w-0 items-center gap-1.5 rounded-t-xl border-b border-line py-1 pl-3 pr-1.5 text-xs text-fg-muted"
          >
            <span className="min-w-0 flex-1 truncate">
              New request — not an answer to {displayName(newest.from)}’s question
            </span>
            <button
              type="button"
              onClick={() => {
                onReplyChange?.({ kind: "question", id: newest.id });
                area.current?.focus();
              }}
              className="shrink-0 rounded px-1.5 py-0.5 font-medium text-accent hover:bg-hover"
            >
              Reply instead
            </button>
          </div>
        )}
        {mention.list}
        <div className="flex items-end gap-2 px-3 py-2">
          <textarea
            {...mention.inputProps}
            ref={area}
            rows={1}
            value={text}
            readOnly={send.isPending}
            aria-busy={send.isPending}
            aria-label={`Message #${channelName}`}
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
              } else if (e.key === "Escape" && target) {
                e.preventDefault();
                onReplyChange?.({ kind: "new", against: newest?.id ?? null });
              }
            }}
            className="scroll-slim max-h-60 min-h-[24px] flex-1 resize-none bg-transparent py-[3px] text-base text-fg sm:text-msg placeholder:text-fg-subtle focus:outline-none read-only:opacity-70"
          />
          <button
            type="submit"
            aria-label={target ? `Send reply to ${displayName(target.from)}` : "Send message"}
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
            {target ? (
              <>
                {" "}
                · <kbd className="font-sans font-semibold">Esc</kbd> to send as a new request
              </>
            ) : (
              <>
                {" "}
                · <kbd className="font-sans font-semibold">@</kbd> to mention an agent or a capability
              </>
            )}
          </p>
        )}
      </div>
    </form>
  );
}
