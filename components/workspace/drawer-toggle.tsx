/**
 * The header button that opens the channel list on narrow screens (hidden from md up). Every
 * page header starts with it.
 */
"use client";

import { MenuIcon } from "@/components/ui/icons";
import { useWorkspace } from "./workspace-context";

export function DrawerToggle() {
  const { openDrawer } = useWorkspace();
  return (
    <button
      type="button"
      onClick={openDrawer}
      aria-label="Open channel list"
      className="inline-flex h-8 w-8 shrink-0 items-center justify-center rounded-md text-fg-muted hover:bg-hover hover:text-fg md:hidden"
    >
      <MenuIcon size={18} />
    </button>
  );
}
