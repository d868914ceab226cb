/**
 * `/agents` and `/agents/:agent_id`: the agent directory. The layout holds the live,
 * searchable list, so it keeps its filter and scroll while a person moves between agents; the
 * pages fill the other side.
 */
import type { ReactNode } from "react";
import { AgentDirectory } from "@/components/agents/directory";

export default function AgentsLayout({ children }: { children: ReactNode }) {
  return <AgentDirectory>{children}</AgentDirectory>;
}
