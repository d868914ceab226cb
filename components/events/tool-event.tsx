/**
 * Tool call renderers (Clutch Protocol §2.3): tool.call, tool.result and tool.error, collapsible,
 * with JSON arguments and result, the duration, and an error's code, message and retryable. A
 * `sql` argument shows as a formatted query, a rows result as a small table with a JSON toggle,
 * a truncated result links to the whole, and a call refused by the agent's bindings
 * (TOOL_NOT_ALLOWED) or the policy reads as a refusal rather than a failure; a call the policy
 * holds for an approval reads "Waiting for approval", then "Approved". In a run's thread a call and
 * its result are one step ("Queried DataServer · query_data — 8 rows · 120 ms"), ids behind Details.
 */
import type { StoredEventOf } from "@/lib/protocol";
import { artifactUrl } from "@/components/live/api";
import type { ApprovalView } from "@/lib/fold/approvals";
import { StatusBadge } from "@/components/ui/chip";
import { Disclosure } from "@/components/ui/disclosure";
import { LockIcon, WrenchIcon } from "@/components/ui/icons";
import { NewTabLink } from "@/components/ui/new-tab-link";
import { formatDuration } from "@/components/ui/time";
import { SenderRow } from "./event-shell";
import { JsonView, safeStringify } from "@/components/ui/json-view";
import { RowsResult, rowsShape, rowsSummary } from "./rows-table";
import { SqlBlock, sqlPreview } from "./sql-block";
import { useThreadActions } from "./thread-actions";

/** tool.error codes that mean "not allowed" rather than "broken". */
const REFUSED = new Set(["TOOL_NOT_ALLOWED", "PERMISSION_DENIED", "POLICY_DENIED"]);

function ToolName({ tool, server }: { tool: string; server?: string }) {
  return (
    <span className="font-mono text-[12.5px] font-semibold text-fg">
      {server && <span className="font-normal text-fg-muted">{server} · </span>}
      {tool}
    </span>
  );
}

function CallId({ id }: { id: string }) {
  return (
    <span className="font-mono text-[10.5px] text-fg-subtle max-sm:hidden" title="call_id">
      {id}
    </span>
  );
}

function Frame({ tone, children, label }: { tone: "call" | "ok" | "error" | "refused"; children: React.ReactNode; label: string }) {
  const border =
    tone === "error" ? "border-danger/35 bg-danger/[0.04]" : tone === "refused" ? "border-warning/40 bg-warning/[0.05]" : "border-line bg-surface";
  return (
    <div role="group" aria-label={label} className={`mt-1 max-w-2xl rounded-lg border px-3 py-1.5 ${border}`}>
      {children}
    </div>
  );
}

/** One-line preview of JSON arguments: `{"query":"…"}` cut to fit. */
function preview(value: unknown, max = 90): string {
  const s = safeStringify(value).replace(/\s*\n\s*/g, " ");
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A query call: the SQL as a code block (one line while closed), other arguments as JSON. */
function SqlArguments({ args, sql }: { args: Record<string, unknown>; sql: string }) {
  const { sql: _sql, ...rest } = args;
  return (
    <Disclosure
      className="mt-1"
      label="SQL"
      aside={(open) => !open && <code className="min-w-0 flex-1 truncate font-mono text-[11px] text-fg-subtle">{sqlPreview(sql)}</code>}
    >
      <SqlBlock sql={sql} label="SQL query" />
      {Object.keys(rest).length > 0 && <JsonView className="mt-1" value={rest} label="Other arguments" />}
    </Disclosure>
  );
}

/** "Waiting for approval" / "Approved" for a call held by the policy, without an outcome yet. */
function ApprovalStatus({ approval }: { approval: ApprovalView }) {
  const { jumpTo } = useThreadActions();
  const badge =
    approval.state === "pending" ? (
      <StatusBadge tone="warning">Waiting for approval</StatusBadge>
    ) : approval.state === "granted" ? (
      <StatusBadge tone="success">Approved</StatusBadge>
    ) : (
      <StatusBadge tone="warning">{approval.state === "expired" ? "Expired" : "Rejected"}</StatusBadge>
    );
  return (
    <button type="button" onClick={() => jumpTo(approval.request.id)} title="Show the approval" className="rounded-full">
      {badge}
    </button>
  );
}

/**
 * A tool invocation; `outcome` is the matching tool.result / tool.error when it has arrived,
 * `approval` the approval the policy held it for.
 */
export function ToolCall({
  event,
  continued,
  outcome,
  approval,
  folded = false,
}: {
  event: StoredEventOf<"tool.call">;
  continued: boolean;
  outcome?: StoredEventOf<"tool.result" | "tool.error">;
  approval?: ApprovalView;
  /** The call and its outcome as one step (a run's thread): the result inside, ids behind Details. */
  folded?: boolean;
}) {
  const p = event.payload;
  const result = outcome?.type === "tool.result" ? outcome : undefined;
  const shape = result ? rowsShape(result.payload.result) : null;
  return (
    <SenderRow event={event} continued={continued} label={`Tool call ${p.tool}`}>
      <Frame tone="call" label="Tool call">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <WrenchIcon size={13} className="text-fg-subtle" />
          <span className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">{event.meta?.compensation ? "Undo (compensation)" : stepVerb(p.tool, Boolean(result))}</span>{" "}
          <ToolName tool={p.tool} server={p.server_id} />{" "}
          {folded ? null : <CallId id={p.call_id} />}
          <span className="ml-auto">
            {!outcome && approval && !(approval.state === "granted" && p.server_id) ? (
              <ApprovalStatus approval={approval} />
            ) : !outcome ? (
              <StatusBadge tone="info">Running…</StatusBadge>
            ) : outcome.type === "tool.error" && REFUSED.has(outcome.payload.code) ? (
              <StatusBadge tone="warning">Refused</StatusBadge>
            ) : outcome.type === "tool.error" ? (
              <StatusBadge tone="danger">Error{outcome.payload.code ? ` ${outcome.payload.code}` : ""}</StatusBadge>
            ) : (
              <StatusBadge tone="success">
                {shape ? `${shape.total} row${shape.total === 1 ? "" : "s"}` : "Done"}
                {typeof outcome.payload.duration_ms === "number" ? ` · ${formatDuration(outcome.payload.duration_ms)}` : ""}
              </StatusBadge>
            )}
          </span>
        </div>
        {typeof p.arguments?.sql === "string" ? (
          <SqlArguments args={p.arguments} sql={p.arguments.sql} />
        ) : p.arguments && Object.keys(p.arguments).length > 0 ? (
          <Disclosure
            className="mt-1"
            label="Arguments"
            aside={(open) => !open && <code className="min-w-0 flex-1 truncate font-mono text-[11px] text-fg-subtle">{preview(p.arguments)}</code>}
          >
            <JsonView value={p.arguments} label="Arguments" />
          </Disclosure>
        ) : (
          <p className="mt-0.5 text-xs text-fg-subtle">No arguments</p>
        )}
        {folded && result && (
          <ResultDisclosure result={result.payload.result} shape={shape} />
        )}
        {folded && outcome?.type === "tool.error" && (
          <p className="mt-1 text-[13px]">
            <span className="mr-1.5 font-mono text-xs font-semibold text-danger">{outcome.payload.code}</span> <span className="text-fg">{outcome.payload.message}</span>
          </p>
        )}
        {folded && (
          <Disclosure className="mt-1" label="Details">
            <p className="font-mono text-[11px] text-fg-muted">
              call_id {p.call_id} · seq {event.seq}
              {outcome ? ` → ${outcome.seq}` : ""}
            </p>
          </Disclosure>
        )}
      </Frame>
    </SenderRow>
  );
}

/** A tool's result, folded: rows as a table (its size and columns while closed), anything else as JSON. */
function ResultDisclosure({ result, shape }: { result: unknown; shape: ReturnType<typeof rowsShape> }) {
  return (
    <Disclosure
      className="mt-1"
      label="Result"
      aside={(open) =>
        !open &&
        (shape ? (
          <span className="min-w-0 flex-1 truncate text-[11px] text-fg-subtle">{rowsSummary(shape)}</span>
        ) : (
          <code className="min-w-0 flex-1 truncate font-mono text-[11px] text-fg-subtle">{preview(result)}</code>
        ))
      }
    >
      {shape ? <RowsResult shape={shape} result={result} label="Result" /> : <JsonView value={result} label="Result" />}
    </Disclosure>
  );
}

/** What a step did, for its header: "Queried" for a query, "Called" otherwise; "Calling" while it runs. */
function stepVerb(tool: string, done: boolean): string {
  if (/query|sql|search|read|list|get|fetch/i.test(tool)) return done ? "Queried" : "Querying";
  return done ? "Called" : "Calling";
}

/** A tool's successful result, with its duration. */
export function ToolResult({ event, continued }: { event: StoredEventOf<"tool.result">; continued: boolean }) {
  const p = event.payload;
  const shape = rowsShape(p.result);
  return (
    <SenderRow event={event} continued={continued} label={`Tool result ${p.tool}`}>
      <Frame tone="ok" label="Tool result">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <WrenchIcon size={13} className="text-success" />
          <span className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">Tool result</span>{" "}
          <ToolName tool={p.tool} server={p.server_id} />{" "}
          {typeof p.duration_ms === "number" && (
            <span className="text-xs tabular-nums text-fg-muted" title={`${p.duration_ms} ms`}>
              {formatDuration(p.duration_ms)}
            </span>
          )}
          {p.truncated && <StatusBadge tone="warning">Truncated</StatusBadge>}
          <span className="ml-auto">
            <CallId id={p.call_id} />
          </span>
        </div>
        <ResultDisclosure result={p.result} shape={shape} />
        {p.artifact_ref && (
          <p className="mt-0.5 text-[11px] text-fg-muted">
            {p.truncated ? "This event holds a preview. " : ""}
            <NewTabLink href={artifactUrl(p.artifact_ref)} className="font-medium text-accent hover:underline" title={p.artifact_ref}>
              Open the whole result
            </NewTabLink>
          </p>
        )}
      </Frame>
    </SenderRow>
  );
}

/** A tool failure: code, message, whether a retry may help, duration; a refusal reads as one. */
export function ToolError({ event, continued, approval }: { event: StoredEventOf<"tool.error">; continued: boolean; approval?: ApprovalView }) {
  const p = event.payload;
  const refused = REFUSED.has(p.code);
  const why = approval
    ? approval.state === "expired"
      ? "Nobody approved it in time, so it never ran: a refusal, not a crash. The agent was told and goes on."
      : "A person rejected it in its approval, so it never ran: a refusal, not a crash. The agent was told, with the comment, and goes on."
    : p.code === "POLICY_DENIED"
      ? "Denied by the workspace policy (clutch.policy.yaml), so it was never sent: a refusal, not a crash. The agent was told and goes on."
      : p.code === "PERMISSION_DENIED"
        ? "Not permitted, so it was never sent: a refusal, not a crash. The agent was told and goes on."
        : "Not allowed by this agent’s tool bindings, so it was never sent: a refusal, not a crash. The agent was told and goes on.";
  return (
    <SenderRow event={event} continued={continued} label={`${refused ? "Tool call refused" : "Tool error"} ${p.tool}`}>
      <Frame tone={refused ? "refused" : "error"} label={refused ? "Tool call refused" : "Tool error"}>
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          {refused ? <LockIcon size={13} className="text-warning" /> : <WrenchIcon size={13} className="text-danger" />}
          <span className={`text-[11px] font-semibold uppercase tracking-wide ${refused ? "text-warning" : "text-danger"}`}>
            {refused ? "Tool call refused" : "Tool error"}
          </span>{" "}
          <ToolName tool={p.tool} server={p.server_id} />{" "}
          {typeof p.duration_ms === "number" && !refused && (
            <span className="text-xs tabular-nums text-fg-muted">{formatDuration(p.duration_ms)}</span>
          )}
          {p.retryable !== undefined && !refused && (
            <StatusBadge tone={p.retryable ? "warning" : "neutral"}>{p.retryable ? "Retryable" : "Not retryable"}</StatusBadge>
          )}
          <span className="ml-auto">
            <CallId id={p.call_id} />
          </span>
        </div>
        <p className="mt-1 text-[13px]">
          <span className={`mr-1.5 font-mono text-xs font-semibold ${refused ? "text-warning" : "text-danger"}`}>{p.code}</span>{" "}
          <span className="text-fg">{p.message}</span>
        </p>
        {refused && (
          <p className="mt-0.5 text-xs text-fg-muted">
            {why}
          </p>
        )}
      </Frame>
    </SenderRow>
  );
}
