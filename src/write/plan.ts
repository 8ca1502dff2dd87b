import { createHash } from "node:crypto";
import type { GeneratedFile } from "../render/render.js";

/** The manifest's file name inside the output folder. */
export const MANIFEST = ".codegen-manifest.json";

/** The files the generator wrote into a folder, each with the hash of what it wrote. */
export interface Manifest {
  readonly files: Readonly<Record<string, string>>;
  /** The hash of everything the files were generated from (src/run.ts, generationKey). */
  readonly input?: string;
}

/** `sha256-<hex>` of a file's text. */
export function hashOf(contents: string): string {
  return `sha256-${createHash("sha256").update(contents).digest("hex")}`;
}

/** The manifest's text: keys sorted by code unit, so it is byte-identical for the same files. */
export function manifestText(files: readonly GeneratedFile[], input?: string): string {
  const entries = files.map((f) => [f.path, hashOf(f.contents)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ generator: "codegen", ...(input === undefined ? {} : { input }), files: Object.fromEntries(entries) }, null, 2) + "\n";
}

/** Read a manifest's text; a missing or unreadable one is an empty manifest. */
export function parseManifest(text: string | undefined): Manifest {
  if (text === undefined) return { files: {} };
  try {
    const value = JSON.parse(text) as { files?: unknown; input?: unknown };
    const files = value.files;
    if (typeof files !== "object" || files === null) return { files: {} };
    return {
      files: Object.fromEntries(Object.entries(files).filter(([, h]) => typeof h === "string")) as Record<string, string>,
      ...(typeof value.input === "string" ? { input: value.input } : {}),
    };
  } catch {
    return { files: {} };
  }
}

/** What a folder holds now, as far as the plan needs: the manifest and the text of the files it asks about. */
export interface CurrentTree {
  readonly manifest: Manifest;
  /** The text of a file in the folder, or undefined when there is none. */
  read(path: string): string | undefined;
}

/** What a run would do to each file, and what stops it. */
export interface WritePlan {
  readonly added: readonly GeneratedFile[];
  readonly changed: readonly (GeneratedFile & { readonly before: string })[];
  readonly unchanged: readonly GeneratedFile[];
  /** Generated files no longer generated, still as the generator wrote them: deleted. */
  readonly removed: readonly { readonly path: string; readonly before: string }[];
  /** Generated files edited by hand: the run stops unless forced. */
  readonly edited: readonly string[];
  /** Files the generator did not write that a new generated file would overwrite: always an error. */
  readonly foreign: readonly string[];
}

/**
 * Decide, without touching anything, what writing `files` into a folder means (issue: the
 * manifest's rules): a hand-edited generated file is not overwritten unless `force`; a file the
 * manifest does not list is never touched; a file no longer generated is deleted only if unedited.
 */
export function planWrite(current: CurrentTree, files: readonly GeneratedFile[], force: boolean): WritePlan {
  const added: GeneratedFile[] = [];
  const changed: (GeneratedFile & { before: string })[] = [];
  const unchanged: GeneratedFile[] = [];
  const removed: { path: string; before: string }[] = [];
  const edited: string[] = [];
  const foreign: string[] = [];
  const owned = current.manifest.files;
  const isEdited = (path: string, text: string) => owned[path] !== undefined && hashOf(text) !== owned[path];

  for (const file of files) {
    const before = current.read(file.path);
    if (before === undefined) added.push(file);
    else if (owned[file.path] === undefined) {
      if (before === file.contents) unchanged.push(file);
      else foreign.push(file.path);
    } else if (before === file.contents) unchanged.push(file);
    else if (isEdited(file.path, before) && !force) edited.push(file.path);
    else changed.push({ ...file, before });
  }
  const generated = new Set(files.map((f) => f.path));
  for (const path of Object.keys(owned).sort()) {
    if (generated.has(path)) continue;
    const before = current.read(path);
    if (before === undefined) continue;
    if (isEdited(path, before) && !force) edited.push(path);
    else removed.push({ path, before });
  }
  return { added, changed, unchanged, removed, edited, foreign };
}

/** Whether a plan changes anything. */
export function hasChanges(plan: WritePlan): boolean {
  return plan.added.length + plan.changed.length + plan.removed.length > 0;
}
