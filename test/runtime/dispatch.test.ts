// The dispatcher's waiting for application hooks (runtime/dispatch.gen.ts, inTime): a hook that
// answers at once costs no promise and no timer; hooks that are awaited share one timer per time
// limit and still each expire at their own deadline (per-request work of the server).
import { afterEach, describe, expect, it, vi } from "vitest";
import { HandlerTimeoutError, inTime } from "../../runtime/dispatch.gen.js";
import type { DispatchOptions } from "../../runtime/dispatch.gen.js";
import { checkSecurity } from "../../runtime/guards.gen.js";
import type { IncomingMessage } from "node:http";

const options = (handlerTimeout: number) => ({ verifyToken: () => undefined, handlerTimeout }) as DispatchOptions;
const never = () => new Promise<never>(() => undefined);
/** A request of its own for each hook: the deadline is per request. */
const request = () => ({}) as IncomingMessage;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("inTime", () => {
  it("answers a hook's value at once when the hook answers at once", () => {
    const value = inTime(options(1000), request(), "the hook", () => 42);
    expect(value).toBe(42);
    expect(() => inTime(options(1000), request(), "the hook", () => JSON.parse("{"))).toThrow(SyntaxError);
  });

  it("arms one timer for many awaited hooks of one limit, not one each", async () => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    const waits = Array.from({ length: 500 }, () => inTime(options(60_000), request(), "the hook", () => Promise.resolve(1)));
    expect(spy.mock.calls.length).toBeLessThanOrEqual(1);
    expect(await Promise.all(waits)).toEqual(Array.from({ length: 500 }, () => 1));
  });

  it("expires each awaited hook at its own deadline, whatever the limits of the others", async () => {
    const order: string[] = [];
    const watch = (name: string, wait: unknown) =>
      Promise.resolve(wait).then(
        () => order.push(`${name} answered`),
        (error: unknown) => order.push(error instanceof HandlerTimeoutError ? `${name} expired` : `${name} failed`),
      );
    const slow = watch("slow", inTime(options(300), request(), "slow", never));
    await sleep(20);
    const late = watch("late", inTime(options(300), request(), "late", never));
    const quick = watch("quick", inTime(options(60), request(), "quick", never));
    const inTimeHook = watch(
      "in time",
      inTime(options(300), request(), "in time", () => sleep(30)),
    );
    await Promise.all([slow, late, quick, inTimeHook]);
    expect(order).toEqual(["in time answered", "quick expired", "slow expired", "late expired"]);
  });

  it("a hook that answers after its deadline is ignored; one settled before it is not expired", async () => {
    const errors: unknown[] = [];
    const settled = await inTime(options(50), request(), "settled", () => sleep(5).then(() => "done"));
    const expired = Promise.resolve(inTime(options(50), request(), "expired", () => sleep(150).then(() => "late"))).catch((error: unknown) =>
      errors.push(error),
    );
    await expired;
    await sleep(150);
    expect(settled).toBe("done");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(HandlerTimeoutError);
  });
});

describe("checkSecurity", () => {
  it("decides at once, with no promise, when the token check answers at once", () => {
    const req = { rawHeaders: ["Authorization", "Bearer good"], headers: { authorization: "Bearer good" } } as unknown as IncomingMessage;
    const principal = { subject: "ann", scopes: ["a"] };
    const context = { schemes: { bearer: { kind: "bearer" as const }, code: { kind: "bearer" as const } }, hooks: {}, verifyToken: () => principal };
    const requirements = [[{ scheme: "bearer", scopes: ["a"] }], [{ scheme: "code", scopes: ["a"] }]];
    const access = checkSecurity(requirements, context, req, new Map());
    expect(access).not.toBeInstanceOf(Promise);
    expect(access).toEqual({ ok: true, principal, scopes: { scopes: ["a"], scopeStr: "a" } });
  });
});
