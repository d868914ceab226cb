"use client";
/**
 * `MessageButton`: "Message Project Manager" on an agent's card, or on a person wherever they
 * are shown (channel members, Admin → People, a person's card in a message): opens the direct
 * message with them (`POST /api/dms`, made the first time) and goes there (docs/channels.md
 * "Direct messages"). A refusal (a disabled agent) is said next to the button. `compact`: a
 * small secondary button reading "Message", named "Message <name>" for screen readers, for
 * rows of a list.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import type { ThreadSummary } from "@/lib/api/types";
import { apiRequest } from "@/components/live/api";
import { queryKeys } from "@/components/live/query-keys";
import { MessageIcon } from "@/components/ui/icons";

export function MessageButton({
  with: other,
  name,
  onOpened,
  className = "",
  compact = false,
}: {
  with: string;
  name: string;
  onOpened?: () => void;
  className?: string;
  compact?: boolean;
}) {
  const router = useRouter();
  const qc = useQueryClient();
  const open = useMutation({
    mutationFn: async () => (await apiRequest<{ thread: ThreadSummary }>("/api/dms", { method: "POST", body: JSON.stringify({ with: other }) })).thread,
    onSuccess: async (thread) => {
      await qc.invalidateQueries({ queryKey: queryKeys.threads });
      onOpened?.();
      router.push(`/c/${encodeURIComponent(thread.id)}`);
    },
  });
  return (
    <span className={`inline-flex flex-wrap items-center gap-2 ${className}`}>
      <button
        type="button"
        disabled={open.isPending}
        onClick={() => open.mutate()}
        aria-label={compact ? `Message ${name}` : undefined}
        className={
          compact
            ? "inline-flex h-7 items-center gap-1 rounded-md border border-line-strong bg-surface px-2 text-xs font-semibold text-fg hover:bg-hover disabled:opacity-60"
            : "inline-flex h-8 items-center gap-1.5 rounded-md bg-accent px-3 text-[13px] font-semibold text-accent-fg hover:brightness-110 disabled:opacity-60"
        }
      >
        <MessageIcon size={compact ? 12 : 14} aria-hidden="true" />
        {compact ? "Message" : `Message ${name}`}
      </button>
      {open.isError && (
        <span role="alert" className="text-xs text-danger">
          {open.error.message}
        </span>
      )}
    </span>
  );
}
