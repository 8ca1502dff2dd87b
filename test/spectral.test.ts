// Spectral's `spectral:oas` ruleset
// (its recommended rules, what `extends: spectral:oas` gives) reports nothing, not even a
// warning, on the golden document of every valid fixture that declares `info.contact` and
// `info.license`. Those two are the declaration's to give; everything else (a summary, a
// description and tags on every operation, examples that fit their schemas, no unused component)
// is codegen's.

import { readFileSync } from "node:fs";
import path from "node:path";
import spectralCore, { type RulesetDefinition } from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT, UPDATING, declarationOf, fixtureCases } from "./support/fixtures.js";

const { Document, Spectral } = spectralCore;

/** The valid fixtures whose declaration gives `info.contact` and `info.license`. */
const cases = fixtureCases("valid").filter((name) => {
  const info = (parse(readFileSync(path.join(ROOT, declarationOf("valid", name)), "utf8")) as { info?: Record<string, unknown> }).info ?? {};
  return info.contact !== undefined && info.license !== undefined;
});

describe.skipIf(UPDATING)("spectral:oas", () => {
  it("has fixtures with a contact and a license to lint", () => {
    expect(cases).toEqual(expect.arrayContaining(["blog", "lending"]));
  });

  it.each(cases)(
    "%s: reports nothing on the golden document",
    async (name) => {
      const file = path.join(ROOT, "fixtures/valid", name, "expected/openapi.yaml");
      const spectral = new Spectral();
      // The ruleset's own type is narrower than the definition setRuleset takes (a known mismatch of
      // Spectral's typings); at run time it is exactly what `extends: spectral:oas` loads.
      spectral.setRuleset({ extends: [[oas as RulesetDefinition, "recommended"]] });
      const results = await spectral.run(new Document(readFileSync(file, "utf8"), spectralParsers.Yaml, file));
      expect(results.map((r) => `${r.code} at ${r.path.join(".")}: ${r.message}`)).toEqual([]);
    },
    60_000,
  );
});

// Every fixture, with or without contact and license: a component nothing uses (`PetPatch` where
// the resource offers no update, `AuthError` where no operation has a guard) is a warning there.
// (prototype-names is left out: Spectral's resolver calls `target.hasOwnProperty`, which that
// fixture's properties named `hasOwnProperty` shadow.)
describe.skipIf(UPDATING)("spectral's oas3-unused-component", () => {
  it.each(fixtureCases("valid").filter((name) => name !== "prototype-names"))(
    "%s: every component of the golden document is used",
    async (name) => {
      const file = path.join(ROOT, "fixtures/valid", name, "expected/openapi.yaml");
      const spectral = new Spectral();
      spectral.setRuleset({ extends: [[oas as RulesetDefinition, "off"]], rules: { "oas3-unused-component": "warn" } });
      const results = await spectral.run(new Document(readFileSync(file, "utf8"), spectralParsers.Yaml, file));
      expect(results.map((r) => `${r.code} at ${r.path.join(".")}: ${r.message}`)).toEqual([]);
    },
    60_000,
  );
});
