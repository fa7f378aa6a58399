// The join step in front of a plan's executable (Linux, macOS): a fixed POSIX sh script —
// never built from user text; every value is a positional argument — that writes its own pid
// into each of the run's cgroup.procs files, sets RLIMIT_FSIZE (soft = hard, in POSIX 512-byte
// blocks) and execs the plan's executable. Everything the command starts is therefore born
// inside the cgroup and under the file-size limit. Pure.
export const JOIN_SHELL = '/bin/sh';
export const JOIN_NAME = 'cordon-limits';
export const JOIN_SCRIPT = [
  'b=$1; shift',
  'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "cordon-limits: cannot join the cgroup $1" >&2; exit 125; }; shift; done',
  'shift',
  'if [ "$b" != - ]; then ulimit -f "$b" || { echo "cordon-limits: cannot set the file size limit" >&2; exit 125; }; fi',
  'exec "$@"',
].join('\n');

export function wrapWithLimits(
  executable: string,
  args: readonly string[],
  fileSizeBlocks: number | undefined,
  procsFiles: readonly string[],
): { executable: string; args: string[] } {
  return {
    executable: JOIN_SHELL,
    args: [
      '-c',
      JOIN_SCRIPT,
      JOIN_NAME,
      fileSizeBlocks === undefined ? '-' : String(fileSizeBlocks),
      ...procsFiles,
      '--',
      executable,
      ...args,
    ],
  };
}

/** The join step's own failure line (exit 125). */
export const JOIN_FAILURE = /(?:^|\n)(cordon-limits: [^\n]*)\n?$/;
/** sh's line when `exec` itself fails (--backend none without setpriv). */
export const SH_EXEC_FAILURE =
  /(?:^|\n)[^\n]*\bexec: [^\n]*: (not found|Permission denied|Is a directory)\n?$/;
