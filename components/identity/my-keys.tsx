"use client";
/** `MyKeys`: the /settings/keys page: your API keys, a new one, revoking. */
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { PageHeader } from "@/components/ui/page-header";
import { useKeys } from "./api";
import { KeyList, NewKeyForm } from "./key-list";

export function MyKeys() {
  const keys = useKeys();
  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <h1 className="flex-1 text-[15px] font-bold">API keys</h1>
      </PageHeader>
      <div className="scroll-slim min-h-0 flex-1 overflow-y-auto px-4 py-5 sm:px-6">
        <div className="mx-auto max-w-3xl space-y-6">
          <p className="text-sm text-fg-muted">
            A key lets a script act as you: send it as <code className="font-mono">Authorization: Bearer &lt;key&gt;</code>. Keys are shown once, when created; revoke one you no
            longer use.
          </p>
          <section aria-labelledby="new-key">
            <h2 id="new-key" className="mb-2 text-[14px] font-semibold">
              New key
            </h2>
            <NewKeyForm />
          </section>
          <section aria-labelledby="your-keys">
            <h2 id="your-keys" className="mb-2 text-[14px] font-semibold">
              Your keys
            </h2>
            {keys.isPending ? <p className="text-sm text-fg-muted">Loading…</p> : keys.isError ? <p role="alert">Could not load your keys.</p> : <KeyList keys={keys.data} />}
          </section>
        </div>
      </div>
    </div>
  );
}
