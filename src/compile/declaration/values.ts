import { compilePattern } from "#runtime/pattern.gen.js";
// Why the server's own check for every format: a default or enum value is one the generated server
// must accept (an email `a..b@c.d` or a URI `a:%zz` it refuses must be refused here too).
import { hasFormat } from "#runtime/validate.gen.js";
import type { Field } from "./model.js";

/**
 * Check a value against a declared field (type, enum, format and constraints); the first
 * problem in words, or undefined when it fits. Used for `default` and `enum` values.
 */
export function checkValue(field: Field, value: unknown): string | undefined {
  if (value === null) return field.nullable ? undefined : "`null` is not allowed (the field is not `nullable`)";
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return "expected a string";
      if (field.minLength !== undefined && [...value].length < field.minLength) return `shorter than minLength ${field.minLength}`;
      if (field.maxLength !== undefined && [...value].length > field.maxLength) return `longer than maxLength ${field.maxLength}`;
      if (field.pattern !== undefined && !safeTest(field.pattern, value)) return `does not match pattern ${field.pattern}`;
      if (field.format !== undefined && !hasFormat(field.format, value)) return `not a valid ${field.format}`;
      break;
    }
    case "integer":
    case "number": {
      if (typeof value !== "number" || (field.type === "integer" && !Number.isInteger(value)))
        return `expected ${field.type === "integer" ? "an integer" : "a number"}`;
      if (field.minimum !== undefined && value < field.minimum) return `less than minimum ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `greater than maximum ${field.maximum}`;
      break;
    }
    case "boolean":
      if (typeof value !== "boolean") return "expected true or false";
      break;
    case "array": {
      if (!Array.isArray(value)) return "expected a list";
      if (field.minItems !== undefined && value.length < field.minItems) return `fewer than minItems ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `more than maxItems ${field.maxItems}`;
      for (const [i, item] of value.entries()) {
        const problem = field.items ? checkValue(field.items, item) : undefined;
        if (problem) return `item ${i}: ${problem}`;
      }
      break;
    }
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return "expected a map";
      const record = value as Record<string, unknown>;
      for (const child of field.fields ?? []) {
        if (!Object.hasOwn(record, child.name)) {
          if (child.required) return `\`${child.name}\` is required`;
          continue;
        }
        const problem = checkValue(child, record[child.name]);
        if (problem) return `\`${child.name}\`: ${problem}`;
      }
      const unknown = Object.keys(record).find((k) => !(field.fields ?? []).some((f) => f.name === k));
      if (unknown !== undefined) return `\`${unknown}\` is not a field`;
      break;
    }
  }
  if (field.enum && !field.enum.includes(value as never)) return `not one of the enum values`;
  return undefined;
}

/**
 * Whether `text` matches `pattern` as the generated server decides it: in linear time, so a
 * declaration's own default cannot hang the generator; a pattern the automaton cannot take runs
 * as the server (opted in) runs it.
 */
function safeTest(pattern: string, text: string): boolean {
  let compiled: { test(text: string): boolean };
  try {
    compiled = compilePattern(pattern);
  } catch {
    try {
      compiled = new RegExp(pattern, "u");
    } catch {
      return true; // a bad pattern is reported on its own
    }
  }
  return compiled.test(text);
}
