/**
 * HTTP webhook agents (Clutch Protocol §7.3; examples/third-party-agent/README.md "Webhooks"): an
 * external agent whose AgentCard names `endpoints.webhook.url` gets every event addressed to it
 * (its task requests, cancels, messages to it) as a signed HTTP POST, and answers through the
 * events API like any agent.
 *
 * Signatures follow Standard Webhooks (the `standardwebhooks` package): headers `webhook-id` (the
 * event's id, the same on every retry, so a receiver can drop repeats), `webhook-timestamp` (Unix
 * seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`), with
 * the agent's secret `whsec_…` (`webhookSecret`, derived from the server's secret; the agent reads
 * it from `GET /api/agents/:agent_id/webhook` with its own key). The body is the StoredEvent's JSON.
 *
 * A delivery that fails (a non-2xx answer, no answer in 10 s, a network error) is tried again with
 * backoff, `lifecycle.retry_attempts` times in all; a task.request whose delivery failed every time
 * ends with task.error WEBHOOK_UNREACHABLE (retryable), so the task does not wait forever.
 *
 * On PostgreSQL each delivery is a job of the durable queue (server/dispatch/queue.ts), added in
 * the event's own append transaction (`agentsOf` names the agents) and taken by the leader
 * (`deliverJob`), so a delivery in flight when the process stops or dies is made again after it,
 * with the same `webhook-id`; a receiver that drops repeats gets each event once. On the embedded
 * database the deliveries follow the live stream (`start`), and one in flight at a stop is lost.
 */
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import type { AgentCard, StoredEvent } from "@/lib/protocol";
import { withRetries } from "../../agents/retry";
import type { EventStore } from "../../events/store";
import type { EventTail } from "../../events/tail";
import { log } from "../../log";
import type { AgentRegistry } from "../../router/registry";
import { clutchTaskError } from "../../lifecycle/task-error";
import type { WebhookJob } from "../../dispatch/queue";

/** The agent's signing secret (`whsec_` + base64 of 32 bytes), derived from the server's secret. */
export function webhookSecret(serverSecret: string, agent_id: string): string {
  return `whsec_${createHmac("sha256", serverSecret).update(`clutch-webhook:${agent_id}`).digest("base64")}`;
}

/** The card's webhook URL (`endpoints.webhook.url`, http or https), or null. */
export function webhookUrlOf(card: AgentCard | undefined): string | null {
  const url = card?.endpoints?.webhook?.url;
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : null;
}

export interface WebhookDeps {
  store: EventStore;
  tail: EventTail;
  registry: AgentRegistry;
  /** The server's secret (server/auth/auth.ts authSecret), from which each agent's is derived. */
  serverSecret: string;
  /** Whether this Clutch acts in the channel (the orchestrator's scope). */
  inScope(thread_id: string): Promise<boolean>;
  /** Deliveries tried in all, and the wait before the second (doubled for each later one), ms. */
  attempts: number;
  delayMs: number;
}

export class WebhookDelivery {
  private unsubscribe: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = new AbortController();

  constructor(private readonly deps: WebhookDeps) {}

  /** The agents among `ev.to` that are external and name a webhook URL. */
  readonly agentsOf = (ev: StoredEvent): string[] => ev.to.map((t) => t.agent_id).filter((id) => this.urlOf(id) !== null);

  private urlOf(agent_id: string): string | null {
    const agent = this.deps.registry.get(agent_id);
    return agent?.source === "external" ? webhookUrlOf(agent.card) : null;
  }

  /**
   * Start delivering. `follow` (the embedded database): each event addressed to a webhook agent
   * is delivered from the live stream, in the background; otherwise the durable queue hands
   * deliveries to `deliverJob`.
   */
  start({ follow }: { follow: boolean }): void {
    this.stopping = new AbortController();
    if (!follow) return;
    this.unsubscribe = this.deps.tail.subscribe((ev) => {
      for (const agent_id of this.agentsOf(ev)) {
        const job = this.deliver(ev, agent_id, this.urlOf(agent_id)!)
          .catch((err) => log.error({ err, agent_id, seq: ev.seq }, "webhook delivery failed"))
          .finally(() => this.inFlight.delete(job));
        this.inFlight.add(job);
      }
    });
  }

  /**
   * One delivery job of the durable queue. Throws when the delivery was cut short by a stop, so
   * the queue keeps the job for the next leader; an agent that no longer has a webhook, or an
   * event gone, ends the job.
   */
  async deliverJob(job: WebhookJob): Promise<void> {
    const ev = (await this.deps.store.queries.eventsAtSeqs([job.seq])).get(job.seq);
    const url = this.urlOf(job.agent_id);
    if (!ev || !url) return;
    const run = this.deliver(ev, job.agent_id, url).finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
    await run;
    if (this.stopping.signal.aborted) throw new Error(`webhook delivery of seq ${job.seq} to ${job.agent_id} was cut short by a stop; it is made again`);
  }

  /** Stop delivering; deliveries waiting to retry give up at once (a queue's job is kept for later). */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private async deliver(ev: StoredEvent, agent_id: string, url: string): Promise<void> {
    if (!(await this.deps.inScope(ev.thread_id))) return;
    const body = JSON.stringify(ev);
    const signer = new Webhook(webhookSecret(this.deps.serverSecret, agent_id));
    const { outcome: failure } = await withRetries(
      { attempts: this.deps.attempts, first_ms: this.deps.delayMs, signal: this.stopping.signal },
      async () => {
        const at = new Date();
        try {
          const res = await fetch(url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "user-agent": "Clutch-Webhook/0.1",
              "webhook-id": ev.id,
              "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
              "webhook-signature": signer.sign(ev.id, at, body),
            },
            body,
            signal: AbortSignal.any([AbortSignal.timeout(10_000), this.stopping.signal]),
          });
          return res.ok ? { outcome: null, again: false } : { outcome: `HTTP ${res.status}`, again: true };
        } catch (err) {
          return { outcome: (err as Error).message, again: true };
        }
      },
    );
    if (failure === null || this.stopping.signal.aborted) return;
    log.warn({ agent_id, url, seq: ev.seq, failure }, "webhook delivery gave up");
    if (ev.type !== "task.request") return;
    const message = `${agent_id}'s webhook (${url}) did not take the task after ${this.deps.attempts} attempts: ${failure}`;
    await this.deps.store.append(clutchTaskError(ev, [ev.from, { agent_id }], { code: "WEBHOOK_UNREACHABLE", message, retryable: true }, `webhook-failed:${ev.id}`, ev.attempt));
  }
}
