import { existsSync, promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import type { GeneratedFile } from "../render/render.js";
import { type CurrentTree, MANIFEST, type WritePlan, manifestText, parseManifest } from "./plan.js";

/** The two sibling folders of a run: the new tree being built, and the old one being retired. */
export function siblings(dir: string): { fresh: string; retired: string } {
  const parent = path.dirname(dir);
  const base = path.basename(dir);
  return { fresh: path.join(parent, `.${base}.codegen-new`), retired: path.join(parent, `.${base}.codegen-old`) };
}

/**
 * Put right what a killed run left behind: if the folder is missing but the retired tree is
 * there, the run died between its two renames and the old tree goes back; then leftovers go.
 */
export async function recover(dir: string): Promise<void> {
  const { fresh, retired } = siblings(dir);
  if (!existsSync(dir) && existsSync(retired)) await fs.rename(retired, dir);
  await fs.rm(fresh, { recursive: true, force: true });
  await fs.rm(retired, { recursive: true, force: true });
}

/** What the output folder holds now (after `recover`); files are read when the plan asks for them. */
export function readCurrent(dir: string): CurrentTree {
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(path.join(dir, file), "utf8");
    } catch {
      return undefined;
    }
  };
  return { manifest: parseManifest(read(MANIFEST)), read };
}

/**
 * Apply a plan as one step: the new tree is built in a sibling folder (files that do not change,
 * and every file the generator does not own, hard-linked in so their mtimes stay), then swapped
 * in by two renames. A run that fails or is killed leaves the old tree or the new one, never a
 * mix; a kill between the renames leaves the old tree beside the folder, which `recover` restores.
 */
export async function applyPlan(dir: string, plan: WritePlan, files: readonly GeneratedFile[], input?: string): Promise<void> {
  const { fresh, retired } = siblings(dir);
  await fs.rm(fresh, { recursive: true, force: true });
  await fs.mkdir(fresh, { recursive: true });
  const rewritten = new Set([...plan.added, ...plan.changed].map((f) => f.path));
  const dropped = new Set([...plan.removed.map((r) => r.path), MANIFEST]);

  // Everything that stays: unchanged generated files and all files codegen does not own.
  if (existsSync(dir)) await linkTree(dir, fresh, "", (relative) => !rewritten.has(relative) && !dropped.has(relative));
  for (const file of [...plan.added, ...plan.changed]) {
    const target = path.join(fresh, file.path);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, file.contents);
  }
  await fs.writeFile(path.join(fresh, MANIFEST), manifestText(files, input));

  if (existsSync(dir)) await fs.rename(dir, retired);
  await fs.rename(fresh, dir);
  await fs.rm(retired, { recursive: true, force: true });
}

/** Recreate `from`'s tree under `to` with hard links (symbolic links copied as links), keeping what `keep` accepts. */
async function linkTree(from: string, to: string, relative: string, keep: (relative: string) => boolean): Promise<void> {
  for (const entry of await fs.readdir(path.join(from, relative), { withFileTypes: true })) {
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    const source = path.join(from, child);
    const target = path.join(to, child);
    if (entry.isDirectory()) {
      await fs.mkdir(target, { recursive: true });
      await linkTree(from, to, child, keep);
    } else if (!keep(child)) {
      continue;
    } else if (entry.isSymbolicLink()) {
      await fs.symlink(await fs.readlink(source), target);
    } else {
      await fs.link(source, target);
    }
  }
}
