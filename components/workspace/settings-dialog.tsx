"use client";
/**
 * `SettingsDialog`: the person's display name (sent as `display_name` with their messages) and
 * the theme choice (light or dark).
 */
import { useId, useState } from "react";
import { useDisplayName } from "@/components/prefs/display-name";
import { useTheme, type ThemeChoice } from "@/components/prefs/theme";
import { Button, inputClass } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** The settings dialog: display name and theme. */
export function SettingsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Settings" description="Saved in this browser." className="max-w-md">
      {open && <SettingsForm onClose={onClose} />}
    </Dialog>
  );
}

const THEMES: { value: ThemeChoice; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

function SettingsForm({ onClose }: { onClose: () => void }) {
  const [saved, setSaved] = useDisplayName();
  const [name, setName] = useState(saved);
  const { choice, setChoice } = useTheme();
  const nameId = useId();
  return (
    <form
      className="px-5 pb-5 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(name.trim().slice(0, 80));
        onClose();
      }}
    >
      <label htmlFor={nameId} className="mb-1 block text-[13px] font-semibold">
        Display name
      </label>
      <input
        id={nameId}
        autoFocus
        value={name}
        maxLength={80}
        onChange={(e) => setName(e.target.value)}
        placeholder="How people and agents see you"
        className={inputClass}
      />
      <p className="mt-1 text-xs text-fg-muted">Shown with every message you send.</p>

      <fieldset className="mt-4">
        <legend className="mb-1.5 text-[13px] font-semibold">Theme</legend>
        <div className="inline-flex rounded-lg border border-line bg-sunken p-0.5">
          {THEMES.map((t) => (
            <label
              key={t.value}
              className={`cursor-pointer rounded-md px-3 py-1 text-[13px] font-medium has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-accent ${
                choice === t.value ? "bg-surface text-fg shadow-sm" : "text-fg-muted hover:text-fg"
              }`}
            >
              <input
                type="radio"
                name="theme"
                value={t.value}
                checked={choice === t.value}
                onChange={() => setChoice(t.value)}
                className="sr-only"
              />
              {t.label}
            </label>
          ))}
        </div>
      </fieldset>

      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary">
          Save
        </Button>
      </div>
    </form>
  );
}
