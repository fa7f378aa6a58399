// The socket and network sections of the Seatbelt profile. Pure.
//
// A unix-domain socket's connect() is checked as network-outbound and its bind() as
// network-bind, never against the file rules, so a blanket (allow network-outbound) would reach
// every host daemon (Docker, ssh-agent, gpg-agent, 1Password). So, in every network mode:
//   1. the command's own sockets: bind and connect inside the writable roots (private temp
//      included) minus their read-only and denied carve-outs, as on Linux;
//   2. host daemons' sockets stay unreachable even inside a writable root (`--write ~`,
//      `--write /tmp`): Docker and its look-alikes, agent sockets, SSH_AUTH_SOCK — denied;
//   3. sockets named with --allow-unix (policy.allowUnix): connect, after the denies of 2.
// Network on adds IP both ways (`(remote ip "*:*")`, not every socket), the resolver socket and
// files, and the services DNS and TLS need. Network off with the profile key `localBinding`
// adds loopback only: the host's loopback, shared with the user's own servers.
import type { HostInfo } from '../../host/types.ts';
import { findGoverningRule } from '../../policy/access.ts';
import type { PolicyRule, SandboxPolicy } from '../../policy/types.ts';
import { aliasesRegex } from './seatbelt-aliases.ts';
import { SEATBELT_LOG_TAG } from './seatbelt-base.ts';
import { allowForm, clause, type ParamTable } from './seatbelt-rules.ts';

/** Where host daemons put their sockets; matched with every spelling (seatbelt-aliases.ts). */
export function daemonSocketPaths(host: HostInfo, env: Readonly<Record<string, string>>): string[] {
  const home = host.home;
  const paths = [
    '/var/run/docker.sock',
    '/var/run/docker.sock.raw',
    '/var/run/docker',
    '/Users/Shared/.docker',
    `${home}/.docker/run`,
    `${home}/.docker/desktop`,
    `${home}/Library/Containers/com.docker.docker`,
    `${home}/.orbstack`,
    `${home}/.colima`,
    `${home}/.lima`,
    `${home}/.rd`,
    `${home}/.gnupg`,
    `${home}/.ssh`,
    `${home}/Library/Group Containers/2BUA8C4S2C.com.1password`,
  ];
  const agent = env['SSH_AUTH_SOCK'];
  if (agent?.startsWith('/')) paths.push(agent);
  // Both spellings: whether Seatbelt matches a socket's path as the command wrote it or as it
  // resolves (/var/run/docker.sock is a symlink into ~/.docker/run) is for the Mac lane.
  return [...new Set(paths.flatMap((p) => [p, host.realpath(p)]))];
}

/**
 * Static patterns: launchd's per-session listeners in /private/tmp (the system ssh-agent), and
 * agents started by hand (OpenSSH's `$TMPDIR/ssh-XXXXXXXX/agent.PID`, wherever TMPDIR was).
 */
const STATIC_DAEMON_SOCKETS = [
  '(regex #"^/private/tmp/com\\.apple\\.launchd\\.[^/]+/")',
  '(regex #"/ssh-[^/]+/agent\\.[0-9]+$")',
];

export interface SocketInput {
  readonly table: ParamTable;
  readonly writable: readonly PolicyRule[];
  readonly exclusions: readonly (readonly PolicyRule[])[];
  readonly daemons: readonly string[];
  readonly allowUnix: readonly string[];
}

export function socketSection(input: SocketInput): string {
  const { table, writable, exclusions, daemons, allowUnix } = input;
  const out: string[] = [];
  if (writable.length > 0) {
    const local = (f: string) => `(local unix-socket ${f})`;
    const remote = (f: string) => `(remote unix-socket ${f})`;
    out.push(
      `; Unix-domain sockets by path, in any network mode: bind and connect inside the writable\n; roots only (build servers, test workers, language servers), as on Linux.\n${allowForm(
        'network-bind',
        writable.map((r, i) => clause(table, r.path, exclusions[i]!, local)),
      )}\n${allowForm(
        'network-outbound',
        writable.map((r, i) => clause(table, r.path, exclusions[i]!, remote)),
      )}`,
    );
  }
  const filters = (side: 'local' | 'remote') => [
    ...daemons.flatMap((p) => [
      `  (${side} unix-socket (subpath ${table.ref(p)}))`,
      `  (${side} unix-socket (regex ${table.regex(aliasesRegex(p))}))`,
    ]),
    ...STATIC_DAEMON_SOCKETS.map((f) => `  (${side} unix-socket ${f})`),
  ];
  out.push(
    `; Host daemons' sockets stay out of reach even inside a writable root: Docker (root on the\n; host), agents, launchd's listeners. Neither connect nor bind (squatting their path).\n(deny network-outbound\n${filters('remote').join('\n')}\n  (with message "${SEATBELT_LOG_TAG}"))\n(deny network-bind\n${filters('local').join('\n')}\n  (with message "${SEATBELT_LOG_TAG}"))`,
  );
  if (allowUnix.length > 0) {
    out.push(
      `; Sockets named with --allow-unix: connect, knowingly.\n${allowForm(
        'network-outbound',
        allowUnix.map((p) => `  (remote unix-socket (literal ${table.ref(p)}))`),
      )}`,
    );
  }
  return out.join('\n\n');
}

/** Files the resolver reads (dig, c-ares, dnspython, getaddrinfo), when no rule governs them. */
export function resolverFiles(rules: readonly PolicyRule[]): string[] {
  return [
    '/private/var/run/resolv.conf',
    '/private/etc/resolv.conf',
    '/private/etc/hosts',
    '/private/etc/services',
    '/private/etc/protocols',
  ].filter((p) => findGoverningRule(rules, p) === undefined);
}

const NETWORK_ON = `; Network on: IP both ways and listening on any address (never "every socket": unix
; sockets are decided above), and the resolver's socket.
(allow network-outbound (remote ip "*:*"))
(allow network-inbound (local ip "*:*"))
(allow network-bind (local ip "*:*"))
(allow network-outbound
  (remote unix-socket (literal "/private/var/run/mDNSResponder"))
  (control-name "com.apple.netsrc"))
; Interface and route information (Network.framework, getifaddrs users, Go's net package).
(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))
(allow sysctl-read (sysctl-name-prefix "net.routetable."))
; Name resolution reads the resolver configuration from configd.
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.networkd"))
; TLS certificate trust (Security.framework: curl, git, Go's crypto/x509, Python via certifi
; fallbacks, Swift/ObjC URLSession) and revocation checks.
(allow mach-lookup
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.securityd.xpc")
  (global-name "com.apple.ocspd"))`;

const LOCAL_BINDING = `; Profile key localBinding: servers on loopback with the network off. bind() on any address
; (Node's listen(0) and most frameworks bind "::"), but connections accepted and made on
; loopback only. This is the host's loopback: the command can reach the user's local services
; and take a port before they do.
(allow network-bind (local ip "*:*"))
(allow network-inbound (local ip "localhost:*"))
(allow network-outbound (remote ip "localhost:*"))`;

/** Replaced by the proxy's port at launch (withProxyPort); until then the profile is invalid SBPL. */
export const PROXY_PORT_PLACEHOLDER = '@CORDON_PROXY_PORT@';

const PROXY_ONLY = `; Network allowlist (--allow-net): outbound only to cordon's proxy on loopback, at the port
; it listens on for this run. No resolver: the proxy resolves names. Loopback is shared with
; every local process, so the proxy answers only requests that carry the run's secret.
(allow network-outbound (remote ip "localhost:${PROXY_PORT_PLACEHOLDER}"))`;

export function networkSection(
  policy: SandboxPolicy,
  table: ParamTable,
  resolver: readonly string[],
): string {
  if (policy.network === 'off') {
    const parts = [policy.localBinding ? LOCAL_BINDING : '', policy.allowNet ? PROXY_ONLY : ''];
    return parts.filter((p) => p !== '').join('\n\n');
  }
  if (resolver.length === 0) return NETWORK_ON;
  return `${NETWORK_ON}\n; The resolver's files, where no rule decides them (strict reads only {system}).\n${allowForm(
    'file-read*',
    resolver.map((p) => `  (literal ${table.ref(p)})`),
  )}`;
}
