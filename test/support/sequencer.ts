// The order in which vitest hands test files to its two workers. Its own order, on a fresh clone
// (CI) with no durations of an earlier run cached, is the largest file first: a short file that
// runs for a minute (a corpus, a tsc program, npm pack) then starts last, and one worker idles
// while the other finishes it. The files known to take longest start first instead, slowest
// first, so that the short ones fill in around them and both workers end at about the same time.

import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The slowest files, slowest first, as `<project>:<path>`: from a whole run's JSON report
 * (`npx vitest run --reporter=json --outputFile=report.json`, each file's endTime - startTime;
 * the 31 slowest files of the run of 2026-11-29). Only the order matters; a file missing here, or one
 * that no longer exists, runs in vitest's order after these.
 */
export const SLOWEST_FILES: readonly string[] = [
  "memory:test/pack.test.ts",
  "memory:test/serve/process.test.ts",
  "memory:test/init/tsconfig-matrix.test.ts",
  "memory:test/write/regenerate.test.ts",
  "memory:test/bench-smoke.test.ts",
  "memory:test/compile/openapi/examples.test.ts",
  "memory:test/write/shape.test.ts",
  "memory:test/postgres/evolution.test.ts",
  "memory:test/postgres/database-errors.test.ts",
  "memory:test/hostile/long-names.test.ts",
  "memory:test/fuzz/openapi-names.test.ts",
  "memory:test/compile/openapi/corpus.test.ts",
  "memory:test/fuzz/declarations.test.ts",
  "memory:test/postgres/deadlines.test.ts",
  "memory:test/postgres/evolution-instants.test.ts",
  "memory:test/init/init.test.ts",
  "memory:test/compile/openapi/lenient.test.ts",
  "memory:test/compile/declaration/yaml-subset.test.ts",
  "memory:test/postgres/scale-out.test.ts",
  "memory:test/fuzz/validators.test.ts",
  "memory:test/postgres/column-names.test.ts",
  "memory:test/bundle.test.ts",
  "memory:test/compile/openapi/io.test.ts",
  "memory:test/postgres/store-references.test.ts",
  "memory:test/http/document-corpus.test.ts",
  "memory:test/emit/user-prettier.test.ts",
  "memory:test/compile/api/operation-model.test.ts",
  "memory:test/golden-server.test.ts",
  "memory:test/http/lending.test.ts",
  "memory:test/postgres/recorded-migrations.test.ts",
  "memory:test/hostile/tiny-inputs.test.ts",
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOWEST_FILES.indexOf(`${file.project.name}:${path.relative(file.project.config.root, file.moduleId).split(path.sep).join("/")}`);
      return index < 0 ? SLOWEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order after the listed ones.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
