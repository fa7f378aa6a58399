// `cordon cache` (where the sandbox cache lives, each entry's size) and `cordon cache clear`
// (empty it). Walks with lstat and never follows a link: a sandboxed command may have left
// links in its cache that point at the host's files; clearing goes through native/fsat.ts.
import { closeSync, lstatSync, readdirSync } from 'node:fs';
import { probeHost } from '../host/probe.ts';
import { openDirPath, removeTreeAt } from '../native/fsat.ts';
import { type CacheClearJson, type CacheShowJson, stamp } from '../result/json.ts';
import { resolveCacheRoot, workspaceKey } from './layout.ts';
import { checkPrivateDir } from './prepare.ts';

export interface CacheEntryInfo {
  readonly name: string;
  readonly path: string;
  readonly bytes: number;
}

function sizeOf(path: string): number {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  let total = 0;
  let names: string[] = [];
  try {
    names = readdirSync(path);
  } catch {
    return 0;
  }
  for (const name of names) total += sizeOf(`${path}/${name}`);
  return total;
}

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i += 1;
  }
  return `${i === 0 ? value : value.toFixed(1)} ${units[i]}`;
}

export function runCacheCommand(
  action: 'show' | 'clear',
  json: boolean,
  cwd: string,
  write: (fd: number, text: string) => void,
): number {
  const host = probeHost({});
  const root = resolveCacheRoot(host, process.env);
  const exists = host.kind(root) !== 'missing';
  if (exists) checkPrivateDir(root, host.uid);
  const entries: CacheEntryInfo[] = exists
    ? readdirSync(root)
        .sort()
        .map((name) => ({ name, path: `${root}/${name}`, bytes: sizeOf(`${root}/${name}`) }))
    : [];
  if (action === 'clear') {
    // Descriptor-relative and no-follow (a run may still be swapping directories in its
    // entry for links to the host's files); Go's read-only module dirs are made writable
    // through the same descriptors.
    const rootFd = openDirPath(host.realpath(root));
    try {
      for (const entry of entries) removeTreeAt(rootFd, entry.name);
    } finally {
      closeSync(rootFd);
    }
    const freed = entries.reduce((sum, e) => sum + e.bytes, 0);
    if (json) {
      const doc: CacheClearJson = stamp({ root, cleared: entries.length, bytes: freed });
      write(1, `${JSON.stringify(doc)}\n`);
    } else
      write(
        1,
        `cleared ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} (${formatBytes(freed)}) in ${root}\n`,
      );
    return 0;
  }
  const workspace = workspaceKey(host.realpath(cwd));
  const total = entries.reduce((sum, e) => sum + e.bytes, 0);
  if (json) {
    const doc: CacheShowJson = stamp({ root, bytes: total, workspaceEntry: workspace, entries });
    write(1, `${JSON.stringify(doc)}\n`);
    return 0;
  }
  const lines = [
    `sandbox cache: ${root}${exists ? '' : ' (not created yet)'}`,
    `total: ${formatBytes(total)}`,
  ];
  for (const e of entries)
    lines.push(
      `  ${formatBytes(e.bytes).padStart(10)}  ${e.name}${e.name === workspace ? '  (this directory)' : ''}`,
    );
  lines.push(`this directory's entry (cache: workspace): ${workspace}`);
  write(1, `${lines.join('\n')}\n`);
  return 0;
}
