/**
 * `PresenceDot`: a person's presence on their avatar (docs/channels.md "Presence"): a filled
 * green dot while online, a hollow grey ring while away or offline. It is an image named
 * "Online" or "Offline", so screen readers say it beside the name; `decorative` hides it from
 * them where the text beside it says the presence already (a link's name: "Ada, online").
 *
 *   <span className="relative inline-flex"><Avatar … /><PresenceDot online={isOnline(id)} /></span>
 */
export function PresenceDot({
  online,
  size = 10,
  decorative = false,
  className = "absolute -bottom-0.5 -right-0.5",
}: {
  online: boolean;
  size?: number;
  decorative?: boolean;
  className?: string;
}) {
  return (
    <span
      {...(decorative ? { "aria-hidden": true } : { role: "img", "aria-label": online ? "Online" : "Offline" })}
      title={online ? "Online" : "Away or offline"}
      data-presence={online ? "online" : "offline"}
      className={`inline-block shrink-0 rounded-full border-2 ${online ? "border-canvas bg-success" : "border-fg-subtle bg-canvas"} ${className}`}
      style={{ width: size, height: size }}
    />
  );
}

/** A person's avatar with their presence dot. */
export function AvatarWithPresence({ children, online, dot = 10, decorative = false }: { children: React.ReactNode; online: boolean; dot?: number; decorative?: boolean }) {
  return (
    <span className="relative inline-flex shrink-0">
      {children}
      <PresenceDot online={online} size={dot} decorative={decorative} />
    </span>
  );
}
