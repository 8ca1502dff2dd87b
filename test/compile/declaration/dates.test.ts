// A date is judged by the proleptic Gregorian calendar of its own year, 0000 to 9999, both where
// the generator checks a declaration's default and enum values (src/compile/declaration/values.ts)
// and where the generated server checks a request (runtime/validate.gen.ts). Why a property over
// every year: JavaScript's Date.UTC and `new Date(y, ...)` read the years 0 to 99 as 1900 to
// 1999, whose leap years differ (0100 is no leap year, 1900 neither, but 0000 is and 1900 not).

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkValue } from "../../../src/compile/declaration/values.js";
import type { Field } from "../../../src/compile/declaration/model.js";
// values.ts judges formats with the server's own hasFormat (imported, not a copy): the two are one.
import { hasFormat, hasFormat as serverHasFormat } from "../../../runtime/validate.gen.js";

/** A declaration's `date` field, whose default and enum values checkValue judges. */
const DATE_FIELD: Field = {
  name: "on",
  type: "string",
  format: "date",
  required: true,
  nullable: false,
  readOnly: false,
  writeOnly: false,
  filter: false,
  extensions: {},
};

const leap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 ? (leap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);
const pad = (n: number, width: number) => String(n).padStart(width, "0");

const dates = fc.record({ year: fc.integer({ min: 0, max: 9999 }), month: fc.integer({ min: 0, max: 13 }), day: fc.integer({ min: 0, max: 32 }) });
const valid = ({ year, month, day }: { year: number; month: number; day: number }) => month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
const text = ({ year, month, day }: { year: number; month: number; day: number }) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;

describe("calendar dates of the years 0000 to 9999", () => {
  it("are valid exactly when the leap-year rule says so, in the generator and the server alike", () => {
    fc.assert(
      fc.property(dates, (date) => {
        expect(hasFormat("date", text(date))).toBe(valid(date));
        expect(serverHasFormat("date", text(date))).toBe(valid(date));
        // A date-time's instant lies within the years 0001 to 9999 (runtime/instants.gen.ts).
        const instant = `${text(date)}T12:00:00Z`;
        expect(hasFormat("date-time", instant)).toBe(valid(date) && date.year >= 1);
        expect(serverHasFormat("date-time", instant)).toBe(valid(date) && date.year >= 1);
      }),
      { numRuns: 5000 },
    );
  });

  it("judge the 29th of February of the first century's years by their own calendar", () => {
    const cases: [string, boolean][] = [
      ["0000-02-29", true],
      ["0004-02-29", true],
      ["0050-02-29", false],
      ["0096-02-29", true],
      ["0099-02-29", false],
      ["0100-02-29", false],
      ["0400-02-29", true],
      ["1900-02-29", false],
      ["2000-02-29", true],
    ];
    for (const [date, expected] of cases) {
      expect([date, hasFormat("date", date)]).toEqual([date, expected]);
      expect([date, checkValue(DATE_FIELD, date) === undefined]).toEqual([date, expected]);
    }
    // Every year of the first century, each day of February.
    for (let year = 0; year < 100; year++) {
      for (let day = 28; day <= 30; day++) expect(hasFormat("date", `${pad(year, 4)}-02-${day}`)).toBe(day <= daysIn(year, 2));
    }
  });
});
