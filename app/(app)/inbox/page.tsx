/** `/inbox`: For you, what needs the signed-in person or names them (components/inbox/for-you.tsx). */
import type { Metadata } from "next";
import { ForYou } from "@/components/inbox/for-you";

export const metadata: Metadata = { title: "For you · Clutch" };

export default function InboxPage() {
  return <ForYou />;
}
