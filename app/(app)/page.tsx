/** `/`: opens the last (or first) channel, or invites the person to create one. */
import { Home } from "@/components/workspace/home";

export default function HomePage() {
  return <Home />;
}
