/**
 * The names of agents that exist only in a watched AutoGen stream (docs/adapters.md "Watching a
 * running team live"): the team, `agent:autogen`, and each AgentChat `source`,
 * `agent:autogen-<source>`, are in no directory, so the run view would show them by id
 * (`autogen-assistant`). The channel shows them by the names Clutch gave them on their events
 * ("AutoGen · assistant", lib/autogen-name.ts; components/events/participant.ts `isAutogen`); the
 * run view reads the same names from the run's events and names them alike.
 */
import type { Participant, StoredEvent } from "@/lib/protocol";
import { isAutogen } from "@/components/events/participant";

/**
 * Each AutoGen agent of the run by id, with the name its first `n` events give it ("AutoGen ·
 * assistant"). `n` (default: all) lets a caller whose list only grows say how much it holds now.
 */
export function autogenNamesOf(events: readonly StoredEvent[], n = events.length): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const ev = events[i]!;
    if (isAutogen(ev.from) && !names.has(ev.from.agent_id)) names.set(ev.from.agent_id, ev.from.display_name!.trim());
  }
  return names;
}

/** `nameOf`, except that the run's AutoGen agents are named as their events name them (by id or as a sender). */
export function withAutogenNames<W extends Participant | string>(nameOf: (who: W) => string, names: ReadonlyMap<string, string>): (who: W) => string {
  if (names.size === 0) return nameOf;
  return (who: W) => names.get(typeof who === "string" ? who : who.agent_id) ?? nameOf(who);
}
