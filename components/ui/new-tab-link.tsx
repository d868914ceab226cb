/**
 * `NewTabLink`: a link that opens in a new tab and says so: the external-link arrow for the eye
 * and "(opens in a new tab)" for screen readers (WCAG G201). Only such links carry the arrow;
 * links that open in the same tab (e.g. "Open run") do not.
 */
import type { AnchorHTMLAttributes, ReactNode } from "react";
import { ExternalLinkIcon } from "./icons";

/** An `<a target="_blank" rel="noopener noreferrer">` with the arrow and the spoken note; `arrow={false}` leaves the icon out (images). */
export function NewTabLink({ children, arrow = true, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { children: ReactNode; arrow?: boolean }) {
  return (
    <a {...rest} target="_blank" rel="noopener noreferrer">
      {children}
      {arrow && <ExternalLinkIcon size={11} className="ml-0.5 inline-block align-[-1px] opacity-70" />}
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}
