// The exact exit status under bubblewrap. bwrap reports a command killed by signal N as exit
// 128+N, so `kill -9 $$` and `exit 137` look alike. A tiny reporter runs as the command's
// parent inside the sandbox — the system's perl (perl-base is essential on Debian and Ubuntu;
// only builtins, no modules: ~2 ms) at a root-owned fixed path — forks, execs the command with
// default signal dispositions, waits, and writes one line, "exit N" or "signal N", to a pipe
// cordon reads after the run. The reporter ignores the signals cordon forwards (they reach the
// command directly) so it outlives the command, and puts the command in a Landlock domain
// scoped for signals so the command cannot stop it (which would hang the run) or forge its line. It runs within the command's reach (same uid,
// same namespaces), so cordon treats its line as untrusted: strictly parsed, used only to tell
// an exit from a signal death; a timeout or cancellation is decided outside. Pure.

/** The reporter's argv before the command: perl -e SCRIPT FD. */
export const STATUS_SCRIPT = [
  '$SIG{$_}="IGNORE" for qw(TERM INT HUP);',
  'open(my $s,">&=",shift @ARGV) or exit 125; fcntl($s,2,1);',
  'my $p=fork; exit 125 unless defined $p;',
  // The command gets its own Landlock domain scoped for signals (ABI 6+; no access rights
  // handled): it can neither stop nor kill this reporter, nor ptrace it or open its
  // descriptors through /proc. Older kernels: the syscall fails and nothing changes.
  'if(!$p){my $a=pack("QQQ",0,0,2); my $r=syscall(444,$a,24,0); if($r>=0){syscall(446,$r,0); open(my $h,"<&=",$r) and close($h)}',
  '$SIG{$_}="DEFAULT" for qw(TERM INT HUP); exec {$ARGV[0]} @ARGV;',
  'my $e=$!+0; print STDERR "cordon: cannot execute $ARGV[0]: $!\\n"; exit($e==2?127:126)}',
  'waitpid($p,0); my $w=$?;',
  'syswrite($s,($w&127)?"signal ".($w&127)."\\n":"exit ".($w>>8)."\\n");',
  'exit(($w&127)?128+($w&127):$w>>8);',
].join('');

export function statusReporterArgs(perl: string, fd: number): string[] {
  return [perl, '-e', STATUS_SCRIPT, String(fd)];
}

export type ReportedStatus =
  | { readonly kind: 'exit'; readonly code: number }
  | { readonly kind: 'signal'; readonly signal: number };

/** Strictly one line, "exit 0".."exit 255" or "signal 1".."signal 64"; anything else is no report. */
export function parseStatusLine(text: string): ReportedStatus | undefined {
  const m = /^(exit|signal) (\d{1,3})\n$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[2]);
  if (m[1] === 'exit') return n <= 255 ? { kind: 'exit', code: n } : undefined;
  return n >= 1 && n <= 64 ? { kind: 'signal', signal: n } : undefined;
}
