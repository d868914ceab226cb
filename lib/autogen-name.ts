/**
 * How Clutch shows the agents of a running AutoGen team (docs/adapters.md "AutoGen",
 * docs/identity.md "Names are unique"): `AutoGen · <source>` for each AgentChat `source`, and
 * `AutoGen · <team label>` for the team, so an AutoGen message never reads as the words of a
 * Clutch agent or a person of the same name (an AutoGen `source: "pm-1"` beside the workspace's
 * pm-1). Names that begin this way are Clutch's to give: no person or agent may take one
 * (server/auth/names.ts). Shared by the server (server/adapters/autogen/) and the browser.
 */

/** What every AutoGen agent's shown name begins with. */
export const AUTOGEN_NAME_PREFIX = "AutoGen · ";

/** The name an AutoGen agent or team is shown by: `autogenName("pm-1")` → "AutoGen · pm-1". */
export function autogenName(name: string): string {
  return `${AUTOGEN_NAME_PREFIX}${name}`;
}

/** True for a name Clutch gave an AutoGen agent or team (see `autogenName`). */
export function isAutogenName(name: string | undefined): boolean {
  return typeof name === "string" && name.startsWith(AUTOGEN_NAME_PREFIX);
}

/** The AutoGen name without its prefix (the team's label, the source), or the name as it is. */
export function autogenLabel(name: string): string {
  return isAutogenName(name) ? name.slice(AUTOGEN_NAME_PREFIX.length) : name;
}
