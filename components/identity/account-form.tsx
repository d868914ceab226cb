"use client";
/**
 * `AccountForm`: the form of the signed-out pages (docs/identity.md): sign in (email, password),
 * first-run setup and invite sign-up (name, email, password). It posts JSON to `action` and, on
 * success, loads `next` (a path of this app) in full, so the server's door sees the new session
 * cookie (`next` is checked to be a path of this app first). The server's error message is shown under the form; a 429 says when to try again.
 */
import { useId, useState } from "react";
import { Button, inputClass } from "@/components/ui/button";

/** `next` when it is a path of this app (never another site), else "/". */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

/**
 * `primary`: the submit button is the page's main action (false beside "Sign in with <provider>",
 * which then comes first and the email field does not take the focus).
 */
export function AccountForm({ action, withName, submit, busy, next, minPassword = 10, primary = true }: { action: string; withName: boolean; submit: string; busy: string; next: string; minPassword?: number; primary?: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const ids = { name: useId(), email: useId(), password: useId(), error: useId() };

  return (
    <form
      className="space-y-4"
      aria-describedby={error ? ids.error : undefined}
      onSubmit={async (e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const body = Object.fromEntries(["name", "email", "password"].filter((k) => data.has(k)).map((k) => [k, String(data.get(k))]));
        setPending(true);
        setError(null);
        try {
          const res = await fetch(action, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
          if (res.ok) {
            window.location.assign(safeNext(next));
            return;
          }
          const answer = (await res.json().catch(() => null)) as { error?: { message?: string } | string; message?: string } | null;
          const message = typeof answer?.error === "object" ? answer.error.message : (answer?.message ?? (typeof answer?.error === "string" ? answer.error : null));
          if (res.status === 429) setError(message ? `${message[0]!.toUpperCase()}${message.slice(1)}.` : `Too many attempts. Try again in ${res.headers.get("retry-after") ?? "60"} seconds.`);
          else if (res.status === 401) setError("That email and password do not match an account.");
          else setError(message || `Something went wrong (${res.status}). Try again.`);
        } catch {
          setError("Clutch cannot be reached. Check your connection and try again.");
        } finally {
          setPending(false);
        }
      }}
    >
      {withName && (
        <div>
          <label htmlFor={ids.name} className="mb-1 block text-[13px] font-semibold">
            Your name
          </label>
          <input id={ids.name} name="name" required maxLength={80} autoComplete="name" autoFocus className={inputClass} />
        </div>
      )}
      <div>
        <label htmlFor={ids.email} className="mb-1 block text-[13px] font-semibold">
          Email
        </label>
        <input id={ids.email} name="email" type="email" required maxLength={254} autoComplete="email" autoFocus={!withName && primary} className={inputClass} />
      </div>
      <div>
        <label htmlFor={ids.password} className="mb-1 block text-[13px] font-semibold">
          Password
        </label>
        <input
          id={ids.password}
          name="password"
          type="password"
          required
          minLength={withName ? minPassword : undefined}
          maxLength={128}
          autoComplete={withName ? "new-password" : "current-password"}
          aria-describedby={withName ? `${ids.password}-hint` : undefined}
          className={inputClass}
        />
        {withName && (
          <p id={`${ids.password}-hint`} className="mt-1 text-xs text-fg-muted">
            At least {minPassword} characters.
          </p>
        )}
      </div>
      {error && (
        <p id={ids.error} role="alert" className="text-sm font-medium text-danger">
          {error}
        </p>
      )}
      <Button type="submit" variant={primary ? "primary" : "secondary"} disabled={pending} className="w-full justify-center">
        {pending ? busy : submit}
      </Button>
    </form>
  );
}
