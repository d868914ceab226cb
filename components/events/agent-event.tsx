/**
 * Agent lifecycle renderers (Clutch Protocol §2.4): agent.register, agent.update and
 * agent.heartbeat as compact one-liners.
 */
import type { PayloadOf, StoredEventOf } from "@/lib/protocol";
import { Chip } from "@/components/ui/chip";
import { BotIcon, HeartPulseIcon, RefreshIcon } from "@/components/ui/icons";
import { LineRow } from "./event-shell";

function Capabilities({ card }: { card: PayloadOf<"agent.register">["card"] }) {
  const caps = card.capabilities;
  if (!caps.length) return <span className="text-fg-subtle">no capabilities</span>;
  return (
    <span className="inline-flex flex-wrap gap-1">
      {caps.slice(0, 6).map((c, i) => (
        <Chip key={`${c.id}-${i}`} title={c.tags?.length ? `tags: ${c.tags.join(", ")}` : undefined}>
          {c.id}
          {c.version ? ` ${c.version}` : ""}
        </Chip>
      ))}
      {caps.length > 6 && <span className="text-fg-subtle">+{caps.length - 6}</span>}
    </span>
  );
}

/** "agent:ken (Ken) came online · skill:research 1.0 …" */
export function AgentRegister({ event }: { event: StoredEventOf<"agent.register"> }) {
  const { card } = event.payload;
  return (
    <LineRow event={event} icon={<BotIcon size={14} className="text-success" />} label={`Agent registered: ${card.agent_id}`}>
      <span className="font-medium text-fg">{card.display.name}</span>{" "}
      <span className="font-mono text-[11px] text-fg-subtle">{card.agent_id}</span>{" "}
      <span className="text-fg-muted">came online</span>{" "}
      <Capabilities card={card} />
    </LineRow>
  );
}

/** "agent:ken updated · capabilities …" */
export function AgentUpdate({ event }: { event: StoredEventOf<"agent.update"> }) {
  const { card } = event.payload;
  return (
    <LineRow event={event} icon={<RefreshIcon size={14} className="text-info" />} label={`Agent updated: ${card.agent_id}`}>
      <span className="font-medium text-fg">{card.display.name}</span>{" "}
      <span className="font-mono text-[11px] text-fg-subtle">{card.agent_id}</span>{" "}
      <span className="text-fg-muted">updated its card</span>{" "}
      <Capabilities card={card} />
    </LineRow>
  );
}

const STATUS_CLS = { online: "text-success", busy: "text-warning", draining: "text-fg-muted" } as const;

/** "♥ agent:ken · busy · 2 active tasks" */
export function AgentHeartbeat({ event }: { event: StoredEventOf<"agent.heartbeat"> }) {
  const p = event.payload;
  return (
    <LineRow event={event} icon={<HeartPulseIcon size={14} className="text-danger/70" />} label={`Heartbeat: ${p.agent_id}`}>
      <span className="font-mono text-[12px] text-fg-muted">{p.agent_id}</span>{" "}
      <span className="text-fg-subtle">heartbeat</span>{" "}
      {p.status && <span className={`font-medium ${STATUS_CLS[p.status]}`}>{p.status}</span>}
      {typeof p.active_tasks === "number" && (
        <span className="text-fg-subtle">
          · {p.active_tasks} active task{p.active_tasks === 1 ? "" : "s"}
        </span>
      )}
    </LineRow>
  );
}
