// Synthetic HostInfo for `explain --platform` and for golden tests: a plausible machine of
// each OS, with no file system access. Documented defaults (README "explain --platform"):
//   linux:  home /home/user, tmp /tmp, cwd /home/user/project, bwrap 0.11.0 usable, Landlock ABI 6
//   darwin: home /Users/user, tmp /private/var/folders/zz/T (user cache dir .../zz/C), cwd /Users/user/project;
//           /tmp, /var, /etc canonicalize to /private/...
//   win32:  home C:/Users/user, tmp C:/Users/user/AppData/Local/Temp, cwd C:/Users/user/project
// Every path under home, cwd, tmp and the system roots "exists" as a directory; nothing else does.
import type { Platform } from '../policy/types.ts';
import type { HostInfo, PathKind } from './types.ts';

export interface SyntheticHost extends HostInfo {
  readonly cwd: string;
}

export interface SyntheticOverrides {
  readonly home?: string;
  readonly tmpdir?: string;
  readonly cwd?: string;
  /** path → kind for paths that should exist (others are 'missing' unless a known dir). */
  readonly files?: Readonly<Record<string, PathKind>>;
  /** path → canonical path (symlinks). */
  readonly links?: Readonly<Record<string, string>>;
  readonly texts?: Readonly<Record<string, string>>;
  readonly bwrap?: HostInfo['bwrap'] | null;
  readonly landlockAbi?: number;
  /** A root-owned perl for bwrap's status reporter; none by default. */
  readonly statusReporter?: string;
  /** win32: cordon's own job membership (default: in no job). */
  readonly windowsJob?: HostInfo['windowsJob'];
}

const DARWIN_ALIASES: [string, string][] = [
  ['/tmp', '/private/tmp'],
  ['/var', '/private/var'],
  ['/etc', '/private/etc'],
];

export function syntheticHost(platform: Platform, overrides: SyntheticOverrides = {}): SyntheticHost {
  const defaults =
    platform === 'linux'
      ? {
          home: '/home/user',
          tmpdir: '/tmp',
          cwd: '/home/user/project',
          systemRoots: ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/etc', '/opt'],
        }
      : platform === 'darwin'
        ? {
            home: '/Users/user',
            tmpdir: '/private/var/folders/zz/T',
            cwd: '/Users/user/project',
            systemRoots: [
              '/usr',
              '/bin',
              '/sbin',
              '/System',
              '/Library',
              '/private/etc',
              '/private/var/db',
              '/private/var/select',
              '/opt/homebrew',
              '/Applications',
            ],
          }
        : {
            home: 'C:/Users/user',
            tmpdir: 'C:/Users/user/AppData/Local/Temp',
            cwd: 'C:/Users/user/project',
            systemRoots: ['C:/Windows', 'C:/Program Files', 'C:/Program Files (x86)', 'C:/ProgramData'],
          };
  const home = overrides.home ?? defaults.home;
  const tmpdir = overrides.tmpdir ?? defaults.tmpdir;
  const cwd = overrides.cwd ?? defaults.cwd;
  const files = overrides.files ?? {};
  const links = overrides.links ?? {};
  const knownDirs = [home, tmpdir, cwd, ...defaults.systemRoots];
  const realpath = (path: string): string => {
    let p = path;
    for (const [from, to] of Object.entries(links)) {
      if (p === from || p.startsWith(`${from}/`)) p = to + p.slice(from.length);
    }
    if (platform === 'darwin') {
      for (const [from, to] of DARWIN_ALIASES)
        if (p === from || p.startsWith(`${from}/`)) p = to + p.slice(from.length);
    }
    return p;
  };
  const kind = (path: string): PathKind => {
    const explicit = files[path];
    if (explicit) return explicit;
    if (links[path] !== undefined) return 'symlink';
    if (path === '/' || /^[A-Za-z]:\/?$/.test(path)) return 'dir';
    return knownDirs.some((d) => d === path || d.startsWith(`${path}/`)) ? 'dir' : 'missing';
  };
  return {
    platform,
    arch: platform === 'darwin' ? 'arm64' : 'x64',
    uid: platform === 'win32' ? -1 : 1000,
    home,
    tmpdir,
    cwd,
    systemRoots: defaults.systemRoots,
    darwinUserDirs:
      platform === 'darwin'
        ? { temp: tmpdir, cache: tmpdir.endsWith('/T') ? `${tmpdir.slice(0, -2)}/C` : undefined }
        : undefined,
    bwrap:
      platform !== 'linux' || overrides.bwrap === null
        ? undefined
        : (overrides.bwrap ?? {
            path: '/usr/bin/bwrap',
            version: '0.11.0',
            usable: true,
            supportsDisableUserns: true,
            supportsOverlay: true,
          }),
    landlock: platform === 'linux' ? { abi: overrides.landlockAbi ?? 6 } : undefined,
    statusReporter: platform === 'linux' ? overrides.statusReporter : undefined,
    windowsJob:
      platform === 'win32' ? (overrides.windowsJob ?? { inJob: false, breakawayAllowed: false }) : undefined,
    seccompNotify: platform === 'linux',
    realpath,
    kind,
    readText: (path) => overrides.texts?.[path],
    listDir: (path) => {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = new Set<string>();
      for (const p of [
        ...knownDirs,
        ...Object.keys(files),
        ...Object.keys(links),
        '/dev/null',
        '/proc/self',
      ]) {
        if (p.startsWith(prefix) && p.length > prefix.length)
          names.add(p.slice(prefix.length).split('/')[0]!);
      }
      return [...names].sort();
    },
    readlink: (path) => links[path],
  };
}
