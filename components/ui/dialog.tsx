"use client";
/**
 * `Dialog`: a modal on the native <dialog> element (focus trap, Escape, top layer and the
 * `dialog` role for free). Closes on Escape, on a click on the backdrop and via `onClose`.
 */
import { useEffect, useId, useRef, type ReactNode } from "react";
import { CloseIcon } from "./icons";

/** A modal dialog labelled by `title` (role dialog, Escape and backdrop close it). */
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  className = "",
  position = "center",
  hideTitle = false,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: string;
  children: ReactNode;
  className?: string;
  /** "top" for command palettes. */
  position?: "center" | "top";
  hideTitle?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descId = useId();

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descId : undefined}
      onCancel={(e) => {
        e.preventDefault();
        e.stopPropagation(); // a dialog opened from another closes alone
        onClose();
      }}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
      className={`m-0 max-h-none max-w-none bg-transparent p-0 backdrop:bg-black/40 backdrop:backdrop-blur-[1px] open:flex h-dvh w-screen ${
        position === "top" ? "items-start pt-[12vh]" : "items-center"
      } justify-center px-3`}
    >
      {open && (
        <div
          className={`relative w-full animate-pop-in rounded-xl border border-line bg-surface text-fg shadow-pop ${className}`}
        >
          <div className={hideTitle ? "sr-only" : "flex items-start justify-between gap-4 px-5 pt-4"}>
            <div>
              <h2 id={titleId} className="text-base font-semibold">
                {title}
              </h2>
              {description && (
                <p id={descId} className="mt-0.5 text-[13px] text-fg-muted">
                  {description}
                </p>
              )}
            </div>
            {!hideTitle && (
              <button
                type="button"
                onClick={onClose}
                aria-label="Close"
                className="-mr-1.5 rounded-md p-1 text-fg-muted hover:bg-hover hover:text-fg"
              >
                <CloseIcon />
              </button>
            )}
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}
