/**
 * The one gate through which a `$ref` of an OpenAPI document written by others reaches a file:
 * the file resolver and parser swagger-parser bundles with. A reference may reach only a regular
 * `.yaml`, `.yml` or `.json` file inside the root folder (the input's folder, or `--ref-root`),
 * not hidden, not through a link that leads out, of bounded size; never a URL. Everything else is
 * refused with a diagnostic at the `$ref` that asked for it, and nothing is read.
 */
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type LoadedDocument, loadDocument } from "../declaration/load.js";
import { type Diagnostic, type SourceLocation, diagnostic } from "../../diagnostics/index.js";
import { fragmentKeys, unescapeToken } from "../pointer.js";

/**
 * The largest file a reference may read, and the most all of them may read together. Why: a
 * referenced file is a part of one API description; 10 MiB is the scale of the largest public
 * descriptions in one file, so no description split into parts is refused where it would be read
 * whole, while parsing with source positions costs about 7 s and 1 GB per 10 MiB of YAML (measured),
 * so the two bounds keep a run in seconds and memory bounded whatever the folder holds.
 */
export const MAX_REF_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_REF_TOTAL_BYTES = 2 * MAX_REF_FILE_BYTES;

/** The most files in a row, each referring to the next, a reference may reach (admitDepth). */
export const MAX_FILE_CHAIN = 64;

/** A reference the gate refused: why, and the `$ref`'s place (a file's path and the pointer to it in that file). */
class Refused extends Error {}

/** What swagger-parser tells a resolver and a parser of the file it wants. */
interface FileInfo {
  readonly url: string;
  readonly baseUrl?: string;
  readonly reference?: string;
  readonly data?: unknown;
}

/** The files one bundling reads through the gate: its swagger-parser options, and what it refused. */
export class RefFiles {
  /** Diagnostics of refused references and of referenced files that do not parse. */
  readonly diagnostics: Diagnostic[] = [];
  private readonly loaded = new Map<string, LoadedDocument>();
  private readonly input: string;
  private readonly root: string;
  private realRoot: Promise<string> | undefined;
  private total = 0;
  /** How many files away from the input each file read is (1: the input refers to it). */
  private readonly depths = new Map<string, number>();

  /**
   * @param input The input document (absolute), which the parser was given as a value.
   * @param inputDocument The loaded input, to place diagnostics in it.
   * @param root The folder references may reach (absolute).
   * @param cwd The working folder, which paths in diagnostics are relative to.
   */
  constructor(
    input: string,
    private readonly inputDocument: LoadedDocument,
    root: string,
    private readonly cwd: string,
  ) {
    this.input = path.resolve(input);
    this.root = path.resolve(root);
  }

  /** swagger-parser's options: this gate as the only resolver and parser, every error collected. */
  options(): object {
    return {
      continueOnError: true,
      resolve: {
        external: true,
        http: false,
        file: { order: 1, canRead: () => true, read: (file: FileInfo) => this.read(file) },
      },
      parse: {
        json: false,
        yaml: false,
        text: false,
        binary: false,
        codegen: { order: 1, allowEmpty: false, canParse: () => true, parse: (file: FileInfo) => this.parse(file) },
      },
    };
  }

  /** Where a pointer (tokens) of a file the bundling saw stands: the input's, or a referenced file's. */
  locate(file: string, tokens: readonly string[]): SourceLocation {
    return (this.documentOf(file) ?? this.inputDocument).locate(tokens);
  }

  /** The loaded document of a file swagger-parser names (a path or URL, with or without a fragment). */
  private documentOf(file: string): LoadedDocument | undefined {
    const absolute = this.pathOf(file.split("#")[0]!);
    return absolute === undefined || absolute === this.input ? this.inputDocument : this.loaded.get(absolute);
  }

  private async read(file: FileInfo): Promise<string> {
    try {
      this.admitDepth(file);
      return await this.admit(file.url);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const [base = this.input, hash] = (file.baseUrl ?? this.input).split("#");
      const reference = file.reference ?? file.url;
      // swagger-parser names the `$ref`'s place in the base URL, but not always (not in a 3.1
      // document): then every `$ref` of the referring file to that file is the place.
      const places = hash !== undefined && hash !== "" ? [fragmentKeys(hash)] : refsTo(this.documentOf(base)?.value, reference);
      for (const place of places.length > 0 ? places : [[]]) {
        // Why `$ref` in the path: the caret goes under the reference itself, not the object holding it.
        this.diagnostics.push(diagnostic("openapi/ref-refused", { ref: reference, reason: error.message }, this.locate(base, [...place, "$ref"])));
      }
      throw error;
    }
  }

  private parse(file: FileInfo): unknown {
    const absolute = this.pathOf(file.url)!;
    const loaded = loadDocument(this.shown(absolute), String(file.data));
    if (!loaded.document) {
      this.diagnostics.push(...loaded.diagnostics);
      throw new Error(`${this.shown(absolute)} does not parse`);
    }
    this.loaded.set(absolute, loaded.document);
    return loaded.document.value;
  }

  /**
   * Refuses a file more than MAX_FILE_CHAIN files away from the input (each referring to the
   * next). Why: swagger-parser pulls each file into the one that refers to it, following the
   * references recursively, and a chain of a thousand small files overflowed its stack.
   */
  private admitDepth(file: FileInfo): void {
    const absolute = this.pathOf(file.url.split("#")[0]!);
    if (absolute === undefined || this.depths.has(absolute)) return;
    const base = this.pathOf((file.baseUrl ?? this.input).split("#")[0]!);
    const depth = (base === undefined || base === this.input ? 0 : (this.depths.get(base) ?? 0)) + 1;
    if (depth > MAX_FILE_CHAIN)
      throw new Refused(`it is the ${depth}th file of a chain of files that each refer to the next; codegen follows ${MAX_FILE_CHAIN} in a row`);
    this.depths.set(absolute, depth);
  }

  /** The file's text when the gate lets the reference read it; a Refused error says why not. */
  private async admit(url: string): Promise<string> {
    const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(url)?.[1]?.toLowerCase();
    if (scheme === "http" || scheme === "https") {
      // Why: a run makes no network requests, and fetching an address a document names would let
      // its author make requests from this machine (SSRF): to internal services, cloud metadata.
      throw new Refused("codegen fetches no URLs; save the document next to this one and refer to it by a relative path");
    }
    const absolute = this.pathOf(url);
    if (absolute === undefined) throw new Refused("only files can be referenced");
    const shownRoot = `\`${this.shown(this.root) || "."}\``;
    if (!inside(absolute, this.root)) throw new Refused(`it is outside ${shownRoot}, the folder references may reach (--ref-root names another)`);
    if (!/\.(ya?ml|json)$/i.test(absolute)) throw new Refused("only .yaml, .yml and .json files can be referenced");
    if (hidden(absolute, this.root)) throw new Refused("hidden files and folders are not read");
    const real = await fs.realpath(absolute).catch(() => undefined);
    if (real === undefined) throw new Refused("there is no such file");
    this.realRoot ??= fs.realpath(this.root).catch(() => this.root);
    const realRoot = await this.realRoot;
    // The file a link leads to is held to the same rules as the link.
    if (!inside(real, realRoot)) throw new Refused(`it is a link to a place outside ${shownRoot}, the folder references may reach`);
    if (!/\.(ya?ml|json)$/i.test(real) || hidden(real, realRoot)) throw new Refused("it is a link to a file that is not a visible .yaml, .yml or .json file");
    const handle = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
    if (handle === undefined) throw new Refused("the file cannot be opened");
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new Refused("it is not a regular file");
      if (stat.size > MAX_REF_FILE_BYTES) throw new Refused(`the file is larger than ${MAX_REF_FILE_BYTES / 1024 / 1024} MiB`);
      if (this.total + stat.size > MAX_REF_TOTAL_BYTES)
        throw new Refused(`the referenced files together are larger than ${MAX_REF_TOTAL_BYTES / 1024 / 1024} MiB`);
      this.total += stat.size;
      // Read at most one byte past the bound: a file that grows meanwhile is refused, not read whole.
      const buffer = Buffer.alloc(Math.min(stat.size, MAX_REF_FILE_BYTES) + 1);
      let length = 0;
      for (let n = -1; n !== 0 && length < buffer.length; length += n) n = (await handle.read(buffer, length, buffer.length - length, length)).bytesRead;
      if (length > stat.size) throw new Refused("the file grew while it was read");
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, length));
      } catch {
        throw new Refused("the file is not UTF-8 text");
      }
    } finally {
      await handle.close();
    }
  }

  /** The absolute path of a file URL or path as swagger-parser writes it; undefined for other URLs. */
  private pathOf(url: string): string | undefined {
    const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(url)?.[1]?.toLowerCase();
    try {
      if (scheme === "file") return path.resolve(fileURLToPath(url));
      if (scheme !== undefined) return undefined;
      // swagger-parser percent-encodes paths as URLs (a space is %20, `#` is %23).
      return path.resolve(
        decodeURI(url.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"))
          .replace(/%23/g, "#")
          .replace(/%3F/gi, "?"),
      );
    } catch {
      return undefined;
    }
  }

  /** A path as diagnostics show it: relative to the working folder. */
  private shown(absolute: string): string {
    return path.relative(this.cwd, absolute).split(path.sep).join("/");
  }
}

/** The paths (tokens) of every `$ref` in `value` that refers to the file `reference` (any fragment). */
function refsTo(value: unknown, reference: string): string[][] {
  const found: string[][] = [];
  const walk = (node: unknown, at: string[]): void => {
    if (typeof node !== "object" || node === null) return;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && ref.split("#")[0] === reference) found.push(at);
    for (const [key, item] of Object.entries(node)) walk(item, [...at, key]);
  };
  walk(value, []);
  return found;
}

/** Whether `child` is `parent` or inside it. */
function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * Whether a path inside `root` is hidden or in a hidden folder. Why: hidden files and folders hold
 * what is not the API's (.env, .git, .npmrc and their secrets).
 */
function hidden(file: string, root: string): boolean {
  return path
    .relative(root, file)
    .split(path.sep)
    .some((part) => part.startsWith("."));
}

/**
 * Whether bundling could change a document: false when every `$ref` in it is a plain local pointer
 * (`#/...` of letters, digits, `-._~`) that leads straight to a value, on a way through no other
 * `$ref` and to no `$ref`, and no `$id` changes what a pointer is relative to. Why:
 * swagger-parser's bundle walks every reference's target (1 s for GitHub's 6,000 references) to
 * pull other files in, rewrite percent-escapes and refs through refs; a document with none of
 * those comes back as it went in, so the walk is skipped. Anything else is bundled as before.
 */
export function needsBundling(document: unknown): boolean {
  const refs: string[] = [];
  let scoped = false;
  const walk = (node: unknown): void => {
    if (typeof node !== "object" || node === null || scoped) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    const object = node as Record<string, unknown>;
    if ("$id" in object) scoped = true;
    if ("$ref" in object) refs.push(typeof object.$ref === "string" ? object.$ref : "");
    for (const key in object) walk(object[key]);
  };
  walk(document);
  if (scoped) return true;
  const isRef = (node: unknown) => typeof node === "object" && node !== null && "$ref" in node;
  return refs.some((ref) => {
    if (!/^#(\/[A-Za-z0-9._~-]*)*$/.test(ref)) return true;
    let node: unknown = document;
    for (const token of ref === "#" ? [] : ref.slice(2).split("/")) {
      if (isRef(node) || typeof node !== "object" || node === null) return true;
      const key = unescapeToken(token);
      if (Array.isArray(node) ? !/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= node.length : !Object.hasOwn(node, key)) return true;
      node = (node as Record<string, unknown>)[key];
    }
    return isRef(node);
  });
}
