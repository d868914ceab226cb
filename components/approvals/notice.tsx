"use client";
/** The short notice after a decision ("Approved: …"), shown for 4 s at the bottom of the page. */
import { useEffect, useState } from "react";

/** A notice and its tone. */
export interface NoticeText {
  text: string;
  tone: "success" | "danger";
}

/** The notice on show and a way to show one; each disappears 4 s after it appeared. */
export function useNotice(): [NoticeText | null, (n: NoticeText) => void] {
  const [notice, setNotice] = useState<NoticeText | null>(null);
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 4000);
    return () => clearTimeout(t);
  }, [notice]);
  return [notice, setNotice];
}

/** The live region the notice appears in (announced politely). */
export function Notice({ notice }: { notice: NoticeText | null }) {
  return (
    <div aria-live="polite" className="pointer-events-none fixed inset-x-0 bottom-10 z-20 flex justify-center px-3">
      {notice && (
        <p
          className={`pointer-events-auto max-w-lg animate-pop-in truncate rounded-full px-3.5 py-1.5 text-[13px] font-medium text-white shadow-pop dark:text-[#0f0f14] ${
            notice.tone === "success" ? "bg-success" : "bg-danger"
          }`}
        >
          {notice.text}
        </p>
      )}
    </div>
  );
}
