import { createTwoFilesPatch } from "diff";
import type { WritePlan } from "./plan.js";

/** Lines of diff shown per file, and files shown with a diff, in `--check` output. */
const DIFF_LINES = 40;
const DIFF_FILES = 10;

/**
 * What `--check` prints for a folder that is not current: each file that would be added,
 * changed or removed, then a short unified diff of the first differences, for a CI log.
 */
export function describeDrift(plan: WritePlan, dir: string): string {
  const lines: string[] = [];
  for (const file of plan.added) lines.push(`would add     ${dir}/${file.path}`);
  for (const file of plan.changed) lines.push(`would change  ${dir}/${file.path}`);
  for (const file of plan.removed) lines.push(`would remove  ${dir}/${file.path}`);
  const diffs = [
    ...plan.changed.map((f) => ({ path: f.path, before: f.before, after: f.contents })),
    ...plan.added.map((f) => ({ path: f.path, before: "", after: f.contents })),
    ...plan.removed.map((f) => ({ path: f.path, before: f.before, after: "" })),
  ];
  for (const { path, before, after } of diffs.slice(0, DIFF_FILES)) {
    const patch = createTwoFilesPatch(`a/${dir}/${path}`, `b/${dir}/${path}`, before, after, undefined, undefined, { context: 2 }).split("\n").slice(1); // the `====` line
    const shown = patch.slice(0, DIFF_LINES);
    lines.push("", ...shown.filter((line, i) => i < shown.length - 1 || line !== ""));
    if (patch.length > DIFF_LINES) lines.push(`... (${patch.length - DIFF_LINES} more diff lines)`);
  }
  if (diffs.length > DIFF_FILES) lines.push("", `... (${diffs.length - DIFF_FILES} more files differ)`);
  return lines.join("\n") + "\n";
}
