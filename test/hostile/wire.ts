// Raw HTTP/1.1 over node:net for the hostile suites: every byte is the test's choice (invalid
// UTF-8, bare CR or LF, bodies far larger than the limit), and every exchange is bounded in time.

import { connect } from "node:net";

/** What came back on one connection: the first response, parsed, and whether the server closed. */
export type WireReply = {
  status: number;
  headers: Map<string, string>;
  /** The response headers exactly as sent (to look for injected lines). */
  head: string;
  text: string;
  body: unknown;
  closed: boolean;
  /** Bytes the client managed to write before the exchange ended. */
  written: number;
};

/** Options of one exchange. */
export type WireOptions = {
  /** Time to wait for the server to answer and close (ms). */
  waitMs?: number;
  /** Stop reading as soon as one whole response has arrived. */
  untilResponse?: boolean;
};

/**
 * Writes `parts` (strings as latin1, so a `\xff` is one byte; or Buffers) in turn on a new
 * connection to 127.0.0.1:`port` and reads until the server closes or `waitMs` pass. A part may be
 * a function that writes on its own (a slow or endless client) and returns when done.
 */
export function wire(
  port: number,
  parts: readonly (string | Buffer | ((write: (chunk: Buffer) => boolean, stopped: () => boolean) => Promise<void>))[],
  options: WireOptions = {},
): Promise<WireReply> {
  const { waitMs = 2_000 } = options;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let closed = false;
    let done = false;
    let written = 0;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const all = Buffer.concat(chunks);
      if (all.length === 0) reject(new Error("no response"));
      else resolve({ ...parse(all), closed, written });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.untilResponse && complete(Buffer.concat(chunks))) finish();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      closed = true;
      finish();
    });
    const write = (chunk: Buffer): boolean => {
      if (done || socket.destroyed) return false;
      written += chunk.length;
      return socket.write(chunk);
    };
    void (async () => {
      for (const part of parts) {
        if (done) return;
        if (typeof part === "function") await part(write, () => done || socket.destroyed);
        else write(typeof part === "string" ? Buffer.from(part, "latin1") : part);
      }
    })();
  });
}

function complete(all: Buffer): boolean {
  const end = all.indexOf("\r\n\r\n");
  if (end === -1) return false;
  const match = /\r\ncontent-length:\s*(\d+)/i.exec(all.subarray(0, end).toString("latin1"));
  return all.length >= end + 4 + Number(match?.[1] ?? 0);
}

function parse(all: Buffer): Omit<WireReply, "closed" | "written"> {
  const end = all.indexOf("\r\n\r\n");
  const head = (end === -1 ? all : all.subarray(0, end)).toString("latin1");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = end === -1 ? Buffer.alloc(0) : all.subarray(end + 4);
  const length = Number(headers.get("content-length") ?? rest.length);
  const text = rest.subarray(0, length).toString("utf8");
  let body: unknown;
  try {
    body = text === "" ? undefined : (JSON.parse(text) as unknown);
  } catch {
    body = Symbol.for("not JSON");
  }
  return { status: Number(statusLine.split(" ")[1]), headers, head, text, body };
}

/** A request head: the request line, `Host`, the given header lines, `Connection: close`, and the blank line. */
export function head(requestLine: string, lines: readonly string[] = [], keepAlive = false): string {
  return [requestLine, "Host: 127.0.0.1", ...lines, ...(keepAlive ? [] : ["Connection: close"]), "", ""].join("\r\n");
}

/** A whole request with a body, `Content-Length` set to its byte length. */
export function request(method: string, target: string, body: string | Buffer | undefined, lines: readonly string[] = []): Buffer {
  const bytes = body === undefined ? Buffer.alloc(0) : typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const length = body === undefined ? [] : [`Content-Length: ${bytes.length}`];
  return Buffer.concat([Buffer.from(head(`${method} ${target} HTTP/1.1`, [...lines, ...length]), "latin1"), bytes]);
}
