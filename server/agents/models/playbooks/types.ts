/**
 * What a playbook decides for one model call: the next tool calls, or text only to end the
 * turn (server/agents/contract.ts: "A turn ends when the model answers with text and no tool call").
 */
import type { Transcript } from "./transcript";

export interface PlannedCall {
  tool: string;
  input: Record<string, unknown>;
}

export interface Action {
  /** Tool calls to make now (empty: the turn ends with `text`). */
  calls: PlannedCall[];
  /** Words that go with the calls, or the turn-ending text. */
  text?: string;
}

/** A playbook: the next action of an agent, computed from its transcript alone. */
export type Playbook = (t: Transcript) => Action;

/** One tool call, with optional words next to it. */
export function call(tool: string, input: Record<string, unknown>, text?: string): Action {
  return { calls: [{ tool, input }], text };
}

/** No tool call: the turn ends with `text` while the agent waits. */
export function endTurn(text: string): Action {
  return { calls: [], text };
}
