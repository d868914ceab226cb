"use client";
/**
 * `InlineAnswer`: answer an agent's question where it is shown (the run card, the thread), in one
 * action: type, Enter to send (docs/channels.md "Threads"). The answer is a reply that names the
 * question (`POST /api/threads/:id/messages { text, reply_to }`), so it reaches the waiting task;
 * a failed send keeps the text and says why.
 */
import { useState } from "react";
import { useSendMessage } from "@/components/live/use-send-message";
import { SendIcon } from "@/components/ui/icons";

export function InlineAnswer({ threadId, questionId, asker, onSent }: { threadId: string; questionId: string; asker: string; onSent?: () => void }) {
  const [text, setText] = useState("");
  const send = useSendMessage(threadId);
  const submit = () => {
    const body = text.trim();
    if (!body || send.isPending) return;
    send.mutate({ text: body, replyTo: questionId }, { onSuccess: () => (setText(""), onSent?.()) });
  };
  const errorId = `answer-error-${questionId}`;
  return (
    <form
      className="mt-1.5 w-full"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div className="flex items-center gap-1.5 rounded-md border border-line-strong bg-surface px-2 focus-within:border-fg-muted">
        <input
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            if (send.isError) send.reset();
          }}
          readOnly={send.isPending}
          aria-label={`Answer ${asker}`}
          aria-invalid={send.isError}
          aria-describedby={send.isError ? errorId : undefined}
          placeholder={`Answer ${asker}… (Enter to send)`}
          className="h-8 min-w-0 flex-1 bg-transparent text-[13px] text-fg placeholder:text-fg-subtle focus:outline-none"
        />
        <button
          type="submit"
          aria-label={`Send answer to ${asker}`}
          disabled={!text.trim() || send.isPending}
          className="inline-flex h-6 w-6 shrink-0 items-center justify-center rounded bg-accent text-accent-fg hover:brightness-110 disabled:bg-fg-muted/15 disabled:text-fg-subtle"
        >
          <SendIcon size={12} />
        </button>
      </div>
      {send.isError && (
        <p id={errorId} role="alert" className="mt-1 text-[11px] font-medium text-danger">
          Couldn’t send: {send.error.message}. Your answer is kept.
        </p>
      )}
    </form>
  );
}
