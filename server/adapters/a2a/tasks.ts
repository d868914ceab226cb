/**
 * The A2A tasks Clutch serves, on the database (docs/adapters.md "A2A"; docs/deploy.md): the
 * `a2a_tasks` table holds each task as the SDK's Task in its JSON form (`Task.toJSON`), with the
 * deployment and endpoint that serve it, the A2A tenant and the caller (owner) it belongs to. So
 * any node of a deployment answers tasks/get, tasks/list, tasks/cancel and the answer to a question,
 * also after a restart.
 *
 *   A2ATaskRecords.storeFor(endpoint, { everyEndpoint })
 *                                       the SDK `TaskStore` of one endpoint (`/a2a`, `/a2a/agents/<name>`):
 *                                       each caller sees only their own tasks, as the SDK's
 *                                       InMemoryTaskStore scopes them (tenant, then `context.user.userName`);
 *                                       an agent endpoint's store finds the tasks it took, the
 *                                       workspace's (`everyEndpoint`) the caller's tasks whichever
 *                                       endpoint took them (a task keeps the endpoint that took it)
 *   A2ATaskRecords.unfinished(endpoint) the endpoint's tasks that are neither ended nor waiting for
 *                                       input, for a node to follow their runs again at start
 *
 * A task that reached a terminal state (completed, failed, canceled, rejected) stays as it was: a
 * later save that would give it another state is ignored, so nodes that follow the same run can
 * write their updates in any order.
 */
import { Task, TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import { resolveUserScope, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { Db } from "../../db/client";

/** The A2A task states after which a task never changes (their JSON names). */
export const TERMINAL_A2A_STATES: readonly string[] = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED].map(taskStateToJSON);

/** The states a task waits in for its caller; a node does not follow such a task's run at start. */
const WAITING_A2A_STATES: readonly string[] = [TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED].map(taskStateToJSON);

const DEFAULT_PAGE_SIZE = 50;

/** A stored task with whose it is: what a node needs to act for its caller without a call. */
export interface StoredA2ATask {
  task: Task;
  tenant: string;
  /** The caller's agent_id. */
  owner: string;
}

interface Row {
  task: unknown;
  tenant: string;
  owner: string;
  ts: string;
  id: string;
}

const stateOf = (task: Task): string => taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

/** The list cursor, as the SDK's InMemoryTaskStore writes it: base64 of `<status timestamp>|<task id>`. */
function encodePageToken(timestamp: string, id: string): string {
  return Buffer.from(`${timestamp}|${id}`).toString("base64");
}

function decodePageToken(token: string): { timestamp: string; id: string } {
  const [timestamp, ...id] = Buffer.from(token, "base64").toString("utf-8").split("|");
  if (!id.length || timestamp === undefined) throw new RequestMalformedError("Token is not a valid base64-encoded cursor.");
  return { timestamp, id: id.join("|") };
}

/** The `a2a_tasks` of one deployment (see the module doc). */
export class A2ATaskRecords {
  constructor(
    private readonly db: Db,
    private readonly deployment: string,
  ) {}

  /**
   * The SDK TaskStore of endpoint path `endpoint` (see the module doc): new tasks are saved as
   * `endpoint`'s. `opts.everyEndpoint`: it also finds, lists and updates the caller's tasks that
   * other endpoints took (the workspace endpoint's store); else only `endpoint`'s.
   */
  storeFor(endpoint: string, opts: { everyEndpoint?: boolean } = {}): TaskStore {
    return new DbTaskStore(this.db, this.deployment, endpoint, opts.everyEndpoint ?? false);
  }

  /**
   * The tasks of `endpoint` whose state is neither terminal nor waiting for the caller
   * (submitted, working), oldest update first. A row whose JSON no longer reads is left out.
   */
  async unfinished(endpoint: string): Promise<StoredA2ATask[]> {
    const skip = [...TERMINAL_A2A_STATES, ...WAITING_A2A_STATES];
    const rows = await this.db.a2ATask.findMany({
      where: { deployment: this.deployment, endpoint, state: { notIn: skip } },
      orderBy: { updated_at: "asc" },
      select: { task: true, tenant: true, owner: true },
    });
    return rows.flatMap((r) => {
      try {
        return [{ task: Task.fromJSON(r.task as never), tenant: r.tenant, owner: r.owner }];
      } catch {
        return [];
      }
    });
  }
}

/** The SDK TaskStore of one endpoint on `a2a_tasks` (see the module doc). */
class DbTaskStore implements TaskStore {
  /** `everyEndpoint`: the caller's tasks of every endpoint are this store's, not only `endpoint`'s. */
  constructor(
    private readonly db: Db,
    private readonly deployment: string,
    private readonly endpoint: string,
    private readonly everyEndpoint: boolean,
  ) {}

  /** The `endpoint` filter of a read: none when every endpoint's tasks are this store's. */
  private endpointFilter(): { endpoint?: string } {
    return this.everyEndpoint ? {} : { endpoint: this.endpoint };
  }

  private scope(context: ServerCallContext): { tenant: string; owner: string } {
    return { tenant: context.tenant ?? "", owner: resolveUserScope(context) };
  }

  /**
   * Insert or replace task `task.id` of the caller (a new one as this endpoint's; a replaced one
   * keeps the endpoint that took it). Ignored when the id is another caller's or deployment's,
   * another endpoint's (unless this store has every endpoint's tasks), or when the stored task is
   * in a terminal state and `task` is in another state.
   */
  async save(task: Task, context: ServerCallContext): Promise<void> {
    if (!task.id) throw new RequestMalformedError("A task to save needs an id.");
    const { tenant, owner } = this.scope(context);
    const json = JSON.stringify(Task.toJSON(task));
    const state = stateOf(task);
    await this.db.$executeRaw`
      INSERT INTO a2a_tasks (id, deployment, endpoint, tenant, owner, context_id, state, task, updated_at)
      VALUES (${task.id}, ${this.deployment}, ${this.endpoint}, ${tenant}, ${owner}, ${task.contextId ?? ""}, ${state}, ${json}::jsonb, now())
      ON CONFLICT (id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state, task = EXCLUDED.task, updated_at = now()
      WHERE a2a_tasks.deployment = EXCLUDED.deployment AND (${this.everyEndpoint}::boolean OR a2a_tasks.endpoint = EXCLUDED.endpoint)
        AND a2a_tasks.tenant = EXCLUDED.tenant AND a2a_tasks.owner = EXCLUDED.owner
        AND (a2a_tasks.state <> ALL(${TERMINAL_A2A_STATES as string[]}::text[]) OR a2a_tasks.state = EXCLUDED.state)`;
  }

  /** The caller's task `taskId` at this endpoint (at any, with every endpoint's tasks), or undefined. */
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    if (typeof taskId !== "string" || !taskId) return undefined;
    const row = await this.db.a2ATask.findFirst({ where: { id: taskId, deployment: this.deployment, ...this.endpointFilter(), ...this.scope(context) }, select: { task: true } });
    return row ? Task.fromJSON(row.task as never) : undefined;
  }

  /**
   * The caller's tasks at this endpoint (at every one, with every endpoint's tasks), newest status first (then by id, descending), filtered by
   * context, state and status time, a page at a time (`pageToken` from the previous page's
   * `nextPageToken`; `pageSize` 1 to 100, default 50). Artifacts are left out unless
   * `includeArtifacts`. Throws RequestMalformedError for a page size out of range, a page token or
   * a `statusTimestampAfter` that does not read.
   */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { contextId, status, pageToken, statusTimestampAfter, includeArtifacts = false } = params;
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) throw new RequestMalformedError("pageSize must be between 1 and 100");
    const { tenant, owner } = this.scope(context);
    const state = status !== undefined && status !== TaskState.TASK_STATE_UNSPECIFIED ? taskStateToJSON(status) : null;
    const after = statusTimestampAfter ? new Date(statusTimestampAfter) : null;
    if (after && Number.isNaN(after.getTime())) throw new RequestMalformedError("statusTimestampAfter must be a valid ISO 8601 date string");
    const cursor = pageToken ? decodePageToken(pageToken) : null;
    const ts = "COALESCE(task->'status'->>'timestamp', '') COLLATE \"C\"";
    const where = [
      "deployment = $1",
      "($2::text IS NULL OR endpoint = $2)",
      "tenant = $3",
      "owner = $4",
      "($5::text IS NULL OR context_id = $5)",
      "($6::text IS NULL OR state = $6)",
      "($7::timestamptz IS NULL OR (task->'status'->>'timestamp') IS NOT NULL AND (task->'status'->>'timestamp')::timestamptz > $7)",
    ].join(" AND ");
    const args = [this.deployment, this.everyEndpoint ? null : this.endpoint, tenant, owner, contextId || null, state, after?.toISOString() ?? null];
    const counted = await this.db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM a2a_tasks WHERE ${where}`, ...args);
    const rows = await this.db.$queryRawUnsafe<Row[]>(
      `SELECT task, tenant, owner, ${ts} AS ts, id FROM a2a_tasks WHERE ${where}
       AND ($8::text IS NULL OR (${ts}, id COLLATE "C") < ($8::text COLLATE "C", $9::text COLLATE "C"))
       ORDER BY ${ts} DESC, id COLLATE "C" DESC LIMIT $10`,
      ...args,
      cursor?.timestamp ?? null,
      cursor?.id ?? null,
      pageSize + 1,
    );
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((r) => {
        const task = Task.fromJSON(r.task as never);
        if (!includeArtifacts) task.artifacts = [];
        return task;
      }),
      nextPageToken: rows.length > pageSize && last ? encodePageToken(last.ts, last.id) : "",
      pageSize,
      totalSize: counted[0]?.n ?? 0,
    };
  }
}
