"use client";
/**
 * `MenuButton`: a button that opens a menu of actions, following the WAI-ARIA menu button
 * pattern: the button says it has a menu (`aria-haspopup`, `aria-expanded`, `aria-controls`);
 * the menu (`role="menu"`, in a Popover) holds `menuitem`s; opening it focuses the first item
 * (↑ on the button: the last); ↑/↓ move round the items, Home/End go to the ends, a letter goes
 * to the next item starting with it; Enter or Space chooses; Escape and Tab close it, back on
 * its button. Choosing an item closes the menu, gives the focus back to the button, then runs the
 * item (which may move the focus on: an editor, a dialog).
 */
import { useId, useRef, useState, type ButtonHTMLAttributes, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { Popover } from "./popover";

/** One action of a menu. */
export interface MenuItem {
  /** A stable key, and what the item says. */
  label: string;
  icon?: ReactNode;
  /** Drawn in the danger colour (delete). */
  danger?: boolean;
  onSelect(): void;
}

/** A button with a menu (see the file comment). `buttonProps` go on the button (its look, tabIndex, focus handlers). */
export function MenuButton({
  label,
  title,
  children,
  items,
  onOpenChange,
  buttonProps,
  buttonRef,
}: {
  /** The button's and the menu's accessible name. */
  label: string;
  /** The button's tooltip. */
  title?: string;
  /** The button's content (an icon). */
  children: ReactNode;
  items: readonly MenuItem[];
  onOpenChange?: (open: boolean) => void;
  buttonProps?: ButtonHTMLAttributes<HTMLButtonElement>;
  /** The button, for a caller that moves the focus to it. */
  buttonRef?: RefObject<HTMLButtonElement | null>;
}) {
  const [open, setOpenState] = useState(false);
  const ownButton = useRef<HTMLButtonElement | null>(null);
  const button = buttonRef ?? ownButton;
  const first = useRef<HTMLButtonElement>(null);
  const last = useRef<HTMLButtonElement>(null);
  const [fromEnd, setFromEnd] = useState(false);
  const menuId = useId();
  const setOpen = (next: boolean) => {
    setOpenState(next);
    onOpenChange?.(next);
  };

  const onMenuKey = (e: KeyboardEvent<HTMLElement>) => {
    const list = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="menuitem"]')];
    const i = list.indexOf(document.activeElement as HTMLElement);
    let next: HTMLElement | undefined;
    if (e.key === "ArrowDown") next = list[(i + 1) % list.length];
    else if (e.key === "ArrowUp") next = list[(i - 1 + list.length) % list.length];
    else if (e.key === "Home") next = list[0];
    else if (e.key === "End") next = list[list.length - 1];
    else if (e.key === "Tab") {
      // Out of the menu, back on its button (the menu is drawn at the end of the page).
      e.preventDefault();
      setOpen(false);
      button.current?.focus({ preventScroll: true });
      return;
    } else if (e.key.length === 1 && /\S/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      const k = e.key.toLowerCase();
      next = [...list.slice(i + 1), ...list.slice(0, i + 1)].find((el) => el.textContent?.trim().toLowerCase().startsWith(k));
    }
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };

  return (
    <>
      <button
        {...buttonProps}
        ref={button}
        type="button"
        aria-label={label}
        title={title ?? label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => {
          setFromEnd(false);
          setOpen(!open);
        }}
        onKeyDown={(e) => {
          buttonProps?.onKeyDown?.(e);
          if (e.defaultPrevented) return;
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            setFromEnd(e.key === "ArrowUp");
            setOpen(true);
          }
        }}
      >
        {children}
      </button>
      <Popover
        id={menuId}
        anchor={button}
        open={open}
        onClose={() => setOpen(false)}
        label={label}
        role="menu"
        initialFocus={fromEnd ? last : first}
        onKeyDown={onMenuKey}
        className="min-w-[12rem] py-1"
      >
        {items.map((item, i) => (
          <button
            key={item.label}
            ref={i === 0 ? first : i === items.length - 1 ? last : undefined}
            type="button"
            role="menuitem"
            tabIndex={-1}
            onClick={() => {
              setOpen(false);
              button.current?.focus({ preventScroll: true });
              item.onSelect();
            }}
            className={`flex w-full items-center gap-2 px-3 py-1.5 text-left text-[13px] hover:bg-accent hover:text-accent-fg focus:bg-accent focus:text-accent-fg focus:outline-none ${
              item.danger ? "text-danger" : "text-fg"
            }`}
          >
            <span aria-hidden="true" className="inline-flex w-4 shrink-0 justify-center">
              {item.icon}
            </span>
            {item.label}
          </button>
        ))}
      </Popover>
    </>
  );
}
