/**
 * The documents DocsServer serves: a folder of text files, read safely.
 *
 * Every path is relative to the folder; absolute paths, `..` segments that leave the folder and
 * symlinks that point outside it are refused with a {@link ToolInputError} naming the problem.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { ToolInputError } from "./common";

/** File name endings DocsServer lists and reads (text documents only). */
export const DOC_EXTENSIONS = [".md", ".markdown", ".txt"] as const;
/** Largest file `readDocument` returns, in bytes. */
export const MAX_DOC_BYTES = 1_000_000;

/** One listed document; `name` is its path relative to the docs folder, with `/` separators. */
export interface DocumentInfo {
  name: string;
  title: string;
  /** Size in bytes. */
  size: number;
}

function titleOf(name: string, text: string): string {
  const h1 = /^\s{0,3}#\s+(.+?)\s*#*\s*$/m.exec(text);
  if (h1) return h1[1].trim();
  const first = text.split(/\r?\n/).find((l) => l.trim().length > 0);
  return first ? first.trim().slice(0, 120) : path.basename(name);
}

/**
 * Lists the documents under `root` (recursively; hidden files and folders skipped), sorted by
 * name. Throws when `root` does not exist.
 */
export async function listDocuments(root: string): Promise<DocumentInfo[]> {
  const out: DocumentInfo[] = [];
  const walk = async (dir: string) => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith(".")) continue;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await walk(abs);
      else if (e.isFile() && DOC_EXTENSIONS.some((x) => e.name.toLowerCase().endsWith(x))) {
        const text = await fs.readFile(abs, "utf8");
        const name = path.relative(root, abs).split(path.sep).join("/");
        out.push({ name, title: titleOf(name, text), size: Buffer.byteLength(text) });
      }
    }
  };
  await walk(root);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Resolves `relPath` inside `root`, following symlinks, and returns the real absolute path.
 * Throws {@link ToolInputError} when the path is empty, absolute, leaves the folder (lexically or
 * through a symlink), does not exist, is not a file, or is not a text document.
 */
export async function resolveInside(root: string, relPath: string): Promise<string> {
  const p = relPath.trim();
  if (p === "") throw new ToolInputError("path is empty; give a document name from list_documents, e.g. \"glossary.md\"");
  if (path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("\\")) {
    throw new ToolInputError(`path "${relPath}" is absolute; paths are relative to the docs folder (see list_documents)`);
  }
  if (p.includes("\0")) throw new ToolInputError("path contains a NUL byte");
  const realRoot = await fs.realpath(root);
  const lexical = path.resolve(realRoot, p);
  if (lexical !== realRoot && !lexical.startsWith(realRoot + path.sep)) {
    throw new ToolInputError(`path "${relPath}" is outside the docs folder; only documents listed by list_documents can be read`);
  }
  let real: string;
  try {
    real = await fs.realpath(lexical);
  } catch {
    throw new ToolInputError(`no document "${relPath}"; call list_documents for the available names`);
  }
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
    throw new ToolInputError(`path "${relPath}" leads outside the docs folder (through a link); refused`);
  }
  const st = await fs.stat(real);
  if (!st.isFile()) throw new ToolInputError(`"${relPath}" is a folder, not a document; call list_documents`);
  if (!DOC_EXTENSIONS.some((x) => real.toLowerCase().endsWith(x))) {
    throw new ToolInputError(`"${relPath}" is not a text document (${DOC_EXTENSIONS.join(", ")})`);
  }
  if (st.size > MAX_DOC_BYTES) throw new ToolInputError(`"${relPath}" is ${st.size} bytes; the limit is ${MAX_DOC_BYTES}`);
  return real;
}

/**
 * Reads document `relPath` (relative to `root`) as UTF-8. Output: `{ path, title, size, text }`,
 * `size` in bytes. Throws {@link ToolInputError} as {@link resolveInside} does.
 */
export async function readDocument(root: string, relPath: string): Promise<{ path: string; title: string; size: number; text: string }> {
  const real = await resolveInside(root, relPath);
  const text = await fs.readFile(real, "utf8");
  const name = path.relative(await fs.realpath(root), real).split(path.sep).join("/");
  return { path: name, title: titleOf(name, text), size: Buffer.byteLength(text), text };
}
