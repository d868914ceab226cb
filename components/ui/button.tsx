/**
 * Button styles shared by dialogs and the composer. `variant` picks the look.
 */
import type { ButtonHTMLAttributes } from "react";

const VARIANTS = {
  primary: "bg-accent text-accent-fg hover:brightness-110 disabled:opacity-50",
  secondary: "border border-line bg-surface text-fg hover:bg-hover disabled:opacity-50",
  ghost: "text-fg-muted hover:bg-hover hover:text-fg disabled:opacity-50",
  /** An action that takes something away (deactivating a person), once confirmed. */
  danger: "bg-danger text-white hover:brightness-110 disabled:opacity-50",
} as const;

/** A button in one of four looks; `type="button"` unless given. */
export function Button({
  variant = "secondary",
  className = "",
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof VARIANTS }) {
  return (
    <button
      type="button"
      className={`inline-flex h-8 items-center justify-center gap-1.5 rounded-md px-3 text-[13px] font-medium transition-colors disabled:cursor-not-allowed ${VARIANTS[variant]} ${className}`}
      {...rest}
    />
  );
}

/** Input styles for text fields. */
export const inputClass =
  "h-9 w-full rounded-md border border-line-strong bg-canvas px-2.5 text-[14px] text-fg placeholder:text-fg-subtle focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/25";
