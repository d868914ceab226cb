"use client";
/**
 * `SsoButton`: "Sign in with <label>" on the signed-out pages (docs/identity.md "Single sign-on").
 * It asks better-auth for the provider's authorization URL (POST /api/auth/sign-in/social
 * `{ provider: "oidc" }`) and goes there; the provider sends the browser back to `next` signed
 * in, or to `/sign-in?error=…` with what went wrong. A provider that does not answer (503
 * provider_unreachable) is said here, and nobody leaves the page.
 */
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { safeNext } from "./account-form";

/** `label`: the provider's name on the button; `next`: the app path to land on once signed in. */
export function SsoButton({ label, next }: { label: string; next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const errorId = useId();
  const target = safeNext(next);

  async function start() {
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/auth/sign-in/social", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider: "oidc", callbackURL: target, errorCallbackURL: `/sign-in?next=${encodeURIComponent(target)}` }),
      });
      const answer = (await res.json().catch(() => null)) as { url?: string; error?: { message?: string } | string; message?: string } | null;
      if (res.ok && answer?.url) {
        window.location.assign(answer.url);
        return;
      }
      const message = typeof answer?.error === "object" ? answer.error.message : answer?.message;
      setError(message ? `${message[0]!.toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? "" : "."}` : `Signing in with ${label} did not start (${res.status}). Try again.`);
    } catch {
      setError("Clutch cannot be reached. Check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <div>
      <Button type="button" variant="primary" autoFocus disabled={pending} onClick={start} aria-describedby={error ? errorId : undefined} className="w-full justify-center">
        {pending ? `Going to ${label}…` : `Sign in with ${label}`}
      </Button>
      {error && (
        <p id={errorId} role="alert" className="mt-2 text-sm font-medium text-danger">
          {error}
        </p>
      )}
    </div>
  );
}
