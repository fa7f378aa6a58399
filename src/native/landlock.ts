// Landlock and seccomp through koffi (x86_64 and aarch64 syscall numbers; Debian 12's headers
// are too old for ABI >= 4, so constants are written out here). Everything here acts on the
// calling thread; callers must only use it in a process that is about to become the command.
import { loadLibC } from './linux.ts';

const SYSCALLS: Record<string, { create: number; addRule: number; restrict: number }> = {
  x64: { create: 444, addRule: 445, restrict: 446 },
  arm64: { create: 444, addRule: 445, restrict: 446 },
};

export const LANDLOCK_CREATE_RULESET_VERSION = 1;

function numbers() {
  const n = SYSCALLS[process.arch];
  if (!n) throw new Error(`Landlock syscall numbers unknown for ${process.arch}`);
  return n;
}

/** Landlock ABI version, 0 when the kernel lacks it or it is disabled. */
export function probeLandlockAbi(): number {
  const libc = loadLibC();
  const abi = Number(
    libc.syscall(numbers().create, 'void *', null, 'size_t', 0, 'uint32_t', LANDLOCK_CREATE_RULESET_VERSION),
  );
  return Math.max(abi, 0);
}
