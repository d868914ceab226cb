/**
 * Task lifecycle renderer (Clutch Protocol §2.1): each task.* event as a task card saying what
 * happened, the task's state badge folded by lib/fold/task-state.ts in the words of the run view
 * (lib/fold/run-status.ts `taskStatusLabel`: "Waiting on you", "Not done", "Cancelled by Lee"),
 * the agent, a summary of the payload, a progress bar for `percent`, and the payload JSON on demand.
 *
 * Review and refusals (CAP seed 000 "Oversight"): a result submitted for review
 * (task.progress `status: "in_review"`) reads "In review by QA Agent"; the overseer's
 * review.feedback.v1 result shows its decision, comments and blocking issues; a result that
 * passed review (`meta.approved_by`) says "Approved by QA Agent"; a delegation refused by the
 * manifest (task.error PERMISSION_DENIED) reads as a refusal, not a crash.
 */
import { actorOf, type StoredEventOf } from "@/lib/protocol";
import { isDeclined, taskStatusLabel, taskWaitingOn, type WaitingOn } from "@/lib/fold/run-status";
import type { TaskState, TaskView } from "@/lib/fold/task-state";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { useThreadRuns } from "@/components/live/use-runs";
import { Chip, StatusBadge, type Tone } from "@/components/ui/chip";
import { Disclosure } from "@/components/ui/disclosure";
import { LockIcon, ShieldCheckIcon, TaskIcon } from "@/components/ui/icons";
import { formatDuration } from "@/components/ui/time";
import { SenderRow } from "./event-shell";
import { JsonView } from "@/components/ui/json-view";
import { useNameOf } from "./use-sender-name";
import { DECISION_ACCENT, DecisionBadge, ReviewFeedback, reviewDecision } from "./review";
import { reviewerOf } from "./reviewer";

const TONE: Record<TaskState, Tone> = {
  pending: "neutral",
  approval_required: "warning",
  running: "info",
  waiting_input: "warning",
  succeeded: "success",
  failed: "danger",
  cancelled: "neutral",
  timed_out: "warning",
};

const VERB: Record<string, string> = {
  "task.request": "Task requested",
  "task.accept": "Task accepted",
  "task.progress": "Progress",
  "task.result": "Result",
  "task.error": "Task failed",
  "task.cancel": "Task cancelled",
  "task.timeout": "Task timed out",
};

/** A task.* event (Clutch Protocol §2.1). */
export type TaskEvent = StoredEventOf<"task.request" | "task.accept" | "task.progress" | "task.result" | "task.error" | "task.cancel" | "task.timeout">;

/** Codes of a task.error that is a refusal by policy rather than a failure. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set(["PERMISSION_DENIED", "TOOL_NOT_ALLOWED", "POLICY_DENIED"]);

function isRefusal(event: TaskEvent): boolean {
  return event.type === "task.error" && REFUSAL_CODES.has(event.payload.code);
}

function isReviewResult(event: TaskEvent): boolean {
  return event.type === "task.result" && event.payload_type === "review.feedback.v1";
}

function isInReview(event: TaskEvent): boolean {
  return event.type === "task.progress" && event.payload.status === "in_review";
}

/** What happened, for the card's header and the row's label. */
function verbOf(event: TaskEvent): string {
  if (isRefusal(event)) return "Delegation refused";
  if (event.type === "task.error" && event.payload.code === "BUDGET_EXCEEDED") return "Stopped: budget reached";
  if (isReviewResult(event)) return "Review decision";
  if (isInReview(event)) return "Submitted for review";
  if (event.type === "task.request" && typeof event.meta?.review_of === "string") return "Review requested";
  // A request for capabilities goes to the router first, then again to the agent it chose (Clutch Protocol §4).
  if (event.type === "task.request" && event.to[0]?.agent_id === "agent:orchestrator") return "Request to route";
  if (event.type === "task.request" && typeof event.meta?.routed_from === "string") return "Task routed";
  return VERB[event.type] ?? event.type;
}

/**
 * The state badge of a task (its state folded by lib/fold/task-state.ts), in people's words: whom
 * it waits on ("Waiting on you", "Waiting on an admin": its open questions, and the approvals it
 * holds for among its run's RunSummary.waiting_on), "Not done" once declined, "Cancelled by Lee",
 * else the state's name.
 */
export function TaskStateBadge({ task }: { task: TaskView }) {
  return task.open_approvals.length ? <HeldTaskBadge task={task} /> : <StateBadge task={task} runWaits={[]} />;
}

/** A task held for an approval: who may decide it comes from its run's summary (the channel's runs). */
function HeldTaskBadge({ task }: { task: TaskView }) {
  const runs = useThreadRuns(task.thread_id).data;
  return <StateBadge task={task} runWaits={runs?.find((r) => r.run_id === task.run_id)?.waiting_on ?? []} />;
}

function StateBadge({ task, runWaits }: { task: TaskView; runWaits: readonly WaitingOn[] }) {
  const me = useMe();
  const nameOf = usePersonLabel();
  const label = taskStatusLabel(task, taskWaitingOn(task, runWaits), me, nameOf);
  const tone = isDeclined(task) ? "neutral" : (TONE[task.state] ?? "neutral");
  return (
    <StatusBadge tone={tone} label={`State: ${label}`}>
      <span className="h-1.5 w-1.5 rounded-full bg-current" aria-hidden="true" />
      {label}
    </StatusBadge>
  );
}

/** Short text fields a result payload commonly carries, first match wins. */
function resultSummary(payload: Record<string, unknown>): string | null {
  for (const k of ["summary", "text", "message", "title", "answer", "output"]) {
    const v = payload[k];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return null;
}

function ProgressBar({ percent }: { percent: number }) {
  const pct = Math.max(0, Math.min(100, percent));
  return (
    <div className="mt-1.5 flex items-center gap-2">
      <div
        role="progressbar"
        aria-label="Task progress"
        aria-valuenow={Math.round(pct)}
        aria-valuemin={0}
        aria-valuemax={100}
        className="h-1.5 flex-1 overflow-hidden rounded-full bg-fg-muted/15"
      >
        <div className="h-full rounded-full bg-info transition-[width]" style={{ width: `${pct}%` }} />
      </div>
      <span className="w-9 text-right text-xs tabular-nums text-fg-muted">{Math.round(pct)}%</span>
    </div>
  );
}

/** An agent by its card's display name, its id as the tooltip. */
function AgentName({ id, plain = false }: { id: string; plain?: boolean }) {
  const nameOf = useNameOf();
  return (
    <span className={plain ? "" : "font-medium text-fg"} title={id}>
      {nameOf(id)}
    </span>
  );
}

/** Who cancelled: the display name the task.cancel carried, else the person's or agent's name; the id as the tooltip. */
function PersonName({ id, name }: { id: string; name?: string }) {
  const nameOf = usePersonLabel();
  return (
    <span className="font-medium text-fg" title={id}>
      {name || nameOf(id)}
    </span>
  );
}

/** "In review by QA Agent" while the review runs; "Reviewed by QA Agent · Approved" once it is decided. */
function InReview({ event, review, decision }: { event: StoredEventOf<"task.progress">; review?: TaskView; decision?: string }) {
  // The review task's assignee when it is known; else the name (or, in older runs, the id) the message gives.
  const reviewer = review?.assignee ?? reviewerOf(event.payload.message);
  const nameOf = useNameOf();
  const who = (
    <span className="font-semibold text-fg" title={reviewer}>
      {reviewer ? nameOf(reviewer) : "its overseer"}
    </span>
  );
  return (
    <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-[13px] text-fg-muted">
      <span>{decision ? <>Reviewed by {who}</> : <>In review by {who}</>}</span>
      {decision ? <DecisionBadge decision={decision} /> : review && review.state !== "succeeded" && <TaskStateBadge task={review} />}
    </p>
  );
}

function Body({ event, related, decision }: { event: TaskEvent; related?: TaskView; decision?: string }) {
  switch (event.type) {
    case "task.request": {
      const p = event.payload;
      if (typeof event.meta?.review_of === "string") {
        return (
          <p className="text-[13px] text-fg-muted">
            Checks the work of <span className="font-semibold text-fg">{related?.assignee ? <AgentName id={related.assignee} plain /> : "another agent"}</span>
            {related?.title && <> on “{related.title}”</>} before it goes back to whoever asked.
          </p>
        );
      }
      const to = event.to.map((t) => t.agent_id);
      const detail = p.title ? (p.instructions ?? p.context_summary) : p.context_summary && p.instructions ? p.context_summary : undefined;
      return (
        <>
          {detail && <p className="line-clamp-3 whitespace-pre-wrap text-[13px] text-fg-muted">{detail}</p>}
          {(to.length > 0 || event.requires?.length || event.prefers?.length) && (
            <div className="mt-1.5 flex flex-wrap items-center gap-1 text-[11px] text-fg-muted">
              {to.length > 0 && <span>to</span>}
              {to.map((a) => (
                <Chip key={a} title={a}>
                  <AgentName id={a} plain />
                </Chip>
              ))}
              {event.requires?.map((c) => (
                <Chip key={`r-${c}`} title="requires" className="border-accent/30 text-accent">
                  {c}
                </Chip>
              ))}
              {event.prefers?.map((c) => (
                <Chip key={`p-${c}`} title="prefers">
                  ~{c}
                </Chip>
              ))}
            </div>
          )}
        </>
      );
    }
    case "task.accept": {
      const p = event.payload;
      return (
        <p className="text-[13px] text-fg-muted">
          Accepted by <AgentName id={p.agent_id ?? actorOf(event)} />
          {p.instance_id && <> · instance {p.instance_id}</>}
          {p.note && <> — {p.note}</>}
        </p>
      );
    }
    case "task.progress": {
      if (isInReview(event)) return <InReview event={event} review={related} decision={decision} />;
      const p = event.payload;
      return (
        <>
          {p.message && <p className="whitespace-pre-wrap text-[13px] text-fg-muted">{p.message}</p>}
          {typeof p.percent === "number" && <ProgressBar percent={p.percent} />}
        </>
      );
    }
    case "task.result": {
      if (isReviewResult(event) && reviewDecision(event.payload)) return <ReviewFeedback payload={event.payload} showDecision={false} />;
      const summary = resultSummary(event.payload);
      const keys = Object.keys(event.payload);
      return (
        <div className="text-[13px] text-fg-muted">
          {event.payload_type && <Chip className="mb-1 mr-1 text-success">{event.payload_type}</Chip>}
          {summary ? (
            <p className="line-clamp-3 whitespace-pre-wrap">{summary}</p>
          ) : keys.length > 0 ? (
            <p>
              Fields: <span className="font-mono text-xs">{keys.slice(0, 8).join(", ")}{keys.length > 8 ? "…" : ""}</span>
            </p>
          ) : (
            <p>Completed with an empty result.</p>
          )}
        </div>
      );
    }
    case "task.error": {
      const p = event.payload;
      if (isRefusal(event)) {
        return (
          <div className="text-[13px]">
            <p className="flex gap-1.5">
              <LockIcon size={13} className="mt-[3px] shrink-0 text-warning" />
              <span className="min-w-0 break-words text-fg">{p.message}</span>
            </p>
            <p className="mt-0.5 text-xs text-fg-muted">
              Refused by policy (<span className="font-mono">{p.code}</span>), not a crash: the agent was told and the run goes on.
            </p>
          </div>
        );
      }
      return (
        <p className="text-[13px]">
          <span className="mr-1.5 font-mono text-xs font-semibold text-danger">{p.code}</span>{" "}
          <span className="text-fg">{p.message}</span>
          {p.retryable !== undefined && (
            <span className="ml-2">
              <StatusBadge tone={p.retryable ? "warning" : "neutral"}>{p.retryable ? "Retryable" : "Not retryable"}</StatusBadge>
            </span>
          )}
        </p>
      );
    }
    case "task.cancel": {
      const p = event.payload;
      const by = p.requested_by ?? event.from.agent_id;
      return (
        <p className="text-[13px] text-fg-muted">
          {p.reason ?? "No reason given."} · by <PersonName id={by} name={by === event.from.agent_id ? event.from.display_name : undefined} />
        </p>
      );
    }
    case "task.timeout": {
      const p = event.payload;
      return (
        <p className="text-[13px] text-fg-muted">
          {p.message ?? "The task ran out of time."}
          {typeof p.timeout_ms === "number" && <> · limit {formatDuration(p.timeout_ms)}</>}
        </p>
      );
    }
    default:
      return null;
  }
}


const ACCENT: Record<string, string> = {
  "task.result": "border-l-success",
  "task.error": "border-l-danger",
  "task.timeout": "border-l-warning",
  "task.cancel": "border-l-fg-subtle",
};

/**
 * One task event as a card; `task` is the task right after this event, `now` its latest state,
 * `related` the review task (in_review progress) or the task under review (review request).
 */
export function TaskCard({
  event,
  continued,
  task,
  now,
  related,
  decision: reviewOutcome,
}: {
  event: TaskEvent;
  continued: boolean;
  task?: TaskView;
  now?: TaskView;
  related?: TaskView;
  /** For task.progress `in_review`: the review's decision, once it came. */
  decision?: string;
}) {
  const verb = verbOf(event);
  const nameOf = useNameOf();
  // Any task event may name a title (a task.request's is typed; others are read as unknown).
  const title = task?.title ?? event.payload.title;
  // The agent working on it, when that is not the sender already named above the card.
  const agent = task?.assignee && task.assignee !== event.from.agent_id ? task.assignee : null;
  const refusal = isRefusal(event);
  const decision = isReviewResult(event) ? reviewDecision(event.payload) : null;
  const approvedBy = event.type === "task.result" && typeof event.meta?.approved_by === "string" ? event.meta.approved_by : null;
  const accent = refusal ? "border-l-warning" : decision ? (DECISION_ACCENT[decision] ?? "border-l-success") : (ACCENT[event.type] ?? "border-l-info");
  return (
    <SenderRow event={event} continued={continued} label={`${verb}${typeof title === "string" ? `: ${title}` : ""}`}>
      <div
        role="group"
        aria-label="Task"
        className={`mt-1 max-w-2xl rounded-lg border border-l-[3px] border-line bg-surface px-3 py-2 shadow-[0_1px_0_rgb(0_0_0/0.02)] ${accent}`}
      >
        <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
          {refusal ? <LockIcon size={14} className="shrink-0 text-warning" /> : <TaskIcon size={14} className="shrink-0 text-fg-subtle" />}
          <span className={`text-[11px] font-semibold uppercase tracking-wide ${refusal ? "text-warning" : "text-fg-muted"}`}>{verb}</span>{" "}
          {refusal ? (
            <StatusBadge tone="warning" label="State: Refused">
              <span className="h-1.5 w-1.5 rounded-full bg-current" aria-hidden="true" />
              Refused
            </StatusBadge>
          ) : decision ? (
            <DecisionBadge decision={decision} />
          ) : (
            // A request reads as its task is now (one state, never "Pending" beside "Succeeded");
            // any later step as its task was right after it.
            (event.type === "task.request" ? (now ?? task) : task) && <TaskStateBadge task={(event.type === "task.request" ? (now ?? task) : task)!} />
          )}
          {approvedBy && (
            <StatusBadge tone="success" label={`Approved by ${nameOf(approvedBy)}`}>
              <ShieldCheckIcon size={12} strokeWidth={2.25} />
              Approved by {nameOf(approvedBy)}
            </StatusBadge>
          )}
          {agent && (
            <span className="ml-auto truncate text-xs text-fg-muted" title={agent}>
              {nameOf(agent)}
            </span>
          )}
        </header>
        {typeof title === "string" && title && <h3 className="mt-1 text-[14px] font-semibold leading-5 text-fg">{title}</h3>}
        <div className="mt-0.5">
          <Body event={event} related={related} decision={reviewOutcome} />
        </div>
        <footer className="mt-1.5 text-[11px] text-fg-subtle">
          <Disclosure label="Details" aside={(task?.attempts ?? 1) > 1 ? <span>attempt {task?.attempts}</span> : undefined}>
            <p className="mb-1 font-mono text-[11px] text-fg-subtle">task {event.task_id}</p>
            <JsonView value={event.payload} label={`${event.type} payload`} />
          </Disclosure>
        </footer>
      </div>
    </SenderRow>
  );
}
