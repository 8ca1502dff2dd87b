/** Parsed JSON read one way by compile/ and emit/ alike: a JSON object is an object, not null and not an array. */
export type Json = { readonly [key: string]: unknown };

export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The value as a JSON object; undefined (asObject) or `{}` (objectOf) for anything else. */
export const asObject = (value: unknown): Json | undefined => (isObject(value) ? value : undefined);
export const objectOf = (value: unknown): Json => (isObject(value) ? value : {});

/** The value as a list; `[]` for anything else. */
export const listOf = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
