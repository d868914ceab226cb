"use client";
/**
 * Small pieces of the agent directory (`/agents`): the status dot and word, the source
 * badge, the load meter (`active/max_concurrency` with a bar), capability chips, and a copy
 * button for commands and ids.
 */
import { useEffect, useState } from "react";
import type { AgentSummary } from "@/lib/api/types";
import type { Capability } from "@/lib/protocol/agent-card";
import { Chip } from "@/components/ui/chip";
import { CheckIcon } from "@/components/ui/icons";
import { CopyIcon } from "./icons";
import { STATUS_WORD } from "@/components/workspace/agent-status";
import { capabilityLabel } from "./model";

const DOT: Record<AgentSummary["status"], string> = {
  online: "bg-success",
  busy: "bg-warning",
  offline: "border-[1.5px] border-fg-subtle bg-transparent",
};

const WORD_TONE: Record<AgentSummary["status"], string> = {
  online: "text-success",
  busy: "text-warning",
  offline: "text-fg-muted",
};

/** A presence dot (online green, busy amber, offline hollow) with a live pulse while online. */
export function PresenceDot({ status, className = "" }: { status: AgentSummary["status"]; className?: string }) {
  return (
    <span aria-hidden="true" className={`relative inline-flex h-2 w-2 shrink-0 ${className}`}>
      {status === "online" && <span className="absolute inset-0 animate-ping rounded-full bg-success/50 [animation-duration:2.4s] motion-reduce:hidden" />}
      <span className={`relative inline-block h-2 w-2 rounded-full ${DOT[status]}`} />
    </span>
  );
}

/** The status as a dot and a word ("Online", "Busy", "Offline"), coloured. */
export function StatusWord({ status, className = "" }: { status: AgentSummary["status"]; className?: string }) {
  return (
    <span className={`inline-flex items-center gap-1.5 font-semibold ${WORD_TONE[status]} ${className}`} data-status={status}>
      <PresenceDot status={status} />
      {STATUS_WORD[status]}
    </span>
  );
}

/** Where an agent comes from: run by this workspace (a CAP manifest) or registered from outside. */
export function SourceBadge({ source }: { source: AgentSummary["source"] }) {
  const external = source === "external";
  return (
    <span
      title={external ? "Registered through POST /api/agents" : "Run by this workspace from a CAP manifest"}
      className={`inline-flex shrink-0 items-center rounded px-1.5 py-px text-[10.5px] font-semibold uppercase leading-4 tracking-wide ring-1 ring-inset ${
        external ? "bg-info/10 text-info ring-info/25" : "bg-agent/10 text-agent ring-agent/25"
      }`}
    >
      {external ? "External" : "Workspace"}
    </span>
  );
}

/**
 * Load against `max_concurrency`: "1/2" and a small bar, amber when full. A `meter` for assistive
 * tech, "1 of 2 parallel tasks".
 */
export function LoadMeter({ active, max, wide = false }: { active: number; max: number; wide?: boolean }) {
  const cap = Math.max(1, max);
  const share = Math.min(1, active / cap);
  const full = active >= cap;
  return (
    <span
      role="meter"
      aria-label="Load"
      aria-valuemin={0}
      aria-valuemax={cap}
      aria-valuenow={Math.min(active, cap)}
      aria-valuetext={`${active} of ${cap} parallel task${cap === 1 ? "" : "s"}`}
      title={`${active} of ${cap} parallel task${cap === 1 ? "" : "s"} in progress`}
      className="inline-flex items-center gap-1.5"
    >
      <span className={`relative inline-block h-1.5 overflow-hidden rounded-full bg-fg-muted/15 ${wide ? "w-full min-w-16 flex-1" : "w-10"}`}>
        <span
          className={`absolute inset-y-0 left-0 rounded-full transition-[width] duration-300 ${full ? "bg-warning" : "bg-success"}`}
          style={{ width: `${share * 100}%` }}
        />
      </span>
      <span className="font-mono text-[11.5px] tabular-nums text-fg-muted">
        {active}/{cap}
      </span>
    </span>
  );
}

/**
 * Capabilities as `id@version` chips; at most `limit`, then "+N". `plain` drops the list
 * semantics (inside a link, where a list would be noise).
 */
export function CapabilityChips({ capabilities, limit = Infinity, plain = false }: { capabilities: readonly Capability[]; limit?: number; plain?: boolean }) {
  if (capabilities.length === 0) return <span className="text-[12px] text-fg-subtle">No capabilities listed</span>;
  const shown = capabilities.slice(0, limit);
  const rest = capabilities.length - shown.length;
  const List = plain ? "div" : "ul";
  const Item = plain ? "span" : "li";
  return (
    <List className="flex min-w-0 flex-wrap gap-1" aria-label={plain ? undefined : "Capabilities"}>
      {shown.map((c, i) => (
        <Item key={`${c.id}-${i}`} className="min-w-0 max-w-full">
          <Chip title={c.tags?.length ? `tags: ${c.tags.join(", ")}` : undefined} className={c.id.startsWith("tool:") ? "" : "text-fg"}>
            {capabilityLabel(c)}
          </Chip>
        </Item>
      ))}
      {rest > 0 && (
        <Item>
          <Chip className="border-transparent bg-transparent" title={capabilities.slice(limit).map(capabilityLabel).join(", ")}>
            +{rest}
          </Chip>
        </Item>
      )}
    </List>
  );
}

/** A button that copies `text`; says "Copied" for a moment. `label` names it ("Copy command"). */
export function CopyButton({ text, label, className = "" }: { text: string; label: string; className?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 1600);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      aria-label={state === "copied" ? `${label}: copied` : state === "failed" ? `${label}: copy failed` : label}
      onClick={() => {
        if (!navigator.clipboard) {
          setState("failed");
          return;
        }
        navigator.clipboard.writeText(text).then(
          () => setState("copied"),
          () => setState("failed"),
        );
      }}
      className={`inline-flex h-7 shrink-0 items-center gap-1 rounded-md border border-line bg-surface px-2 text-[12px] font-medium text-fg-muted hover:bg-hover hover:text-fg ${className}`}
    >
      {state === "copied" ? <CheckIcon size={13} className="text-success" /> : <CopyIcon size={13} />}
      <span>{state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}</span>
    </button>
  );
}
