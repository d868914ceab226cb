"use client";
/**
 * `Composer`: writes the person's chat.message (issue 2 "composer"). Enter sends, Shift+Enter
 * adds a line; while sending the field is read-only and the button disabled; if sending fails
 * the text stays and the error is shown (Enter tries again).
 */
import { useLayoutEffect, useRef, useState } from "react";
import { SendIcon } from "@/components/ui/icons";
import { useDisplayName } from "@/components/prefs/display-name";
import { useSendMessage } from "@/components/live/use-send-message";

/** The message box of a channel (issue 2 "composer"); `onSent` runs after a successful send. */
export function Composer({ threadId, channelName, onSent }: { threadId: string; channelName: string; onSent?: () => void }) {
  const [text, setText] = useState("");
  const [displayName] = useDisplayName();
  const send = useSendMessage(threadId);
  const area = useRef<HTMLTextAreaElement>(null);

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
      { text: body, displayName: displayName || undefined },
      {
        onSuccess: () => {
          setText("");
          onSent?.();
          area.current?.focus();
        },
      },
    );
  };

  const error = send.isError ? send.error : null;
  return (
    <form
      className="px-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-1 sm:px-5 sm:pb-4"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div
        className={`flex items-end gap-2 rounded-xl border bg-surface px-3 py-2 shadow-sm transition-colors focus-within:border-fg-subtle ${
          error ? "border-danger/60" : "border-line-strong"
        }`}
      >
        <textarea
          ref={area}
          rows={1}
          value={text}
          readOnly={send.isPending}
          aria-busy={send.isPending}
          aria-label={`Message #${channelName}`}
          aria-invalid={Boolean(error)}
          aria-describedby={error ? `${threadId}-send-error` : undefined}
          placeholder={`Message #${channelName}`}
          onChange={(e) => {
            setText(e.target.value);
            if (send.isError) send.reset();
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
          className="scroll-slim max-h-60 min-h-[24px] flex-1 resize-none bg-transparent py-[3px] text-base text-fg sm:text-msg placeholder:text-fg-subtle focus:outline-none read-only:opacity-70"
        />
        <button
          type="submit"
          aria-label="Send message"
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
      <div className="mt-1 flex min-h-4 items-center justify-between gap-3 px-1 text-[11px] text-fg-subtle">
        {error ? (
          <p id={`${threadId}-send-error`} role="alert" className="font-medium text-danger">
            Couldn’t send: {error.message}. Your message is kept — press Enter to try again.
          </p>
        ) : (
          <p className="max-sm:hidden">
            <kbd className="font-sans font-semibold">Enter</kbd> to send · <kbd className="font-sans font-semibold">Shift + Enter</kbd> for a new line · Markdown supported
          </p>
        )}
        {!displayName && !error && <p className="ml-auto shrink-0">Posting as a guest</p>}
      </div>
    </form>
  );
}
