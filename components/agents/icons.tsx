/**
 * Icons of the agent directory (`/agents`) in the style of components/ui/icons.tsx
 * (24×24 strokes, decorative: label the control around them).
 */
import { Svg, type IconProps } from "@/components/ui/icons";

export const CopyIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="9" y="9" width="13" height="13" rx="2" />
    <path d="M5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1" />
  </Svg>
);
export const ArrowLeftIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M19 12H5M12 19l-7-7 7-7" />
  </Svg>
);
export const TerminalIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="m4 17 6-6-6-6M12 19h8" />
  </Svg>
);
