/**
 * `Avatar`: initials on a colour stable per sender. Agents get a
 * squarer tile with a small bot badge so people and agents are told apart at a glance.
 */
import { BotIcon } from "./icons";

/** A sender's avatar: initials on a stable colour; agents square with a bot badge. */
export function Avatar({
  name,
  hue,
  agent,
  size = 36,
}: {
  name: string;
  /** 0–360. */
  hue: number;
  agent: boolean;
  size?: number;
}) {
  const letters = initials(name);
  return (
    <span
      aria-hidden="true"
      className={`relative inline-flex shrink-0 select-none items-center justify-center font-semibold text-white ${
        agent ? "rounded-[9px]" : "rounded-full"
      }`}
      style={{
        width: size,
        height: size,
        fontSize: size * 0.38,
        // OKLCH keeps the lightness the same for every hue, so the white initials read on all
        // of them (at least 4.5:1; hsl's yellows and greens were too light).
        background: agent
          ? `linear-gradient(135deg, oklch(0.52 0.14 ${hue}), oklch(0.44 0.14 ${(hue + 40) % 360}))`
          : `oklch(0.5 0.13 ${hue})`,
      }}
    >
      {letters}
      {agent && (
        <span className="absolute -bottom-1 -right-1 inline-flex h-[15px] w-[15px] items-center justify-center rounded-[5px] border-2 border-canvas bg-agent text-white">
          <BotIcon size={9} strokeWidth={2.5} />
        </span>
      )}
    </span>
  );
}

/** A trailing word that names what every agent is, not which one: "PM Agent" is initialled "PM". */
const GENERIC = new Set(["agent", "bot", "assistant"]);

/**
 * One or two letters for an avatar, the same for a sender wherever it is drawn (always pass the
 * display name, never the id): "Ada Lovelace" → "AL", "ken" → "KE", "PM Agent" → "PM",
 * "Research Agent" → "RE".
 */
export function initials(name: string): string {
  const all = name
    .replace(/[^\p{L}\p{N}\s_-]/gu, " ")
    .split(/[\s_-]+/)
    .filter(Boolean);
  const words = all.length > 1 && GENERIC.has(all[all.length - 1].toLowerCase()) ? all.slice(0, -1) : all;
  if (words.length === 0) return "?";
  if (words.length === 1) return words[0].slice(0, 2).toUpperCase();
  return (words[0][0] + words[1][0]).toUpperCase();
}
