// Host-side process checks for leak tests: find live processes whose command line contains a
// unique marker, and count this process's open descriptors and live children.
import { readdirSync, readFileSync } from 'node:fs';

export function findProcesses(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z') continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').replace(/\0/g, ' ');
      if (cmdline.includes(marker)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * The processes still alive with `marker` after up to `withinMs`: a SIGKILLed process can take
 * a moment to be scheduled and die on a loaded machine. Empty means every one is gone.
 */
export async function processesLeft(marker: string, withinMs = 3000): Promise<number[]> {
  const until = Date.now() + withinMs;
  let left = findProcesses(marker);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = findProcesses(marker);
  }
  return left;
}

export function countOpenFds(): number {
  return readdirSync('/proc/self/fd').length;
}

export function countLiveChildren(): number {
  let n = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) === process.pid && rest[0] !== 'Z') n++;
    } catch {
      // gone
    }
  }
  return n;
}

export function uniqueMarker(): string {
  // a sleep duration no other process uses: "sleep 30.<random>"
  return `30.${Math.floor(Math.random() * 1e9)}`;
}
