// The one table of `cordon run` / `cordon explain` flags. commander's definitions (program.ts)
// and the flags → RunOptions mapping (flags.ts) are both derived from it, and OPTION_SOURCES
// says, for every RunOptions field, which flags set it — or null for a library-only option —
// so a new option cannot be added to one side and forgotten on the other (the type checker
// requires an entry for every field; a unit test checks every flag is consumed).
import type { RunOptions } from '../options/types.ts';

export interface FlagSpec {
  /** commander's spelling: short and long names, and `<value>` when the flag takes one. */
  readonly spelling: string;
  readonly help: string;
  /** 'boolean' takes no value; 'value' one; 'list' is repeatable and collects its values. */
  readonly kind: 'boolean' | 'value' | 'list';
  /** 'run': feeds RunOptions; 'cli': only shapes what the CLI prints or writes. */
  readonly scope: 'run' | 'cli';
  /** Also defines `--no-NAME` (the value false). */
  readonly negatable?: string | undefined;
}

export const FLAG_TABLE = {
  timeout: {
    spelling: '-t, --timeout <duration>',
    help: 'stop the command after this long (90 = seconds, 500ms, 30s, 10m, 1h, 2d; 0 = none); exit 124',
    kind: 'value',
    scope: 'run',
  },
  killAfter: {
    spelling: '-k, --kill-after <duration>',
    help: 'after the first signal of a timeout or Ctrl-C, send KILL this long later (default 2s)',
    kind: 'value',
    scope: 'run',
  },
  signal: {
    spelling: '-s, --signal <signal>',
    help: 'the first signal a timeout sends: TERM (default), INT, HUP, QUIT, USR1, USR2, ALRM, KILL',
    kind: 'value',
    scope: 'run',
  },
  maxOutput: {
    spelling: '--max-output <size>',
    help: 'combined stdout+stderr budget (64KiB default, 1MiB, 0 = unlimited)',
    kind: 'value',
    scope: 'run',
  },
  json: { spelling: '--json', help: 'print one JSON result object on stdout', kind: 'boolean', scope: 'cli' },
  stream: {
    spelling: '--no-stream',
    help: 'text mode: print the bounded output when the command ends instead of as it runs',
    kind: 'boolean',
    scope: 'cli',
  },
  report: {
    spelling: '--report <file>',
    help: 'write the JSON result to FILE (0600) when the command starts and when it ends',
    kind: 'value',
    scope: 'cli',
  },
  cwd: {
    spelling: '--cwd <dir>',
    help: 'run the command in DIR (also what {cwd} means)',
    kind: 'value',
    scope: 'run',
  },
  quiet: { spelling: '-q, --quiet', help: 'no metadata line', kind: 'boolean', scope: 'cli' },
  verbose: {
    spelling: '-v, --verbose',
    help: 'details: policy, backend choice, every annotation',
    kind: 'boolean',
    scope: 'cli',
  },
  backend: {
    spelling: '--backend <name>',
    help: 'auto (default), bwrap, landlock, seatbelt, windows, or none (no sandbox)',
    kind: 'value',
    scope: 'run',
  },
  profile: {
    spelling: '-p, --profile <name|file>',
    help: 'built-in profile (workspace, read-only, strict) or a YAML/JSON file',
    kind: 'value',
    scope: 'run',
  },
  read: { spelling: '--read <path>', help: 'allow reading PATH (repeatable)', kind: 'list', scope: 'run' },
  write: { spelling: '--write <path>', help: 'allow writing PATH (repeatable)', kind: 'list', scope: 'run' },
  deny: {
    spelling: '--deny <path>',
    help: 'deny all access to PATH (repeatable)',
    kind: 'list',
    scope: 'run',
  },
  changes: {
    spelling: '--changes',
    help: 'report what the command created, modified and deleted under the writable roots',
    kind: 'boolean',
    scope: 'run',
  },
  net: {
    spelling: '--net',
    help: 'allow network access',
    kind: 'boolean',
    scope: 'run',
    negatable: 'deny network access (the default profiles already do)',
  },
  allowNet: {
    spelling: '--allow-net <host>',
    help: "allow connections to HOST[:PORT] only, through cordon's proxy ('*.example.com', IP literals, localhost; repeatable)",
    kind: 'list',
    scope: 'run',
  },
  allowUnix: {
    spelling: '--allow-unix <socket>',
    help: "let the command connect to the host's unix socket at PATH (repeatable; host sockets are unreachable otherwise)",
    kind: 'list',
    scope: 'run',
  },
  env: {
    spelling: '--env <name[=value]>',
    help: 'keep NAME even if it looks like a credential, or set NAME=VALUE (repeatable)',
    kind: 'list',
    scope: 'run',
  },
  envFile: {
    spelling: '--env-file <file>',
    help: 'set the variables of a dotenv file (NAME=VALUE lines; repeatable; --env wins)',
    kind: 'list',
    scope: 'run',
  },
  clearEnv: {
    spelling: '--clear-env',
    help: 'start from an empty environment but for PATH, HOME, LANG, TERM, TMPDIR',
    kind: 'boolean',
    scope: 'run',
  },
  pids: {
    spelling: '--pids <n>',
    help: 'at most N processes and threads in the run (a cgroup; 0 = none)',
    kind: 'value',
    scope: 'run',
  },
  memory: {
    spelling: '--memory <size>',
    help: 'memory of the whole run, swap bounded (256M, 2GiB; a cgroup; 0 = none)',
    kind: 'value',
    scope: 'run',
  },
  cpuTime: {
    spelling: '--cpu-time <duration>',
    help: 'CPU time of every process of the run together (30s, 10m; a cgroup; 0 = none)',
    kind: 'value',
    scope: 'run',
  },
  fileSize: {
    spelling: '--file-size <size>',
    help: 'the largest file the command may write (10M, 1GiB; RLIMIT_FSIZE; 0 = none)',
    kind: 'value',
    scope: 'run',
  },
  bestEffort: {
    spelling: '--best-effort',
    help: 'enforce what the backend can and list the rules it cannot, instead of refusing',
    kind: 'boolean',
    scope: 'run',
  },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAG_TABLE;

type FlagValue<S extends FlagSpec> = S['kind'] extends 'boolean'
  ? boolean
  : S['kind'] extends 'list'
    ? string[]
    : string;

/** What commander hands back for the table's flags (plus explain's --platform). */
export type RawFlags = { -readonly [K in FlagName]?: FlagValue<(typeof FLAG_TABLE)[K]> } & {
  platform?: string;
};

/**
 * For every RunOptions field: the flags it is derived from, or null when only the library can
 * set it (a base environment, an AbortSignal, callbacks).
 */
export const OPTION_SOURCES: { readonly [K in keyof Required<RunOptions>]: readonly FlagName[] | null } = {
  cwd: ['cwd'],
  timeoutMs: ['timeout'],
  maxOutputBytes: ['maxOutput'],
  killAfterMs: ['killAfter'],
  timeoutSignal: ['signal'],
  backend: ['backend'],
  profile: ['profile'],
  read: ['read'],
  write: ['write'],
  deny: ['deny'],
  network: ['net'],
  allowUnix: ['allowUnix'],
  allowNet: ['allowNet'],
  env: null,
  keepEnv: ['env'],
  setEnv: ['env', 'envFile'],
  clearEnv: ['clearEnv'],
  signal: null,
  bestEffort: ['bestEffort'],
  reportDenials: ['verbose', 'json'],
  onStart: null,
  changes: ['changes'],
  onProgress: null,
  onOutput: null,
  pids: ['pids'],
  memoryBytes: ['memory'],
  cpuTimeMs: ['cpuTime'],
  fileSizeBytes: ['fileSize'],
};
