/**
 * `ImportedLine`: how an imported copy (lib/protocol/imported.ts) of one of Clutch's own lines
 * reads: a system notice, an audit entry, an approval or its decision, a policy decision, an
 * agent's registration. The copy is the importer's, so it is never drawn as Clutch's own line
 * nor as an approval anyone can decide: one quoted line says who imported what, and from whom
 * the file says it came (docs/identity.md "Imported runs are copies that never act").
 */
import type { StoredEvent } from "@/lib/protocol";
import { importedFrom } from "@/lib/protocol";
import { BracesIcon } from "@/components/ui/icons";
import { LineRow } from "./event-shell";
import { displayName } from "./participant";
import { useSenderName } from "./use-sender-name";

/** The words of the quoted event: its summary, text, message or reason, when it has one. */
function wordsOf(event: StoredEvent): string | null {
  const p = (event.payload ?? {}) as Record<string, unknown>;
  for (const k of ["summary", "text", "message", "reason"]) {
    const v = p[k];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return null;
}

/** One quoted line for an imported copy of a Clutch line (see the file comment). */
export function ImportedLine({ event }: { event: StoredEvent }) {
  const imported = importedFrom(event);
  const original = useSenderName(imported?.from ?? event.from);
  const by = displayName(event.from);
  const words = wordsOf(event);
  return (
    <LineRow event={event} icon={<BracesIcon size={14} />} label={`Imported ${event.type} from ${original.name}`}>
      <span className="min-w-0 break-words text-fg-muted">
        <span className="font-medium text-fg">{by}</span> imported <code className="font-mono text-[12px]">{event.type}</code> from{" "}
        <span className="font-medium text-fg">{original.name}</span>
        {words ? <>: <q className="italic">{words}</q></> : null}
        <span className="ml-1.5 rounded bg-warning/10 px-1 text-[10.5px] font-semibold text-warning" title="A copy from a file: it decides and starts nothing">
          copy
        </span>
      </span>
    </LineRow>
  );
}
