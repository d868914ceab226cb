/** `/`: opens the last (or first) channel, or invites the person to create one (issue 2). */
import { Home } from "@/components/workspace/home";

export default function HomePage() {
  return <Home />;
}
