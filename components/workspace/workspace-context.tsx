"use client";
/**
 * What the workspace shell lets any screen open: the mobile channel drawer, the Ctrl/Cmd+K
 * switcher, the new-channel dialog and the settings dialog.
 */
import { createContext, useContext } from "react";

/** Dialogs and the drawer any screen may open. */
export interface WorkspaceActions {
  openDrawer(): void;
  openSwitcher(): void;
  openNewChannel(): void;
  openSettings(): void;
}

const noop = () => {};
/** Provided by WorkspaceShell. */
export const WorkspaceContext = createContext<WorkspaceActions>({
  openDrawer: noop,
  openSwitcher: noop,
  openNewChannel: noop,
  openSettings: noop,
});

/** The shell's actions (no-ops outside the shell). */
export function useWorkspace(): WorkspaceActions {
  return useContext(WorkspaceContext);
}
