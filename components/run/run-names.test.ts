/**
 * The run view names an AutoGen stream's agents (run-names.ts) as the channel does: by the names
 * their events carry ("AutoGen · assistant", lib/autogen-name.ts), not by id; other agents and
 * people as the wrapped `nameOf` names them, and a sender that only claims an AutoGen name is not
 * taken for one.
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type Participant, type StoredEvent } from "@/lib/protocol";
import { autogenName } from "@/lib/autogen-name";
import { bareId } from "@/components/events/participant";
import { autogenNamesOf, withAutogenNames } from "./run-names";

const stored = (m: ReturnType<typeof makeMessage>, seq: number): StoredEvent => ({ ...m, seq, stored_at: m.ts }) as StoredEvent;
const at = { thread_id: "thr_1", run_id: "run_1", task_id: "task_1" };
const said = (from: Participant, seq: number) => stored(makeMessage({ type: "chat.message", ...at, from, to: [], payload: { text: "In endless blue…" } }), seq);
const CARDS: Record<string, string> = { "agent:pm-1": "Project Manager" };
/** As `useNameOf` names ids: an agent by its card, anyone else by the bare id. */
const nameOf = (who: Participant | string) => {
  const id = typeof who === "string" ? who : who.agent_id;
  return CARDS[id] ?? bareId(id);
};

describe("the run view's names of AutoGen-stream agents", () => {
  const team = { agent_id: "agent:autogen", role: "worker" as const, display_name: autogenName("Poets") };
  const assistant = { agent_id: "agent:autogen-assistant", role: "worker" as const, display_name: autogenName("assistant") };
  const events = [
    said(team, 1),
    said(assistant, 2),
    said({ agent_id: "agent:pm-1", role: "worker", display_name: "Project Manager" }, 3),
    // Not an AutoGen agent: an id outside agent:autogen… keeps its own name whatever it claims.
    said({ agent_id: "agent:mallory", role: "worker", display_name: autogenName("pm-1") }, 4),
  ];

  it("reads each AutoGen agent's name from the run's events", () => {
    expect(autogenNamesOf(events)).toEqual(new Map([["agent:autogen", "AutoGen · Poets"], ["agent:autogen-assistant", "AutoGen · assistant"]]));
    expect(autogenNamesOf([]).size).toBe(0);
    // Of a list that grows in place, only what it held then: the first n events.
    expect(autogenNamesOf(events, 1)).toEqual(new Map([["agent:autogen", "AutoGen · Poets"]]));
  });

  it("names them so by id (a task's assignee) and as senders; everyone else as before", () => {
    const name = withAutogenNames(nameOf, autogenNamesOf(events));
    expect(name("agent:autogen-assistant")).toBe("AutoGen · assistant");
    expect(name("agent:autogen")).toBe("AutoGen · Poets");
    expect(name(assistant)).toBe("AutoGen · assistant");
    expect(name("agent:pm-1")).toBe("Project Manager");
    expect(name("agent:mallory")).toBe("mallory");
    expect(name("user:dana")).toBe("dana");
    // An AutoGen agent the run's events do not name yet keeps the wrapped name.
    expect(name("agent:autogen-critic")).toBe("autogen-critic");
  });
});
