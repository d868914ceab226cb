/**
 * The person's display name, kept in localStorage and sent
 * as `display_name` with each message.
 */
import { useLocalValue } from "./local-store";

/** localStorage key of the display name (JSON string). */
export const DISPLAY_NAME_KEY = "clutch:display-name";

/** `[name, setName]`; "" until the person sets one. */
export function useDisplayName(): [string, (name: string) => void] {
  return useLocalValue<string>(DISPLAY_NAME_KEY, "");
}
