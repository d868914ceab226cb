/**
 * AgentChat component specs for group-chat tests (what `dump_component()` writes; docs/adapters.md
 * "AutoGen"): an AssistantAgent on an OpenAI model client, and a termination condition.
 */

/** An AssistantAgent named `name` ("<name> helps"), on OpenAIChatCompletionClient gpt-4o; `extra` adds to its config. */
export const assistant = (name: string, extra: Record<string, unknown> = {}) => ({
  provider: "autogen_agentchat.agents.AssistantAgent",
  component_type: "agent",
  config: { name, description: `${name} helps`, system_message: `You are ${name}.`, model_client: { provider: "OpenAIChatCompletionClient", component_type: "model", config: { model: "gpt-4o" } }, ...extra },
});

/** The termination condition `autogen_agentchat.conditions.<name>` with `config`. */
export const cond = (name: string, config: Record<string, unknown>) => ({ provider: `autogen_agentchat.conditions.${name}`, component_type: "termination", config });
