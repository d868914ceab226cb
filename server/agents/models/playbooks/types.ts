/**
 * What a playbook decides for one model call: the next tool calls, or text only to end the
 * turn (contract.ts: "A turn ends when the model answers with text and no tool call").
 */
import { mcpToolName } from "../../contract";
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

export function call(tool: string, input: Record<string, unknown>, text?: string): Action {
  return { calls: [{ tool, input }], text };
}

export function endTurn(text: string): Action {
  return { calls: [], text };
}

/** DataServer's query tool name (contract.ts mcpToolName). */
export const QUERY_DATA = mcpToolName("DataServer", "query_data");
export const LIST_DOCUMENTS = mcpToolName("DocsServer", "list_documents");
export const READ_FILE = mcpToolName("DocsServer", "read_file");
