/**
 * `/c/:thread_id`: the selected channel, live, in the main pane. On a full page load its newest
 * events and its runs come with the HTML (initial-data.ts), so the channel draws without a request.
 */
import { ThreadScreen } from "@/components/thread/thread-screen";
import { initialChannel } from "../../initial-data";

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
  return <ThreadScreen key={id} threadId={id} initial={await initialChannel(id)} />;
}
