/**
 * How a person connects a real model to an agent: the environment variables models/index.ts
 * reads, named the way the README names them, so the built-in model can say it in the channel.
 */

/** `CLUTCH_MODEL_PM_1` for `agent:pm-1` (id without `agent:`, upper snake case). */
export function modelEnvVar(agent_id: string): string {
  const bare = agent_id.replace(/^agent:/, "");
  return `CLUTCH_MODEL_${bare.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "").toUpperCase()}`;
}

/**
 * Markdown lines that tell a person how to give `agent_id` a real model: CLUTCH_MODEL for every
 * agent (OpenAI-compatible or Anthropic, with the variables each needs) or
 * CLUTCH_MODEL_<AGENT> for this one, then a restart.
 */
export function connectModelHelp(agent_id: string): string[] {
  return [
    "To connect a real model, set one of these and restart Clutch:",
    "- `CLUTCH_MODEL=openai:<model>` with `OPENAI_API_KEY` for OpenAI, or `OPENAI_BASE_URL` for any OpenAI-compatible endpoint (Ollama, vLLM, …)",
    "- `CLUTCH_MODEL=anthropic:<model>` with `ANTHROPIC_API_KEY`",
    `- \`${modelEnvVar(agent_id)}=…\` instead of \`CLUTCH_MODEL\` for this agent only (\`CLUTCH_MODEL_<AGENT>\` for any other)`,
  ];
}

/**
 * Thrown by a model Clutch could not set up for an agent (`UnconfiguredModel`): `message` says in
 * people's words what is missing and which setting to change; the runner ends the task with
 * task.error MODEL_NOT_CONFIGURED and that message (server/agents/runner.ts).
 */
export class ModelNotConfiguredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelNotConfiguredError";
  }
}
