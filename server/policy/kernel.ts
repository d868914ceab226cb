/**
 * The policy kernel (Cordum seed 004 "Safety as First-Class Hook"; docs/protocol.md): loads the
 * workspace's `clutch.policy.yaml`, reloads it when it changes, and decides every dispatch and
 * tool call.
 *
 * - An invalid file keeps the last good policy; `status().error` says what is wrong (for the
 *   UI and the log) until the file is fixed.
 * - Any failure while deciding answers `deny` (fail closed).
 * - `throttle` rules count calls per agent or per tool in a sliding window; over the rate the
 *   answer is `throttle` with a delay, and the caller waits and asks again: a throttled call is
 *   delayed, never dropped.
 * - `constrain` rules answer `deny` once a limit is exceeded (tool calls in the task so far,
 *   a sandbox-only tool for an agent outside the sandbox), else `allow` with the limits.
 */
import fs from "node:fs";
import YAML from "yaml";
import { watchFile } from "../workspace/watch-file";
import { decide, type Subject } from "./rules";
import { OPEN_POLICY, PolicySchema, type Policy } from "./schema";

export interface Decision {
  decision: "allow" | "deny" | "require_approval" | "throttle" | "constrain";
  /** The rule that decided, or null for the default (or a failure). */
  rule: string | null;
  reason: string;
  /** require_approval: who may approve ("any" member or named people). */
  approvers?: "any" | string[];
  /** require_approval: the run's requester may not decide (the rule's `forbid_self_approval`). */
  forbid_self_approval?: boolean;
  /** throttle: how long to wait before asking again (ms). */
  delay_ms?: number;
  /** constrain: the limits that apply. */
  limits?: Record<string, unknown>;
}

/** What the caller knows about usage so far, for `constrain` limits. */
export interface Usage {
  tool_calls?: number;
  tokens?: number;
  /** Whether the agent runs sandboxed (its AgentCard's security.sandbox). */
  sandboxed?: boolean;
}

export interface PolicyStatus {
  file: string | null;
  ok: boolean;
  error: string | null;
  loaded_at: string;
  rules: number;
}

/** Parse a policy document. Throws an Error listing each problem with its path. */
export function parsePolicy(text: string): Policy {
  let raw: unknown;
  try {
    raw = YAML.parse(text) ?? {};
  } catch (err) {
    throw new Error(`not valid YAML: ${(err as Error).message}`);
  }
  const r = PolicySchema.safeParse(raw);
  if (!r.success) throw new Error(r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "));
  return r.data;
}

export class PolicyKernel {
  private policy: Policy = OPEN_POLICY;
  private error: string | null = null;
  private loadedAt = new Date().toISOString();
  private watcher: fs.FSWatcher | null = null;
  private readonly calls = new Map<string, number[]>();

  constructor(
    private readonly file: string | null,
    private readonly opts: { now?: () => number; onChange?: (status: PolicyStatus) => void } = {},
  ) {
    this.load();
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** (Re)read the file. A missing file means the open policy; an invalid one keeps the last good. */
  load(): PolicyStatus {
    if (this.file && fs.existsSync(this.file)) {
      try {
        this.policy = parsePolicy(fs.readFileSync(this.file, "utf8"));
        this.error = null;
      } catch (err) {
        this.error = `${this.file}: ${(err as Error).message}; keeping the last good policy`;
      }
    } else {
      this.policy = OPEN_POLICY;
      this.error = null;
    }
    this.loadedAt = new Date(this.now()).toISOString();
    const s = this.status();
    this.opts.onChange?.(s);
    return s;
  }

  /** Reload whenever the file changes (debounced). */
  watch(): void {
    if (!this.file || this.watcher) return;
    this.watcher = watchFile(this.file, () => this.load());
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  status(): PolicyStatus {
    return { file: this.file, ok: this.error === null, error: this.error, loaded_at: this.loadedAt, rules: this.policy.rules.length };
  }

  /** The policy in force (the last good one). */
  current(): Policy {
    return this.policy;
  }

  /** Decide `subject`. Never throws: a failure answers deny. */
  evaluate(subject: Subject, usage: Usage = {}): Decision {
    try {
      return this.evaluateOrThrow(subject, usage);
    } catch (err) {
      return { decision: "deny", rule: null, reason: `the policy could not be evaluated (${(err as Error).message}); denied to be safe` };
    }
  }

  private evaluateOrThrow(subject: Subject, usage: Usage): Decision {
    const m = decide(this.policy, subject);
    const rule = m.rule;
    if (!rule) {
      return m.decision === "require_approval" ? { decision: m.decision, rule: null, reason: m.reason, approvers: "any" } : { decision: m.decision, rule: null, reason: m.reason };
    }
    switch (rule.decision) {
      case "allow":
      case "deny":
        return { decision: rule.decision, rule: rule.id, reason: m.reason };
      case "require_approval":
        return { decision: "require_approval", rule: rule.id, reason: m.reason, approvers: rule.approvers, forbid_self_approval: rule.forbid_self_approval };
      case "throttle": {
        const key = `${rule.id}|${rule.rate.per === "agent" ? subject.agent : `${subject.server_id ?? ""}/${subject.tool ?? ""}`}`;
        const now = this.now();
        const since = now - rule.rate.window_sec * 1000;
        const recent = (this.calls.get(key) ?? []).filter((t) => t > since);
        if (recent.length >= rule.rate.max) {
          this.calls.set(key, recent);
          const wait = Math.max(rule.delay_ms, recent[0]! + rule.rate.window_sec * 1000 - now);
          return {
            decision: "throttle",
            rule: rule.id,
            reason: `${m.reason}: at most ${rule.rate.max} calls per ${rule.rate.window_sec} s per ${rule.rate.per}; retry in ${wait} ms`,
            delay_ms: wait,
          };
        }
        recent.push(now);
        this.calls.set(key, recent);
        return { decision: "allow", rule: rule.id, reason: `${m.reason}: within ${rule.rate.max} calls per ${rule.rate.window_sec} s` };
      }
      case "constrain": {
        const l = rule.limits;
        if (l.max_tool_calls !== undefined && (usage.tool_calls ?? 0) >= l.max_tool_calls) {
          return { decision: "deny", rule: rule.id, reason: `${m.reason}: the limit of ${l.max_tool_calls} tool calls is reached`, limits: l };
        }
        if (l.max_tokens !== undefined && (usage.tokens ?? 0) >= l.max_tokens) {
          return { decision: "deny", rule: rule.id, reason: `${m.reason}: the limit of ${l.max_tokens} tokens is reached`, limits: l };
        }
        if (subject.tool && l.sandbox_only_tools?.includes(subject.tool) && usage.sandboxed === false) {
          return { decision: "deny", rule: rule.id, reason: `${m.reason}: ${subject.tool} may run only in the sandbox`, limits: l };
        }
        return { decision: "constrain", rule: rule.id, reason: m.reason, limits: l };
      }
    }
  }
}
