"use client";
/**
 * `NewChannelDialog`: creates a channel (name, topic, public or private). The name is
 * normalised as typed, like Slack ("My Channel" → "my-channel"); a taken name or an invalid
 * one shows the server's error next to the field.
 */
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { ApiRequestError } from "@/components/live/api";
import { normaliseChannelName, useCreateThread } from "@/components/live/use-threads";
import { Button, inputClass } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** The "Create a channel" dialog. */
export function NewChannelDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Create a channel"
      description="Channels are where people and agents work on one topic."
      className="max-w-md"
    >
      {open && <NewChannelForm onClose={onClose} />}
    </Dialog>
  );
}

function NewChannelForm({ onClose }: { onClose: () => void }) {
  const router = useRouter();
  const create = useCreateThread();
  const [name, setName] = useState("");
  const [topic, setTopic] = useState("");
  const [priv, setPriv] = useState(false);
  const nameId = useId();
  const topicId = useId();
  const errId = useId();

  const finalName = name.replace(/^[-_]+|[-_]+$/g, "");
  const err = create.error;
  const message =
    err instanceof ApiRequestError && err.code === "name_taken"
      ? `#${finalName} already exists. Pick another name.`
      : err
        ? err.message
        : null;

  return (
    <form
      className="px-5 pb-5 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (!finalName || create.isPending) return;
        create.mutate(
          { name: finalName, topic: topic.trim() || undefined, visibility: priv ? "private" : "public" },
          {
            onSuccess: (thread) => {
              onClose();
              router.push(`/c/${encodeURIComponent(thread.id)}`);
            },
          },
        );
      }}
    >
      <label htmlFor={nameId} className="mb-1 block text-[13px] font-semibold">
        Name
      </label>
      <div className="relative">
        <span className="pointer-events-none absolute left-2.5 top-1/2 -translate-y-1/2 text-fg-subtle">#</span>
        <input
          id={nameId}
          autoFocus
          required
          maxLength={80}
          value={name}
          onChange={(e) => {
            setName(normaliseChannelName(e.target.value));
            if (create.isError) create.reset();
          }}
          placeholder="e.g. plan-budget"
          aria-invalid={Boolean(message)}
          aria-describedby={message ? errId : `${nameId}-hint`}
          autoComplete="off"
          spellCheck={false}
          className={`${inputClass} pl-6`}
        />
      </div>
      {message ? (
        <p id={errId} role="alert" className="mt-1 text-xs font-medium text-danger">
          {message}
        </p>
      ) : (
        <p id={`${nameId}-hint`} className="mt-1 text-xs text-fg-muted">
          Lowercase letters, numbers, hyphens and underscores; up to 80 characters.
        </p>
      )}

      <label htmlFor={topicId} className="mb-1 mt-4 block text-[13px] font-semibold">
        Topic <span className="font-normal text-fg-subtle">(optional)</span>
      </label>
      <input
        id={topicId}
        value={topic}
        maxLength={250}
        onChange={(e) => setTopic(e.target.value)}
        placeholder="What is this channel about?"
        className={inputClass}
      />

      <label className="mt-4 flex items-start gap-2 text-[13px]">
        <input type="checkbox" checked={priv} onChange={(e) => setPriv(e.target.checked)} className="mt-0.5" />
        <span>
          <span className="font-semibold">Make private</span>
          <span className="block text-xs text-fg-muted">Only the people and agents you add can see it, its runs and its approvals.</span>
        </span>
      </label>

      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={!finalName || create.isPending}>
          {create.isPending ? "Creating…" : "Create channel"}
        </Button>
      </div>
    </form>
  );
}
