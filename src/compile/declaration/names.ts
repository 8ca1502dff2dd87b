import pluralize from "pluralize";

/** `blog-posts` -> `BlogPosts`; `article` -> `Article`. */
export function pascalCase(name: string): string {
  // Why a loop: asked for every type name and operationId, the parts and their arrays
  // were garbage. Each part's first code unit is upper-cased, `-` and `_` dropped.
  let out = "";
  let from = 0;
  for (let i = 0; i <= name.length; i++) {
    const c = name.charCodeAt(i);
    if (i < name.length && c !== DASH && c !== UNDERSCORE) continue;
    if (i > from) out += name[from]!.toUpperCase() + name.slice(from + 1, i);
    from = i + 1;
  }
  return out;
}
const DASH = 0x2d;
const UNDERSCORE = 0x5f;

/** `blog-posts` -> `blogPosts`. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal.length > 0 ? pascal[0]!.toLowerCase() + pascal.slice(1) : pascal;
}

/** What the inflection library makes of a collection name; only its last word is inflected. */
export interface Inflection {
  readonly singular: string;
  /** The plural of the last word, for suggestions: `person` -> `people`. */
  readonly plural: string;
  /** The name is a plural noun (or one whose plural is itself, like `news`). */
  readonly isPlural: boolean;
  /** The singular is the same word as the plural (`news`, `series`). */
  readonly sameWord: boolean;
}

/** Inflect a collection name such as `blog-posts` (only `posts` is a noun to inflect). */
export function inflectCollection(name: string): Inflection {
  const cut = name.lastIndexOf("-") + 1;
  const head = name.slice(0, cut);
  const last = name.slice(cut);
  const singular = pluralize.singular(last);
  const plural = pluralize.plural(singular);
  return {
    singular: head + singular,
    plural: head + pluralize.plural(last),
    isPlural: pluralize.isPlural(last) && plural === last,
    sameWord: singular === last,
  };
}

/**
 * "an article", "a user", "an hour": the article for a noun in summaries. It goes by the first
 * sound, not the first letter: a `u` before one consonant and a vowel (`user`, `unit`), `uu`
 * (`uuid`), `eu` and `one` start with a "y" or "w" sound; a silent `h` starts with a vowel.
 */
export function withArticle(noun: string): string {
  const vowel = /^(?:[aeiou]|h(?:our|onest|onou?r|eir))/i.test(noun) && !/^(?:u(?:[b-df-hj-np-tv-z][aeiou]|u)|eu|one)/i.test(noun);
  return (vowel ? "an " : "a ") + noun;
}

/** The words of a name for prose: `blog-posts` -> `blog posts`. */
export function words(name: string): string {
  return name.replace(/[-_]/g, " ");
}

/** The operationId of a resource operation: `listArticles`, `getArticle`, `createArticle`, ... */
export function operationIdOf(operation: string, resource: { readonly name: string; readonly singular: string }): string {
  return camelCase(`${operation}-${operation === "list" ? resource.name : resource.singular}`);
}

/** The operationId of an action: the action and the singular (`renew` on `loans`: `renewLoan`). */
export function actionOperationId(action: string, singular: string): string {
  return camelCase(`${action}-${singular}`);
}

/** The schema of an action's request body: `<Type><Action>Request` (`LoanRenewRequest`). */
export function actionRequestName(typeName: string, action: string): string {
  return `${typeName}${pascalCase(action)}Request`;
}
