/** `/c/:thread_id`: the selected channel, live, in the main pane. */
import { ThreadScreen } from "@/components/thread/thread-screen";

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default async function ChannelPage({ params }: { params: Promise<{ thread_id: string }> }) {
  const { thread_id } = await params;
  const id = decode(thread_id);
  return <ThreadScreen key={id} threadId={id} />;
}
