"use client";
/**
 * `SettingsDialog`: the signed-in person's account (docs/identity.md): who they are (name, email,
 * role), the theme, changing the password (better-auth's POST /api/auth/change-password, which
 * also signs out every other browser), API keys for scripts (/settings/keys), the admin pages for
 * admins, and signing out (POST /api/auth/sign-out).
 */
import Link from "next/link";
import { useId, useState } from "react";
import { useMe } from "@/components/identity/me";
import { useTheme, type ThemeChoice } from "@/components/prefs/theme";
import { Button, inputClass } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** The account and settings dialog. */
export function SettingsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const me = useMe();
  return (
    <Dialog open={open} onClose={onClose} title="Your account" description={`${me.name} · ${me.email} · ${ROLE_LABEL[me.role]}`} className="max-w-md">
      {open && <AccountPanel onClose={onClose} />}
    </Dialog>
  );
}

export const ROLE_LABEL = { admin: "Admin", member: "Member", guest: "Guest" } as const;

const THEMES: { value: ThemeChoice; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

/** Sign out, then load the sign-in page in full (no workspace state stays in memory). */
export async function signOut(): Promise<void> {
  await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch(() => {});
  window.location.assign("/sign-in");
}

function AccountPanel({ onClose }: { onClose: () => void }) {
  const me = useMe();
  const { choice, setChoice } = useTheme();
  return (
    <div className="px-5 pb-5 pt-3">
      <fieldset>
        <legend className="mb-1.5 text-[13px] font-semibold">Theme</legend>
        <div className="inline-flex rounded-lg border border-line bg-sunken p-0.5">
          {THEMES.map((t) => (
            <label
              key={t.value}
              className={`cursor-pointer rounded-md px-3 py-1 text-[13px] font-medium has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-accent ${
                choice === t.value ? "bg-surface text-fg shadow-sm" : "text-fg-muted hover:text-fg"
              }`}
            >
              <input type="radio" name="theme" value={t.value} checked={choice === t.value} onChange={() => setChoice(t.value)} className="sr-only" />
              {t.label}
            </label>
          ))}
        </div>
      </fieldset>

      <ChangePassword />

      <nav aria-label="Account" className="mt-5 flex flex-wrap gap-x-4 gap-y-1 text-[13px] font-medium">
        <Link href="/settings/keys" onClick={onClose} className="text-accent hover:underline">
          API keys
        </Link>
        {me.role === "admin" && (
          <Link href="/admin" onClick={onClose} className="text-accent hover:underline">
            Admin: people, invites, keys, agents
          </Link>
        )}
      </nav>

      <div className="mt-5 flex justify-between gap-2">
        <Button onClick={() => void signOut()}>Sign out</Button>
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      </div>
    </div>
  );
}

function ChangePassword() {
  const [state, setState] = useState<{ kind: "idle" | "busy" | "done" } | { kind: "error"; message: string }>({ kind: "idle" });
  const current = useId();
  const next = useId();
  return (
    <form
      className="mt-5 border-t border-line pt-4"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const data = new FormData(form);
        setState({ kind: "busy" });
        const res = await fetch("/api/auth/change-password", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ currentPassword: data.get("current"), newPassword: data.get("new"), revokeOtherSessions: true }),
        }).catch(() => null);
        if (res?.ok) {
          form.reset();
          setState({ kind: "done" });
          return;
        }
        const body = (await res?.json().catch(() => null)) as { message?: string } | null;
        setState({ kind: "error", message: res?.status === 400 && body?.message ? body.message : res ? "The current password is not right." : "Clutch cannot be reached." });
      }}
    >
      <h3 className="mb-2 text-[13px] font-semibold">Change password</h3>
      <label htmlFor={current} className="mb-1 block text-xs text-fg-muted">
        Current password
      </label>
      <input id={current} name="current" type="password" required autoComplete="current-password" className={inputClass} />
      <label htmlFor={next} className="mb-1 mt-2 block text-xs text-fg-muted">
        New password (at least 10 characters)
      </label>
      <input id={next} name="new" type="password" required minLength={10} maxLength={128} autoComplete="new-password" className={inputClass} />
      <div className="mt-2 flex items-center gap-3">
        <Button type="submit" disabled={state.kind === "busy"}>
          {state.kind === "busy" ? "Changing…" : "Change password"}
        </Button>
        <p role="status" className={`text-xs ${state.kind === "error" ? "font-medium text-danger" : "text-fg-muted"}`}>
          {state.kind === "done" ? "Changed. Other browsers are signed out." : state.kind === "error" ? state.message : ""}
        </p>
      </div>
    </form>
  );
}
