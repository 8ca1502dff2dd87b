import { createTwoFilesPatch } from "diff";

/** Lines of diff shown per file, and in all, in `--check` output (docs/cli.md, `--check`). */
const DIFF_LINES = 40;
const TOTAL_LINES = 400;

/** A file whose text `--check` shows changing: `before` "" where it is added, `after` undefined where it is no longer generated. */
export interface Differing {
  readonly path: string;
  readonly before: string;
  readonly after?: string | undefined;
}

/** What a run would do to the folder's files, for `--check` to show (apply.ts, writeFiles). */
export interface Drift {
  readonly added: Differing[];
  readonly changed: Differing[];
  readonly removed: Differing[];
  /** Generated files edited by hand, and those no longer generated (`after` undefined). */
  readonly edited: Differing[];
}

/**
 * What `--check` prints for a folder that is not current: each file that would be added,
 * changed or removed, and each generated file edited by hand, then a unified diff of every one of
 * them, bounded (DIFF_LINES a file, TOTAL_LINES in all) and saying how many lines it left out.
 * Why every file: a CI log is often all a reviewer sees, and a hand edit is what most needs showing.
 */
export function describeDrift(plan: Drift, dir: string): string {
  const lines: string[] = [];
  for (const file of plan.added) lines.push(`would add     ${dir}/${file.path}`);
  for (const file of plan.changed) lines.push(`would change  ${dir}/${file.path}`);
  for (const file of plan.removed) lines.push(`would remove  ${dir}/${file.path}`);
  for (const file of plan.edited)
    lines.push(`edited by hand ${dir}/${file.path} (${file.after === undefined ? "no longer generated" : "codegen writes otherwise"}; --force overwrites it)`);
  let budget = TOTAL_LINES;
  for (const { path, before, after = "" } of [...plan.changed, ...plan.edited, ...plan.added, ...plan.removed]) {
    const patch = createTwoFilesPatch(`a/${dir}/${path}`, `b/${dir}/${path}`, before, after, undefined, undefined, { context: 2 })
      .split("\n")
      .slice(1) // the `====` line
      .filter((line, i, all) => i < all.length - 1 || line !== "");
    const shown = patch.slice(0, Math.min(DIFF_LINES, budget));
    budget -= shown.length;
    lines.push("", ...shown);
    const left = patch.length - shown.length;
    if (left > 0) lines.push(`... (${left} more diff line${left === 1 ? "" : "s"} of ${dir}/${path} left out)`);
  }
  return lines.join("\n") + "\n";
}
