/**
 * `/agents/:agent_id`: one agent's AgentCard (Clutch Protocol §1.4) in the directory. The id is
 * URL-encoded (`/agents/agent%3Aanalyst-1`).
 */
import type { Metadata } from "next";
import { AgentDetail } from "@/components/agents/agent-detail";

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

type Params = { params: Promise<{ agent_id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const id = decode((await params).agent_id);
  return { title: `${id.replace(/^agent:/, "")} · Agents · Clutch` };
}

export default async function AgentPage({ params }: Params) {
  const id = decode((await params).agent_id);
  return <AgentDetail key={id} agentId={id} />;
}
