/**
 * `UsageLine`: a `model.usage` event (docs/observability.md) as a compact line in a thread:
 * "pm-1 called gpt-4o-mini · 3k in, 400 out · 1.2 s"; the cached and reasoning tokens and the
 * finish reason in its tooltip.
 */
import type { StoredEventOf } from "@/lib/protocol";
import { formatTokens } from "@/lib/fold/usage";
import { ActivityIcon } from "@/components/ui/icons";
import { formatDuration } from "@/components/ui/time";
import { LineRow } from "./event-shell";
import { useNameOf } from "./use-sender-name";

export function UsageLine({ event }: { event: StoredEventOf<"model.usage"> }) {
  const nameOf = useNameOf();
  const p = event.payload;
  const detail = [
    `${p.input_tokens.toLocaleString("en-US")} input tokens${p.cached_input_tokens ? ` (${p.cached_input_tokens.toLocaleString("en-US")} cached)` : ""}`,
    `${p.output_tokens.toLocaleString("en-US")} output tokens${p.reasoning_tokens ? ` (${p.reasoning_tokens.toLocaleString("en-US")} reasoning)` : ""}`,
    p.finish_reason ? `finished: ${p.finish_reason}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  return (
    <LineRow event={event} icon={<ActivityIcon size={14} className="text-fg-subtle" />} label={`Model call by ${nameOf(event.from.agent_id)}: ${p.model}`}>
      <span className="text-fg-muted" title={detail}>
        <span className="font-medium text-fg">{nameOf(event.from.agent_id)}</span> called <span className="font-mono text-[12px]">{p.model}</span> · {formatTokens(p.input_tokens)} in,{" "}
        {formatTokens(p.output_tokens)} out · {formatDuration(p.latency_ms)}
      </span>
    </LineRow>
  );
}
