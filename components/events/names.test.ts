/**
 * One name and one avatar per agent (docs/channels.md "Threads"): `agentName` reads the card's
 * display name, Clutch's senders are "Clutch", and `initials` gives the same letters for a
 * sender wherever its display name is drawn.
 */
import { describe, expect, it } from "vitest";
import type { AgentSummary } from "@/lib/api/types";
import { initials } from "@/components/ui/avatar";
import { subjectLabel } from "./approval-model";
import { distinctNames } from "./participant";
import { agentName } from "./use-sender-name";

const agents = [{ agent_id: "agent:pm-1", name: "PM Agent" }, { agent_id: "agent:analyst-1", name: "  " }] as AgentSummary[];

describe("agent names", () => {
  it("names an agent by its card, matched by full or bare id", () => {
    expect(agentName(agents, "agent:pm-1")).toBe("PM Agent");
    expect(agentName(agents, "pm-1")).toBe("PM Agent");
  });
  it("falls back to the bare id for an unknown agent or a blank name", () => {
    expect(agentName(agents, "agent:ken")).toBe("ken");
    expect(agentName(agents, "agent:analyst-1")).toBe("analyst-1");
    expect(agentName(undefined, "agent:pm-1")).toBe("pm-1");
  });
  it("names Clutch's own senders Clutch", () => {
    expect(agentName(agents, "agent:orchestrator")).toBe("Clutch");
    expect(agentName(agents, "agent:policy")).toBe("Clutch");
  });
  it("names the agents of an approval's subject with the given names", () => {
    const name = (id: string) => agentName(agents, id);
    expect(subjectLabel({ kind: "tool_call", agent: "agent:pm-1", tool: "reply", recipient: "user" }, name)).toBe("PM Agent → reply to people");
  });
});

describe("several agents named together", () => {
  const cards = [
    { agent_id: "agent:pm-1", name: "Project Manager" },
    { agent_id: "agent:analyst-1", name: "Analyst" },
    { agent_id: "agent:analyst-2", name: "analyst" },
  ] as AgentSummary[];
  const name = (id: string) => agentName(cards, id);
  it("reads each by its card's name, the handle only beside a name another one shares", () => {
    expect([...distinctNames(["agent:pm-1", "agent:analyst-1", "agent:analyst-2"], name).values()]).toEqual([
      "Project Manager",
      "Analyst (analyst-1)",
      "analyst (analyst-2)",
    ]);
    expect([...distinctNames(["agent:pm-1", "agent:analyst-1"], name).values()]).toEqual(["Project Manager", "Analyst"]);
  });
  it("names an id listed twice once, and an unknown agent by its bare id", () => {
    expect([...distinctNames(["agent:ken", "agent:ken"], name)]).toEqual([["agent:ken", "ken"]]);
  });
});

describe("initials", () => {
  it("are the same for a display name wherever it is drawn", () => {
    expect(initials("PM Agent")).toBe("PM");
    expect(initials("Research Agent")).toBe("RE");
    expect(initials("Ada Lovelace")).toBe("AL");
    expect(initials("ken")).toBe("KE");
    expect(initials("Agent")).toBe("AG");
    expect(initials("Clutch")).toBe("CL");
  });
});
