/** 404 inside the workspace frame. */
import Link from "next/link";

export default function NotFound() {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-2 p-6 text-center">
      <h1 className="text-lg font-semibold">Page not found</h1>
      <Link href="/" className="text-sm font-medium text-accent hover:underline">
        Go to your channels
      </Link>
    </div>
  );
}
