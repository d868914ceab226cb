/**
 * Conversation renderers (Clutch Protocol §2.2; issue 2 "chat.message", "chat.system").
 */
import type { PayloadOf, StoredEvent } from "@/lib/protocol";
import { Markdown } from "@/components/markdown/markdown";
import { AlertIcon, InfoIcon, XCircleIcon } from "@/components/ui/icons";
import { LineRow, SenderRow } from "./event-shell";
import { displayName } from "./participant";

/** A person's or an agent's message: avatar, name, time and the text as sanitized markdown. */
export function ChatMessage({ event, continued }: { event: StoredEvent; continued: boolean }) {
  const p = event.payload as PayloadOf<"chat.message">;
  return (
    <SenderRow event={event} continued={continued} label={`Message from ${displayName(event.from)}`}>
      <div className="text-msg text-fg">
        <Markdown text={p.text} />
      </div>
      {p.mentions && p.mentions.length > 0 && (
        <div className="mt-0.5 flex flex-wrap gap-1 text-[11px] text-fg-muted">
          {p.mentions.map((m) => (
            <span key={m} className="rounded bg-accent/10 px-1 font-medium text-accent">
              @{m}
            </span>
          ))}
        </div>
      )}
      {p.expects_reply && <div className="mt-0.5 text-[11px] font-medium text-warning">Waiting for a reply</div>}
    </SenderRow>
  );
}

const LEVEL = {
  info: { icon: <InfoIcon size={14} />, cls: "text-fg-muted", iconCls: "text-info" },
  warning: { icon: <AlertIcon size={14} />, cls: "text-warning", iconCls: "text-warning" },
  error: { icon: <XCircleIcon size={14} />, cls: "text-danger", iconCls: "text-danger" },
} as const;

/** A system notice: one subtle line coloured by level (info, warning, error). */
export function ChatSystem({ event }: { event: StoredEvent }) {
  const p = event.payload as PayloadOf<"chat.system">;
  const level = LEVEL[p.level ?? "info"];
  return (
    <LineRow event={event} icon={<span className={level.iconCls}>{level.icon}</span>} label={`System ${p.level ?? "info"}`}>
      <span className={`min-w-0 whitespace-pre-wrap break-words ${level.cls}`}>{p.text}</span>
    </LineRow>
  );
}
