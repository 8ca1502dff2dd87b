// Every format ajv-formats knows, checked by the generated validator (runtime/validate.gen.ts and
// runtime/formats.gen.ts) against ajv-formats' full mode as an oracle: on random texts near each
// format (drawn from its own alphabet, from ajv-formats' patterns where it has one, and mutations
// of valid examples), the validator never takes a text ajv-formats refuses, and where it follows
// ajv-formats exactly the two agree on every text. Bounded runs; a fixed seed in CI.

import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasFormat, validateValue } from "../../runtime/validate.gen.js";
import type { FieldErrors, SchemaNode } from "../../runtime/validate.gen.js";

const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.CI ? 20261128 : undefined;
const runs = (numRuns: number): { numRuns: number; seed?: number } => (SEED === undefined ? { numRuns } : { numRuns, seed: SEED });
const RUNS = 400 * SCALE;

type FormatDefinition = RegExp | ((text: string) => boolean) | { validate: RegExp | ((text: string) => boolean) } | true;
const FORMATS = fullFormats as unknown as { [name: string]: FormatDefinition };

/** ajv-formats' judgement of a text. */
function ajvTakes(format: string, text: string): boolean {
  const definition = FORMATS[format]!;
  if (definition === true) return true;
  const check = definition instanceof RegExp || typeof definition === "function" ? definition : definition.validate;
  if (check instanceof RegExp) {
    check.lastIndex = 0;
    return check.test(text);
  }
  return check(text);
}

/**
 * Per format: valid examples, the characters its texts are made of, texts it must refuse, and
 * whether the validator follows ajv-formats exactly (else it is stricter where the RFCs are: a
 * URI's first segment, `"` in a URI reference, base64 on one line, a time's offset in full...).
 */
const CASES: { [format: string]: { valid: string[]; alphabet: string; invalid: string[]; exact: boolean } } = {
  time: {
    valid: ["23:59:59Z", "00:00:00.5+05:30", "12:30:00-01:00", "23:59:60Z"],
    alphabet: "0123456789:.+-Zz",
    invalid: ["25:99:00", "12:00:00", "24:00:00Z", "12:60:00Z"],
    exact: false,
  },
  "iso-time": { valid: ["23:59:59", "00:00:00.5+05:30"], alphabet: "0123456789:.+-Zz", invalid: ["25:00:00"], exact: false },
  "iso-date-time": { valid: ["2024-02-29 23:59:59", "2024-02-29T00:00:00Z"], alphabet: "0123456789:.+-Zz T", invalid: ["2023-02-29T00:00:00"], exact: false },
  duration: {
    valid: ["P1Y2M3DT4H5M6S", "PT1H", "P3W", "P1D", "PT0S"],
    alphabet: "P0123456789YMDTHSW",
    invalid: ["P", "PT", "P1YT", "P1W2D", "1Y"],
    exact: true,
  },
  uri: {
    valid: ["https://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:ann@example.com", "http://[::1]:8080/", "file:///etc/hosts"],
    alphabet: "ab:/?#[]@%2F.1-_~!$&'()*+,;= \"",
    invalid: ["/relative", "a b:c", "http://exa mple.com"],
    exact: false,
  },
  "uri-reference": {
    valid: ["../a/b?c#d", "", "#frag", "//host/x", "https://example.com/"],
    alphabet: "ab:/?#[]@%2F.1-_~!$&'()*+,;= \"",
    invalid: ["a b", "%zz"],
    exact: false,
  },
  "uri-template": {
    valid: ["https://example.com/{id}/{+path}{?q,r*}", "/a/{b:3}", "plain"],
    alphabet: "ab{}+#./;?&=,!@|:*1%2F",
    invalid: ["{", "{a", "a}b{", "{ a}"],
    exact: true,
  },
  url: {
    valid: ["https://example.com/a?b=c", "http://user:pw@example.co.uk:8080/x", "ftp://8.8.8.8/file", "https://пример.рф/"],
    alphabet: "abc.:/@-1280 ",
    invalid: ["http://10.0.0.1/", "http://localhost/", "https://example.c/"],
    exact: false,
  },
  email: {
    valid: ["ann@example.com", "a.b+c@sub.example.org", "x@a-b.io"],
    alphabet: "ab.@-+_1",
    invalid: ["ann", "a@b", "a..b@example.com", "a@-b.com", "@example.com"],
    exact: true,
  },
  hostname: {
    valid: ["example.com", "a", "a-b.c.", "xn--nxasmq6b.com"],
    alphabet: "ab-.1",
    invalid: ["-a.com", "a-.com", "a..b", "", `${"a".repeat(64)}.com`],
    exact: true,
  },
  ipv4: {
    valid: ["192.168.0.1", "0.0.0.0", "255.255.255.255"],
    alphabet: "0123456789.",
    invalid: ["256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4.5"],
    exact: true,
  },
  ipv6: {
    valid: ["::", "::1", "fe80::1", "2001:db8::8a2e:370:7334", "::ffff:192.168.0.1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::"],
    alphabet: "0123456789abcdefABCDEF:.",
    invalid: [":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "::1.2.3"],
    exact: true,
  },
  regex: { valid: ["^a+$", "[a-z]{2,}", "(?:x|y)*"], alphabet: "ab^$()[]{}*+?|\\Z.12,", invalid: ["(", "[a-", "a\\Z"], exact: true },
  "json-pointer": { valid: ["", "/", "/a~0b/c~1d/0"], alphabet: "ab/~01", invalid: ["a", "/~", "/~2"], exact: true },
  "json-pointer-uri-fragment": { valid: ["#", "#/a%20b/0"], alphabet: "#ab/~01%2", invalid: ["/a", "#/~2"], exact: true },
  "relative-json-pointer": { valid: ["0", "1/a", "2#", "0/"], alphabet: "0123/#~ab", invalid: ["", "01", "-1", "1#/a"], exact: true },
  byte: { valid: ["", "YQ==", "YWI=", "YWJj", "SGVsbG8gd29ybGQ="], alphabet: "abcYWQ=+/01", invalid: ["YQ", "Y===", "a b="], exact: false },
};

/** Texts of a format's alphabet, ajv-formats' own pattern's texts, and valid examples mutated (a character replaced, removed or added). */
function texts(format: string, valid: readonly string[], alphabet: string): fc.Arbitrary<string> {
  const unit = fc.constantFrom(...alphabet);
  const mutated = fc.tuple(fc.constantFrom(...valid), fc.nat(), unit, fc.constantFrom("replace", "remove", "add")).map(([text, at, char, how]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    return how === "replace"
      ? text.slice(0, i) + char + text.slice(i + 1)
      : how === "remove"
        ? text.slice(0, i) + text.slice(i + 1)
        : text.slice(0, i) + char + text.slice(i);
  });
  const arbitraries: fc.Arbitrary<string>[] = [fc.string({ unit, maxLength: 40 }), mutated, fc.constantFrom(...valid)];
  const definition = FORMATS[format];
  const pattern = definition instanceof RegExp ? definition : undefined;
  // (A pattern without the `u` flag and its lookarounds is one fast-check can draw texts of.)
  if (pattern !== undefined && !pattern.flags.includes("u") && !/\(\?[=!]/.test(pattern.source))
    arbitraries.push(fc.stringMatching(new RegExp(pattern.source, pattern.flags.replace(/[gim]/g, "")), { maxLength: 60 }));
  return fc.oneof(...arbitraries);
}

describe("every ajv-formats format: never looser than ajv-formats' full mode", () => {
  it.each(Object.keys(CASES))("%s", (format) => {
    const { valid, alphabet, invalid, exact } = CASES[format]!;
    for (const text of valid) expect([text, hasFormat(format, text)]).toEqual([text, true]);
    for (const text of invalid) expect([text, hasFormat(format, text)]).toEqual([text, false]);
    fc.assert(
      fc.property(texts(format, valid, alphabet), (text) => {
        const ours = hasFormat(format, text);
        const theirs = ajvTakes(format, text);
        // Never looser; and, where the validator follows ajv-formats exactly, never stricter either.
        if (ours && !theirs) return false;
        return !exact || ours === theirs;
      }),
      runs(RUNS),
    );
  });

  it("the formats the validator knows are every one ajv-formats has (password and binary take any text)", () => {
    const covered = new Set([...Object.keys(CASES), "date", "date-time", "uuid", "int32", "int64", "float", "double", "password", "binary"]);
    expect(Object.keys(FORMATS).filter((name) => !covered.has(name))).toEqual([]);
    expect(hasFormat("password", "anything at all")).toBe(true);
    // `iri` and `iri-reference` (RFC 3987, which ajv-formats does not know): a URI's grammar with characters beyond ASCII.
    expect(["https://例え.jp/パス", "urn:ex:été", "/relative", "a b:c"].map((text) => hasFormat("iri", text))).toEqual([true, true, false, false]);
    expect(hasFormat("iri-reference", "../été?q#f")).toBe(true);
  });

  it("int32 and int64 bound integers; float and double take any number (format on a number)", () => {
    const valid = (format: string, value: number): boolean => {
      const errors: FieldErrors = {};
      return validateValue({ types: ["number"], format } as SchemaNode, value, "", errors, {});
    };
    const int32 = FORMATS["int32"] as unknown as { validate: (n: number) => boolean };
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 31 - 1, -(2 ** 31), 2 ** 63, -(2 ** 63), 2 ** 53 + 2)),
        (n) => {
          expect(valid("int32", n)).toBe(int32.validate(n));
          // Never looser than ajv-formats (any integer); an int64 is below 2^63 in magnitude too.
          expect(valid("int64", n)).toBe(Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63);
          expect(valid("double", n) && valid("float", n)).toBe(true);
        },
      ),
      runs(RUNS),
    );
    // A string of format int64 (as documents write 64-bit ids) is no number to bound.
    expect(hasFormat("int64", "9223372036854775807")).toBe(true);
  });

  it("each check reads a long hostile text in bounded work (no backtracking blow-up)", () => {
    const hostile = [
      "a".repeat(50_000),
      "1:".repeat(25_000),
      "%".repeat(50_000),
      "{a,".repeat(20_000),
      "a-".repeat(25_000),
      "a@".repeat(25_000),
      "/~0".repeat(20_000),
      "http://" + "a.".repeat(25_000) + "!",
      "a".repeat(50_000) + "@" + "a".repeat(50_000),
    ];
    let checked = 0;
    for (const format of Object.keys(CASES)) {
      for (const text of hostile) {
        hasFormat(format, text);
        hasFormat(format, `${text}\u0000`);
        checked += 2;
      }
    }
    // (The test's own time limit is the bound: a check that backtracked would take hours here.)
    expect(checked).toBe(Object.keys(CASES).length * hostile.length * 2);
  });
});
