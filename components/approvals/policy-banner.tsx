"use client";
/**
 * `PolicyBanner`: a warning across the workspace while `clutch.policy.yaml` is invalid (the server
 * keeps the last good policy in force and says why the file was refused). Reads
 * `GET /api/policy`; dismissible, and a different error shows again. Nothing while the file is
 * fine or the server does not offer the endpoint.
 */
import { useLocalValue } from "@/components/prefs/local-store";
import { AlertIcon, CloseIcon } from "@/components/ui/icons";
import { usePolicyStatus } from "@/components/live/approvals";

const DISMISSED_KEY = "clutch:policy-banner-dismissed";

/** The banner (see the file comment). */
export function PolicyBanner() {
  const { data } = usePolicyStatus();
  const [dismissed, setDismissed] = useLocalValue<string | null>(DISMISSED_KEY, null);
  if (!data || data.ok) return null;
  const key = `${data.file ?? ""}|${data.error ?? ""}`;
  if (dismissed === key) return null;
  const file = data.file ? data.file.split(/[\\/]/).pop() : "clutch.policy.yaml";
  return (
    <div role="alert" className="flex shrink-0 items-start gap-2 border-b border-warning/30 bg-warning/12 px-3 py-1.5 text-[13px] text-fg sm:px-4">
      <AlertIcon size={15} className="mt-0.5 shrink-0 text-warning" />
      <p className="min-w-0 flex-1 break-words">
        <span className="font-semibold">
          <code className="font-mono text-[12.5px]">{file}</code> is invalid:
        </span>{" "}
        <span className="text-fg-muted">{data.error ?? "unknown error"}</span>
        <span className="text-fg">; the last good policy is in force.</span>
      </p>
      <button
        type="button"
        onClick={() => setDismissed(key)}
        aria-label="Dismiss the policy warning"
        className="-my-0.5 inline-flex h-7 w-7 shrink-0 items-center justify-center rounded-md text-fg-muted hover:bg-warning/15 hover:text-fg"
      >
        <CloseIcon size={15} />
      </button>
    </div>
  );
}
