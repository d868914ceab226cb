"use client";
/**
 * `FileChoice`: "Choose a file…" beside a text field's label (the run import, the PromptPack
 * import): a visually hidden file input behind a link-styled label, and the chosen file's name.
 * `onFile` gets the file's text and name.
 */
import { useId } from "react";

export function FileChoice({ accept, fileName, onFile }: { accept: string; fileName: string | null; onFile: (text: string, name: string) => void }) {
  const id = useId();
  return (
    <span className="text-[12px] text-fg-muted">
      <label htmlFor={id} className="cursor-pointer font-medium text-accent hover:underline">
        Choose a file…
      </label>
      <input
        id={id}
        type="file"
        accept={accept}
        className="sr-only"
        onChange={async (e) => {
          const f = e.target.files?.[0];
          if (f) onFile(await f.text(), f.name);
        }}
      />
      {fileName && <span className="ml-1.5 text-fg-subtle">{fileName}</span>}
    </span>
  );
}
