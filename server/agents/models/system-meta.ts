/**
 * What the runner tells a model about the task in the system message's `providerOptions.clutch`
 * (server/agents/contract.ts "Prompt"): the built-in model's playbooks read it, and any model may.
 */

/** providerOptions.clutch on the system message. */
export interface SystemMeta {
  agent_id: string;
  instance_id: string;
  task_id: string;
  run_id: string;
  /** "work" for a delegated task, "review" for an overseer's review task. */
  task_kind: "work" | "review";
  allowed_agents: string[];
  overseer: string | null;
  /**
   * The display names of the workspace's agents, by Clutch id (`{ "agent:qa-1": "QA Agent" }`),
   * for texts people read ("Analysis by Analyst Agent, verified by QA Agent"; docs/channels.md
   * "One name per agent"). Absent: agents go by their bare ids.
   */
  agent_names?: Record<string, string>;
}
