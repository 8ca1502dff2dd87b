/**
 * Which fields of an action's body the stores write onto the object (declaration.md, "Actions":
 * a body field with the name of a field of the resource and a compatible type is stored with the
 * `to` state, in one write). Compatible (docs/declaration.md "Actions that store their body"):
 * every value the body field accepts is one the resource field may hold, so the stored object
 * still matches the resource's schema.
 */
import type { Field } from "./model.js";
import { withArticle } from "./names.js";

/** The bounds a body field must keep within the resource field's: a lower one at least, an upper one at most. */
const LOWER = ["minLength", "minimum", "minItems"] as const;
const UPPER = ["maxLength", "maximum", "maxItems"] as const;

/**
 * Why a body field may not be stored in the resource field of its name, or undefined when every
 * value it accepts fits that field: the same type and format, an `enum` within the
 * field's, `null` only where the field may hold it, bounds and `pattern` at least as strict;
 * array items and object fields alike, recursively. A body declares no `ref`: the id a `ref`
 * field is given is checked by the store's write (409 naming the field when no object has it).
 */
export function incompatibility(body: Field, field: Field, at = body.name): string | undefined {
  // Why an integer may go into a number: every integer is one (JSON Schema's `integer`).
  if (body.type !== field.type && !(body.type === "integer" && field.type === "number"))
    return `\`${at}\` is ${withArticle(body.type)} here and ${withArticle(field.type)} on the resource`;
  if (body.format !== field.format) return `\`${at}\` has the format ${body.format ?? "(none)"} here and ${field.format ?? "(none)"} on the resource`;
  if (body.nullable && !field.nullable) return `\`${at}\` accepts null here, which the resource field may not hold`;
  if (field.enum !== undefined) {
    const outside = body.enum === undefined ? undefined : body.enum.find((value) => !field.enum!.includes(value));
    if (body.enum === undefined || outside !== undefined)
      return `\`${at}\` accepts ${outside === undefined ? "any value" : JSON.stringify(outside)} here, outside the resource field's enum`;
  }
  for (const key of LOWER) {
    const bound = field[key];
    if (bound !== undefined && !((body[key] ?? -Infinity) >= bound)) return `\`${at}\` needs \`${key}\` of at least ${bound}, as on the resource`;
  }
  for (const key of UPPER) {
    const bound = field[key];
    if (bound !== undefined && !((body[key] ?? Infinity) <= bound)) return `\`${at}\` needs \`${key}\` of at most ${bound}, as on the resource`;
  }
  if (field.pattern !== undefined && body.pattern !== field.pattern) return `\`${at}\` needs the resource field's \`pattern\``;
  if (field.items !== undefined && body.items !== undefined) {
    const problem = incompatibility(body.items, field.items, `${at}[]`);
    if (problem !== undefined) return problem;
  }
  if (field.fields !== undefined || body.fields !== undefined) {
    const own = field.fields ?? [];
    for (const sub of body.fields ?? []) {
      const target = own.find((f) => f.name === sub.name);
      if (target === undefined) return `\`${at}.${sub.name}\` is no field of the resource's \`${at}\``;
      const problem = incompatibility(sub, target, `${at}.${sub.name}`);
      if (problem !== undefined) return problem;
    }
    for (const target of own) {
      if (target.required && !(body.fields ?? []).some((f) => f.name === target.name && f.required))
        return `\`${at}.${target.name}\` is required on the resource, so it must be here`;
    }
  }
  return undefined;
}
