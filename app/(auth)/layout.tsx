/** The pages a person reaches signed out (sign-in, first-run setup, invite links): one centered card. */
import type { ReactNode } from "react";

export const dynamic = "force-dynamic";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-full items-center justify-center bg-sidebar p-6">
      <div className="w-full max-w-sm rounded-xl border border-line bg-canvas p-6 text-fg shadow-lg">
        <div className="mb-5 flex items-center gap-2">
          <span className="inline-flex h-8 w-8 items-center justify-center rounded-lg bg-sidebar-active text-[14px] font-black text-white" aria-hidden="true">
            C
          </span>
          <span className="text-[17px] font-bold tracking-tight">Clutch</span>
        </div>
        {children}
      </div>
    </main>
  );
}
