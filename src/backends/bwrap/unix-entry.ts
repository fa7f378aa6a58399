// The unix-socket supervisor process (dist/unix-supervisor.js), started by cordon in place of
// bwrap: argv SPEC_JSON -- BWRAP [ARG ...], bwrap's environment encoded as the Landlock helper's
// is (CORDON_LANDLOCK_ENV_<n>, the only variables, so no NODE_OPTIONS of the command configures
// this Node). Descriptors 3 .. 3+dataFds-1 are bwrap's data descriptors and pass through.
//   1. A worker thread starts first, so it is NOT covered by the filter; it loads koffi, drops
//      its capabilities and then serves the listener (unix-supervisor.ts).
//   2. The main thread installs plan/linux/unix-filter.ts with a new listener on itself, hands
//      the listener to the worker and spawns bwrap: libuv forks from this thread, so bwrap and
//      everything inside inherit the filter.
//   3. When bwrap exits this process exits the same way (code or signal). If this process dies
//      first, the listener closes and every further trapped call fails (ENOSYS): closed, not open.
import { spawn } from 'node:child_process';
import { closeSync, statSync, writeSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { setParentDeathSignal } from '../../native/landlock.ts';
import { createPipe } from '../../native/linux.ts';

const SIGKILL = 9;

import { dropThreadCapabilities, installListenerFilter } from '../../native/seccomp-notify.ts';
import { buildUnixFilter, isUnixFilterArch } from '../../plan/linux/unix-filter.ts';
import { decodeHelperEnv } from '../landlock/helper-env.ts';
import { type SupervisorSpec, UnixSupervisor } from './unix-supervisor.ts';

export interface UnixHelperSpec {
  readonly network: 'on' | 'off';
  /** Host paths of sockets the command may connect to (--allow-unix), canonical. */
  readonly allow: readonly string[];
  readonly dataFds: number;
  /** The allowlist proxy's port on the host's loopback (unix-proxy.ts); absent: no allowlist. */
  readonly proxyPort?: number | undefined;
  /** cordon's pid: this process dies with it (PR_SET_PDEATHSIG), and refuses to start if it is gone. */
  readonly parentPid: number;
}

function die(message: string, code: number): never {
  writeSync(2, `cordon-unix: ${message}\n`);
  process.exit(code);
}

function workerMain(spec: SupervisorSpec): void {
  try {
    dropThreadCapabilities();
  } catch (error) {
    parentPort?.postMessage({ error: (error as Error).message });
    return;
  }
  parentPort?.once('message', (msg: { listener: number; wake: number }) => {
    const supervisor = new UnixSupervisor(msg.listener, spec);
    parentPort?.postMessage({ serving: true });
    supervisor.serve(msg.wake);
  });
  parentPort?.postMessage({ ready: true });
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.length < 3 || argv[1] !== '--') die('usage: unix-supervisor SPEC -- BWRAP ARG...', 125);
  const spec = JSON.parse(argv[0]!) as UnixHelperSpec;
  const command = argv.slice(2);
  // Die with cordon (bwrap's --die-with-parent then takes the sandbox down), and do not start
  // at all if cordon died before the signal was armed.
  setParentDeathSignal(SIGKILL);
  if (process.ppid !== spec.parentPid) die('cordon exited before the supervisor started', 125);
  if (!isUnixFilterArch(process.arch)) die(`no seccomp filter for ${process.arch}`, 125);
  const allowed: string[] = [];
  for (const path of spec.allow) {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path, { bigint: true });
    } catch {
      die(`--allow-unix ${path}: no such socket`, 125);
    }
    if (!st.isSocket()) die(`--allow-unix ${path}: not a unix socket`, 125);
    allowed.push(`${st.dev}:${st.ino}`);
  }
  const env = decodeHelperEnv(process.env);
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { network: spec.network, allowed, proxyPort: spec.proxyPort } satisfies SupervisorSpec,
    stdout: false,
    stderr: false,
  });
  worker.on('error', (error) => die(`supervisor failed: ${error.message}`, 125));
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) => worker.once('message', (m) => resolve(m)));
  const ready = await next();
  if (ready['error']) die(`supervisor could not start: ${String(ready['error'])}`, 125);
  let listener: number;
  try {
    listener = installListenerFilter(buildUnixFilter({ arch: process.arch, network: spec.network }));
  } catch (error) {
    die(`could not install the unix-socket filter: ${(error as Error).message}`, 125);
  }
  // The worker blocks in poll(2); a byte on this pipe lets it return so the process can exit.
  const [wake, wakeWriter] = createPipe();
  worker.postMessage({ listener, wake });
  await next();
  const stdio: (number | 'inherit')[] = ['inherit', 'inherit', 'inherit'];
  for (let i = 0; i < spec.dataFds; i++) stdio.push(3 + i);
  const child = spawn(command[0]!, command.slice(1), { stdio, env, argv0: command[0] });
  child.on('error', (error) => die(`could not start ${command[0]}: ${error.message}`, 125));
  // bwrap has its copies now. Ours must go: cordon reads some of these pipes to end of file
  // (the mount gate's --info-fd, the status reporter's pipe), which a copy held here would
  // never let come.
  for (let i = 0; i < spec.dataFds; i++) {
    try {
      closeSync(3 + i);
    } catch {
      // not open
    }
  }
  child.on('exit', (code, signal) => {
    writeSync(wakeWriter, 'x');
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 125);
  });
  // Forwarded termination reaches bwrap; this process then mirrors its exit.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
}

if (isMainThread) {
  main(process.argv.slice(2)).catch((error: unknown) => die(String(error), 125));
} else {
  workerMain(workerData as SupervisorSpec);
}
