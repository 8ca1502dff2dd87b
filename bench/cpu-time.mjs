// The CPU time a process has had: the one reader of bench/run.mjs, bench/server-cpu.mjs and
// bench/pg-cpu.mjs. Linux only (/proc); elsewhere it answers undefined and the CPU figures are left out.
import { readdirSync, readFileSync } from "node:fs";

/**
 * The CPU time (ns) every thread of process `pid` has had so far, kernel time included
 * (/proc/PID/task/*\/schedstat); undefined where /proc has no such process.
 * Why every thread: V8 collects garbage and compiles on threads of its own.
 */
export function cpuTimeOf(pid) {
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let sum = 0;
  for (const task of tasks) {
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A thread that ended meanwhile counts nothing more.
    }
  }
  return sum;
}
