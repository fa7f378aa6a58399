// Which backends can enforce a network allowlist (policy.allowNet), pure. Only bubblewrap
// (with the unix-socket supervisor, checked in linux/unix-sockets.ts) keeps the command in its
// own network namespace with cordon's proxy as the one way out; Seatbelt allows outbound only
// to the proxy's loopback port (plan/macos/seatbelt-network.ts). The others refuse (125).
import { CordonError } from '../errors.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import type { BackendName } from './types.ts';

const LANDLOCK =
  'Landlock has no network namespace: its TCP rules (ABI 4+) allow a port number on every address, not one address, and UDP (DNS included) is not mediated at all, so the command could go around the proxy';

export function checkAllowNetBackend(backend: BackendName, policy: SandboxPolicy, bestEffort: boolean): void {
  if (!policy.allowNet) return;
  const list = policy.allowNet.join(', ');
  switch (backend) {
    case 'none':
    case 'bwrap':
    case 'seatbelt':
      return;
    case 'landlock':
      throw new CordonError(
        'policy-unenforceable',
        `--allow-net ${list}: ${LANDLOCK}${bestEffort ? ' (--best-effort does not run it either: a port rule is no allowlist)' : ''} — install bubblewrap, or use --net / no network`,
      );
    case 'windows':
      throw new CordonError(
        'policy-unenforceable',
        `--allow-net ${list}: the Windows backend cannot confine the network to one proxy (a restricted token has no per-address network rules) — use --net or no network`,
      );
  }
}
