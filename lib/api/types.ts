/**
 * Shapes of the HTTP API's responses, shared by route handlers and the browser.
 *
 * Errors are always `{ error: { code, message, issues? } }` with a 4xx/5xx status.
 */
import type { StoredEvent } from "../protocol/envelope";
import type { ForkComparison } from "../fold/fork-compare";

/** A channel as listed by `GET /api/threads`. Times are ISO 8601 strings. */
export interface ThreadSummary {
  id: string;
  name: string;
  topic: string;
  created_at: string;
  /** seq of the newest event in the thread; 0 when empty. */
  last_seq: number;
  last_event_at: string | null;
  /** How many events in the thread count as unread for a person (lib/unread.ts). */
  message_count: number;
  /** public: every member sees it; private: only its members (docs/identity.md). */
  visibility: "public" | "private";
  /** A channel, or a direct message between two principals (docs/channels.md "Direct messages"). */
  kind: "channel" | "dm";
  /** For a direct message: the two it is between (`user:<id>` / `agent:<id>`), sorted; else empty. */
  dm_between: string[];
  /** Who takes a new request here when the thread says (a direct message with an agent); else null. */
  entry_agent: string | null;
  /** Who answers a new top-level message, when an admin chose (lib/answers.ts); null: the workspace's setting. */
  answers: import("../answers").AnswerMode | null;
  /**
   * How far the signed-in person has read it (`GET /api/threads` only; server/events/read-marks.ts):
   * the seq and `message_count` as of their last read; null when the server has no mark.
   */
  read?: { seq: number; count: number } | null;
}

/** A channel of the workspace (`GET /api/workspace`): who takes its requests, and what to ask first. */
export interface WorkspaceChannel {
  thread_id: string;
  name: string;
  topic: string;
  entry_agent: string | null;
  /** Who answers a new top-level message (lib/answers.ts): the admin's choice, else the workspace's. */
  answers: import("../answers").AnswerMode;
  suggestions: string[];
}

/** One hit of `GET /api/search` (docs/channels.md "Search"). */
export interface SearchHit {
  /** The stored event that matched. */
  event: StoredEvent;
  /** PostgreSQL's ts_rank of the match: higher is better (within a tier). */
  rank: number;
  /** 0: the event says the words itself; 1: a wrapper (approval, orchestrator request) says them; 2: only its data or quoted text has them. */
  tier: number;
  /** A short excerpt of the event as a person reads it (no markdown), the matched words between « and ». */
  snippet: string;
  /** The forks of the event's run that hold a copy of it (the hit is shown once, for the original). */
  also_in: { run_id: string; run_title: string | null }[];
  thread_name: string | null;
  /** The title of the run the event belongs to, when it belongs to one. */
  run_title: string | null;
}

export interface ApiError {
  error: { code: string; message: string; issues?: unknown[] };
}

/** `GET /api/threads/:id/events` and `GET /api/runs/:id/events`. */
export interface EventPage {
  events: StoredEvent[];
  /** seq to pass as `after` for the next page; null when this page reached the end. */
  next_after: number | null;
  /** With `before=`: whether older events exist. */
  has_more_before?: boolean;
}

/** `GET /api/health`. */
export interface Health {
  ok: boolean;
  version: string;
  database: { ok: boolean; kind: "embedded" | "postgres"; error?: string };
  /**
   * Where the log is followed for the workspace's agents: on this node (the leader), on another
   * (this one stands by to take over), or nowhere (no workspace).
   */
  agents: "here" | "standby" | "none";
  /**
   * This node's share of the agents' turns (PostgreSQL; docs/deploy.md "Where agents run"): the
   * passes it may run at once (CLUTCH_AGENT_CONCURRENCY) and runs now. Absent on the embedded database.
   */
  node?: { name: string; agent_concurrency: number; running: number };
}

/** One of an agent's recent tasks (`AgentSummary.recent_tasks`). */
export interface AgentTaskSummary {
  task_id: string;
  run_id: string;
  thread_id: string;
  title: string | null;
  state: import("../fold/task-state").TaskState;
  updated_at: string;
}

/**
 * An agent as listed by `GET /api/agents`: its AgentCard, presence from
 * heartbeats, load and recent record. Times are ISO 8601 strings.
 */
export interface AgentSummary {
  agent_id: string;
  /** An admin disabled this external agent: its keys do not work (docs/identity.md). */
  disabled?: boolean;
  name: string;
  description: string | null;
  /**
   * online: heartbeats arrive and it is idle; busy: working on at least one task (see
   * active_tasks against max_concurrency); offline: no heartbeat for `offline_after_sec`.
   */
  status: "online" | "busy" | "offline";
  /** `workspace`: a CAP manifest run by this server; `external`: registered by `POST /api/agents`. */
  source: "workspace" | "external";
  /** The newest agent.heartbeat (or agent.register/update), null when none. */
  last_seen_at: string | null;
  /** Seconds between the heartbeats it is expected to send. */
  heartbeat_interval_sec: number;
  /** Seconds without a heartbeat after which it counts as offline. */
  offline_after_sec: number;
  /** Tasks it is working on now (pending or running). */
  active_tasks: number;
  /** Tasks waiting for someone's answer. */
  waiting_tasks: number;
  max_concurrency: number;
  /** Share (0..1) of its last ended tasks (up to 20) that succeeded, in every channel (a figure, no content); null with none. */
  success_rate: number | null;
  /** How many ended tasks `success_rate` is over. */
  recent_outcomes: number;
  /**
   * Its newest tasks (up to 10) of the channels the reader may read, newest first: another
   * reader may see others (docs/identity.md "The agent directory").
   */
  recent_tasks: AgentTaskSummary[];
  /** CAP: the agents it may delegate to, and its overseer (workspace agents only). */
  allowed_agents: string[];
  overseer: string | null;
  card: import("../protocol/agent-card").AgentCard;
}

/** A task as the run views show it (the tasks projection; lib/fold/task-state.ts). */
export interface TaskSummary {
  task_id: string;
  parent_task_id: string | null;
  state: import("../fold/task-state").TaskState;
  assignee: string | null;
  requester: string | null;
  title: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  /** When the current attempt was accepted; null while pending. */
  started_at: string | null;
  ended_at: string | null;
}

/** A run as `GET /api/runs`, `GET /api/threads/:id/runs` and `GET /api/runs/:id` list it. */
/** One model's calls in a scope, `model.usage` events summed (docs/observability.md); `model_ms` is time in the model. */
export interface ModelUsageRow {
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  model_ms: number;
}

export interface RunSummary {
  run_id: string;
  thread_id: string;
  /** 1, 2, 3…: the run's number in its channel, in the order runs appeared; shown as "#12" to tell runs with one title apart. */
  run_number: number;
  /** Who asked for the run (`user:<id>`, or an agent): the person whose message opened it, else its root task's requester. */
  requester: string | null;
  /** The agents with a task of the run, by id. */
  agents: string[];
  /** The fold of its root tasks (lib/fold/run-state.ts): running until every root ended. */
  state: import("../fold/run-state").RunState;
  /** What people read (lib/fold/run-status.ts): running, waiting (on a person), succeeded, not_done (declined), failed, cancelled, timed_out. */
  status: import("../fold/run-status").RunStatus;
  /** Whom the run waits on: questions to people without an answer, approvals without a decision. */
  waiting_on: import("../fold/run-status").WaitingOn[];
  /** Who cancelled it, when its status is `cancelled` (lib/fold/run-status.ts `runStatusFacts`); else null. */
  cancelled_by: import("../fold/run-status").Canceller | null;
  /** Title of the root task (the request that started the run). */
  title: string | null;
  started_at: string;
  updated_at: string;
  ended_at: string | null;
  task_total: number;
  /** Its tasks that ended, however they ended. */
  task_done: number;
  /** Its tasks that succeeded: the run's progress, "1 of 2 tasks done" (lib/fold/run-status.ts `progressOf`). */
  task_succeeded: number;
  event_count: number;
  /** seq of the run's first event: where its header goes in the channel. */
  first_seq: number;
  last_seq: number;
  /** The run this one was forked from, at which seq of it. */
  forked_from: { run_id: string; seq: number } | null;
  /** An imported copy of a run (docs/identity.md "Imported runs are copies that never act"): shown, never acting. */
  imported?: true;
  /** Who works on what right now: the run's unfinished tasks that have an assignee, oldest first. */
  active: ActiveTask[];
  /** Questions to the people of the channel that wait for an answer, oldest first. */
  questions: WaitingQuestion[];
  /** Approvals of the run that wait for a decision, oldest first. */
  approvals: WaitingApproval[];
  /**
   * How the request that started the run ended: its first root task's result (as text) or error;
   * null until that task ended. A follow-up never replaces it (docs/channels.md "Follow-ups").
   */
  outcome: RunOutcome | null;
  /** The follow-ups asked after it (later root tasks), oldest first, each with its own outcome once ended. */
  follow_ups?: FollowUpSummary[];
  /** Its model calls by model (a fork's copies left out); priced in the browser with `GET /api/usage/prices`. */
  usage: ModelUsageRow[];
}

/** A task of a run in hand: what its card shows as "analyst-1 · Query the sales data". */
export interface ActiveTask {
  task_id: string;
  title: string | null;
  assignee: string;
  state: import("../fold/task-state").TaskState;
}

/**
 * A question an agent asked the people of the channel (chat.message `expects_reply`, Clutch
 * Protocol §2.2) that has no answer yet: folded on the server from the tasks projection, so it is
 * known however far back in the channel it was asked.
 */
export interface WaitingQuestion {
  /** The question's message id (what `reply_to` names). */
  id: string;
  seq: number;
  run_id: string;
  task_id: string;
  from: import("../protocol/envelope").Participant;
  text: string;
}

/** An approval waiting for a decision, as a run lists it. */
export interface WaitingApproval {
  approval_id: string;
  agent_id: string;
  /** What the agent will do if approved, e.g. "pm-1 will send the people in the channel a message". */
  summary: string;
  /** The approval.requested event's id and seq (the card in the channel). */
  request_id: string;
  request_seq: number;
}

/** How a run ended, for its card: the root task's result, or its error. */
/** A follow-up of a run (a later root task, docs/channels.md "Follow-ups"). */
export interface FollowUpSummary {
  task_id: string;
  /** The follow-up's first line, as asked. */
  title: string | null;
  state: import("../fold/task-state").TaskState;
  /** Its result or error once it ended; null while it runs. */
  outcome: RunOutcome | null;
}

export interface RunOutcome {
  kind: "result" | "error";
  /** Markdown of the result (its summary or report), or the error's message. */
  text: string;
  /** The agent that produced it. */
  agent_id: string | null;
  /** The root task that ended so (what Retry starts again). */
  task_id: string;
}

/** `GET /api/runs`: runs newest first; `next_cursor` (for `before=`) while older runs may follow, else null. */
export interface RunList {
  runs: RunSummary[];
  next_cursor: string | null;
}

/** `GET /api/runs/:run_id`: the run, its forks and its tasks. */
export interface RunDetail {
  /** Each fork with its number in its channel and its title ("Analyze sales (fork at #46)"), to link it by. */
  run: RunSummary & { forks: { run_id: string; at_seq: number; created_at: string; run_number: number; title: string | null }[] };
  tasks: TaskSummary[];
}

/**
 * `GET /api/runs/:run_id/compare`: a fork beside the run it was forked from, after the fork
 * point (`at_seq`, the parent's seq): what each told people and the figures that differ
 * (lib/fold/fork-compare.ts; docs/channels.md "Forks").
 */
export interface ForkCompareResponse extends ForkComparison {
  at_seq: number;
  runs: { parent: RunSummary; fork: RunSummary };
}

/** An approval as `GET /api/approvals` lists it. Times are ISO 8601. */
export interface ApprovalSummary {
  approval_id: string;
  state: "pending" | "granted" | "rejected" | "expired";
  run_id: string;
  thread_id: string;
  thread_name: string | null;
  /** The title of the run it belongs to (its root task's; a fork says so), when known. */
  run_title: string | null;
  task_id: string;
  agent_id: string;
  kind: "dispatch" | "tool_call";
  summary: string;
  subject: Record<string, unknown>;
  arguments: Record<string, unknown> | null;
  preview: string | null;
  recommendation: { decision: string; comments?: unknown } | null;
  approvers: "any" | string[];
  /** Who asked for the work (the run's first person), and whether they may not decide (lib/approvers.ts `mayDecide`). */
  requester: string | null;
  /** Everyone whose request led to the work: none of them may decide under `forbid_self_approval`. */
  requesters: string[];
  /**
   * Listed for an approver outside the direct message it was asked in (docs/identity.md
   * "Approvals in direct messages"): the approval is theirs to decide, the DM not theirs to open.
   */
  outside_dm?: true;
  forbid_self_approval: boolean;
  rule: string | null;
  /** Why the policy holds it, in its own words (its approval.requested `reason`), when it says. */
  reason?: string | null;
  requested_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  comment: string | null;
  request_seq: number;
}

/** `GET /api/policy`: the policy in force and whether the file on disk is valid. */
export interface PolicyStatus {
  file: string | null;
  ok: boolean;
  error: string | null;
  loaded_at: string;
  rules: number;
}

// Identity (docs/identity.md)

/** admin: members, keys, agents, policy; member: every public channel; guest: only channels they were added to. */
export type Role = "admin" | "member" | "guest";

/** An API key as lists show it (never the key itself). */
export interface ApiKeySummary {
  id: string;
  /** `user:<id>` or `agent:<id>`: who the key speaks for. */
  owner: string;
  name: string;
  prefix: string;
  created_by: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A person of the workspace (`GET /api/people`; `email` only for admins there). */
export interface PersonSummary {
  id: string;
  /** `user:<id>` */
  agent_id: string;
  name: string;
  email: string;
  role: Role;
  created_at: string;
  /** For admins: set while the person's sign-in is locked after too many failed passwords (docs/identity.md). */
  sign_in_lock?: { failures: number; locked_until: string };
  /** Deactivated (by an admin, or by the identity provider): signs in and authenticates as nobody (docs/identity.md). */
  deactivated?: true;
  /**
   * For admins, on a deactivated person: who deactivated them (`by`: the admin's `user:<id>`, or
   * `system` for the identity provider, docs/identity.md "Single sign-on"), when, and why.
   */
  deactivation?: { by: string; at: string; reason: string };
}

/** An invite link (`GET /api/invites`); its token is shown only when it is created. */
export interface InviteSummary {
  id: string;
  role: Role;
  note: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  state: "open" | "accepted" | "expired" | "revoked";
  accepted_by: string | null;
}

/** A schema of the registry as `GET /api/schemas` lists it (docs/schemas.md). */
export interface SchemaSummary {
  /** `schema://<name>@<version>` */
  ref: string;
  name: string;
  version: number;
  /** The payload type it defines (Clutch Protocol §3.3). */
  payload_type?: string;
  /** The message type whose payload it defines (§2). */
  message_type?: string;
  description: string;
  /** `builtin`: Clutch's own; `added`: a person or an agent added it (`POST /api/schemas`). */
  source: "builtin" | "added";
  /** Who added it (`user:…`, `agent:…`) and when (ISO 8601); absent for built-ins. */
  created_by?: string;
  created_at?: string;
  /** Agents whose AgentCard produces / consumes its payload type (agent ids). */
  producers: string[];
  consumers: string[];
}

/** One schema with its JSON Schema (draft 2020-12), `GET /api/schemas/<name>@<version>`. */
export interface SchemaDetail extends SchemaSummary {
  json_schema: Record<string, unknown>;
}

/** What `POST /api/workspace/import` made of a PromptPack (docs/promptpacks.md). */
export interface PackImport {
  pack: { id: string; name: string; version: string | null };
  /** The team's new channel. */
  channel: { thread_id: string; name: string };
  /** The new agents' ids, the entry agent first. */
  agents: string[];
  /** What the pack names that Clutch left out (tools without an implementation). */
  warnings: string[];
  /** How tools that are not prompt keys were read as the team's agents. */
  notes: string[];
}

/** A workflow as `GET /api/workflows` lists it (docs/workflows.md). */
export interface WorkflowSummary {
  name: string;
  /** Counted up at every save. */
  version: number;
  description: string;
  steps: import("@/lib/workflows/definition").WorkflowShape["steps"];
  /** Who saved it last (`user:…`, or `workspace` for the workspace folder's) and when (ISO 8601). */
  updated_by: string;
  updated_at: string;
}

/** One workflow with its YAML or JSON as written, `GET /api/workflows/<name>`. */
export interface WorkflowDetail extends WorkflowSummary {
  source: string;
  /** Steps whose capability no agent offers now (server/workflows/coverage.ts): a run would be refused. */
  /** Steps no agent can take now: a capability no card offers, or (`capability: null`) a payload type no card may produce. */
  uncovered: ({ step: string; title: string } & ({ capability: string } | { capability: null; payload_type: string }))[];
}

/**
 * One item of the For you inbox (`GET /api/inbox`, docs/channels.md "For you"): something that
 * needs the signed-in person or names them.
 *
 * - `question`: an agent's question to people that waits for an answer, put to the channel
 *   (`user`) or to the person; it leaves the inbox once answered.
 * - `approval`: an approval that waits for a decision the person may make (lib/approvers.ts
 *   `mayDecide`); it leaves the inbox once decided or expired.
 * - `mention`: a message that @mentions the person; it is done once they have read the channel
 *   past it.
 * - `dm`: a direct message the other party wrote in, one item per DM: its newest message from
 *   them, and how many of theirs are unread (`unread_count`); it is done once the person has
 *   read the DM past it.
 */
export interface InboxItem {
  kind: "question" | "approval" | "mention" | "dm";
  /** Unique in the list: `question:<run_id>/<id>`, `approval:<approval_id>`, `mention:<run_id>/<id>`, `dm:<run_id>/<id>` (a DM's newest message, so each new one is new). */
  key: string;
  thread_id: string;
  thread_name: string | null;
  run_id: string;
  /** The message (question, mention, a DM's newest from the other party) or the approval.requested event. */
  event_id: string;
  seq: number;
  approval_id: string | null;
  /** Who asked, requested, mentioned or wrote. */
  from: { agent_id: string; display_name?: string };
  /** The text, whitespace folded, at most 280 characters. */
  text: string;
  /** The title of the run it belongs to, when it belongs to one. */
  run_title: string | null;
  /** When it was asked or sent (ISO 8601). */
  at: string;
  /** Where it opens in context: the channel with the thread, or the approvals page. */
  href: string;
  /** Newer than where the person has read its channel up to. */
  unread: boolean;
  /** Nothing is left to do: a mention or a DM that was read (questions and approvals leave the inbox instead). */
  done: boolean;
  /** A DM only: how many of the other party's messages in it are unread (0 once read). */
  unread_count?: number;
}

/** `GET /api/inbox`: the items newest first, and how many are not done (the sidebar's count). */
export interface InboxAnswer {
  items: InboxItem[];
  open: number;
}

/** What `POST /api/runs/import` did (or, as a dry run, would do); server/runs/runs.ts `importRun`. */
export interface RunImportResult {
  run_id: string;
  /** Lines of the import: events appended, or already there (the same `(run_id, id)`). */
  events: number;
  /** Events stored by this import (0 on a dry run): `events` less those that were already there. */
  created: number;
  /** The run's title: the existing run's, else the import's root request's; null when it has none. */
  title: string | null;
  /** The run the events go into, as it was before the import; null when it is a new run. */
  existing: { title: string | null; event_count: number } | null;
  dry_run: boolean;
}
