/**
 * Names people see are unique across people and agents (docs/identity.md "Names are unique";
 * Clutch Protocol §6: nobody shows up as someone else). One rule for every door that sets a name:
 * the first-run setup and invite sign-ups (`Identity.signUp`), a profile rename (better-auth's
 * `/api/auth/update-user`, through `databaseHooks.user.update.before` in server/auth/auth.ts), an
 * external agent's AgentCard (`POST /api/agents`: server/router/registration.ts; an
 * `agent.register` / `agent.update` event: server/auth/authorize-append.ts).
 *
 * Taken names, compared by `nameKey` (Unicode NFKC, invisible format characters dropped, spaces
 * trimmed and collapsed, lower case, a leading `@` or `agent:` dropped, so "PM-1", "agent:pm-1"
 * and "@pm-1" are one name):
 * - every agent the registry knows (the workspace's own, which are the reference names, and the
 *   external ones): its id without `agent:` (its handle) and its card's `display.name`;
 * - every person with an account (deactivated people too: their messages keep their name);
 * - Clutch's own: "Clutch" and the handles of its senders (lib/clutch-senders.ts), and every name
 *   whose first word is AutoGen ("AutoGen · pm-1" is how Clutch shows an AutoGen agent,
 *   lib/autogen-name.ts; `agent:autogen-pm-1` its id);
 * - names claimed a moment ago whose write has not landed yet (`claim`).
 *
 * Keeping one's own name is always fine: the one who sets it (`self`, its `user:<id>` or
 * `agent:<id>`) is not compared with itself. Workspace agents loaded from the workspace folder
 * are not checked (they are Clutch's own; two of them may clash as before).
 *
 * A check and its reservation are one synchronous step after the people are read, so two
 * requests of one node that claim the same name at once cannot both pass; the reservation lasts
 * until the caller's write is done (`release`) or CLAIM_MS. Other nodes see a person's name once it
 * is stored and an agent's once its card reaches their registry through the log.
 *
 * Refusal: ClutchError `name_taken` (409) saying whose the name is, e.g. "“Project Manager” is the
 * name of agent pm-1; choose another name".
 */
import { CLUTCH_SENDERS } from "@/lib/clutch-senders";
import type { AgentCard } from "@/lib/protocol";
import type { Db } from "../db/client";
import { ClutchError } from "../errors";

/** How long a claimed name stays reserved for its claimant when nobody releases it (ms). */
export const CLAIM_MS = 60_000;

/**
 * The form names are compared in: NFKC, without invisible format characters (zero-width spaces,
 * joiners, direction marks), spaces trimmed and collapsed, lower case, without a leading `@` or
 * `agent:`. `nameKey(" Project   MANAGER ")` = `nameKey("project manager")`; `nameKey("agent:PM-1")` = "pm-1".
 */
export function nameKey(name: string): string {
  return tidyName(name)
    .toLowerCase()
    .replace(/^@\s*/, "")
    .replace(/^agent:\s*/, "")
    .trim();
}

/** The name as a person reads it back in a refusal: NFKC, invisible characters dropped, spaces trimmed and collapsed. */
function tidyName(name: string): string {
  return name.normalize("NFKC").replace(/\p{Cf}/gu, "").replace(/\s+/g, " ").trim();
}

/** Whose a name is: a person (`label`: their name), an agent (`label`: its handle), Clutch itself, or AutoGen's agents. */
export interface NameHolder {
  kind: "person" | "agent" | "clutch" | "autogen";
  /** `user:<id>` or `agent:<id>`; "system" for Clutch, "autogen" for AutoGen's agents. */
  id: string;
  label: string;
}

/** "person Ada", "agent pm-1", …: whose a name is, for a refusal. */
function whose(h: NameHolder): string {
  if (h.kind === "person") return `person ${h.label}`;
  if (h.kind === "agent") return `agent ${h.label}`;
  if (h.kind === "clutch") return "Clutch itself";
  return "AutoGen's agents (names beginning with AutoGen are how Clutch shows the agents of an AutoGen team)";
}

/** The refusal of `shown` (as given) held by `h`. */
export function nameTaken(shown: string, h: NameHolder): ClutchError {
  return new ClutchError("name_taken", `“${tidyName(shown)}” is the name of ${whose(h)}; choose another name`, 409);
}

const bare = (agent_id: string) => agent_id.replace(/^agent:/, "");
const CLUTCH_KEYS = new Set(["clutch", ...[...CLUTCH_SENDERS].map((id) => nameKey(bare(id)))]);
/** "AutoGen", "AutoGen · pm-1", "autogen-pm-1" (the ids AutoGen's agents are given): the word AutoGen first. */
const AUTOGEN_NAMES = /^autogen(?![\p{L}\p{N}])/u;

/** One claim: who made it, what they will be called, the keys it holds, until when. */
interface Claim {
  holder: NameHolder;
  keys: string[];
  until: number;
}

/** An agent as the names rule reads it (the registry's entries). */
export interface NamedAgent {
  agent_id: string;
  card: AgentCard;
}

export class Names {
  /** Claims whose write may not have landed yet, by claimant id (one each: a new claim replaces the last). */
  private readonly claims = new Map<string, Claim>();

  /**
   * `db`: the people (`users`); `agents()`: every agent the registry knows (workspace and
   * external), read at each check.
   */
  constructor(
    private readonly db: Db,
    private readonly agents: () => Iterable<NamedAgent> = () => [],
  ) {}

  /**
   * Who else holds `name` (module doc), or null when it is free for `self` (the ids of the one
   * setting it: its own names never count against it). Reads the people once.
   */
  async holderOf(name: string, self: readonly string[] = []): Promise<NameHolder | null> {
    const people = await this.people();
    return this.find(nameKey(name), people, new Set(self));
  }

  /**
   * Check `names` (undefined and blank ones are skipped) for `claimant` and reserve them until
   * `release()` is called or CLAIM_MS pass. `claimant.id` is its `user:<id>` / `agent:<id>` (or
   * a one-off id for someone who has none yet); `self` adds the ids whose names it may keep.
   * Throws ClutchError name_taken (409), naming whose the first taken name is; nothing is
   * reserved then.
   */
  async claim(names: readonly (string | undefined)[], claimant: NameHolder, self: readonly string[] = []): Promise<() => void> {
    const wanted = names.filter((n): n is string => typeof n === "string" && nameKey(n) !== "").map((shown) => ({ shown, key: nameKey(shown) }));
    if (!wanted.length) return () => {};
    const people = await this.people();
    // From here on synchronous: the check and the reservation are one step.
    const mine = new Set([claimant.id, ...self]);
    for (const w of wanted) {
      const holder = this.find(w.key, people, mine);
      if (holder) throw nameTaken(w.shown, holder);
    }
    const claim: Claim = { holder: claimant, keys: wanted.map((w) => w.key), until: Date.now() + CLAIM_MS };
    this.claims.set(claimant.id, claim);
    return () => {
      if (this.claims.get(claimant.id) === claim) this.claims.delete(claimant.id);
    };
  }

  /**
   * Check and reserve the names an AgentCard brings (module doc): for an agent not registered
   * yet (`current` undefined) its handle (id without `agent:`) and `display.name`; for one
   * registered, its `display.name` only when it changes (a re-registration keeping its name is
   * fine). `self`: more ids whose names it may keep (the principal registering itself). Returns
   * `release`; throws ClutchError name_taken (409).
   */
  async claimCard(card: Pick<AgentCard, "agent_id" | "display">, current: Pick<AgentCard, "display"> | undefined, self: readonly string[] = []): Promise<() => void> {
    const names = current ? (nameKey(current.display.name) === nameKey(card.display.name) ? [] : [card.display.name]) : [card.agent_id.startsWith("agent:") ? bare(card.agent_id) : undefined, card.display.name];
    return this.claim(names, { kind: "agent", id: card.agent_id, label: bare(card.agent_id) }, self);
  }

  private async people(): Promise<{ id: string; name: string }[]> {
    return this.db.user.findMany({ select: { id: true, name: true } });
  }

  private find(key: string, people: { id: string; name: string }[], self: ReadonlySet<string>): NameHolder | null {
    if (!key) return null;
    if (CLUTCH_KEYS.has(key)) return { kind: "clutch", id: "system", label: "Clutch" };
    if (AUTOGEN_NAMES.test(key)) return { kind: "autogen", id: "autogen", label: "AutoGen" };
    for (const a of this.agents()) {
      if (self.has(a.agent_id)) continue;
      if (nameKey(bare(a.agent_id)) === key || nameKey(a.card.display.name) === key) return { kind: "agent", id: a.agent_id, label: bare(a.agent_id) };
    }
    for (const p of people) {
      if (self.has(`user:${p.id}`)) continue;
      if (nameKey(p.name) === key) return { kind: "person", id: `user:${p.id}`, label: p.name };
    }
    const now = Date.now();
    for (const [id, c] of this.claims) {
      if (c.until <= now) {
        this.claims.delete(id);
        continue;
      }
      if (!self.has(id) && c.keys.includes(key)) return c.holder;
    }
    return null;
  }
}
