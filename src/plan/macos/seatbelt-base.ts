// The static part of every Seatbelt profile cordon generates: what any program needs to start
// and run on macOS, and nothing that depends on the policy. It grants no file access beyond a
// few device nodes and the three top-level system symlinks; reads, writes, exec and network
// come from the generated sections that seatbelt.ts appends after it. Kept as one constant so
// the golden files show exactly what every command gets. No user path may ever appear here.

/**
 * Attached to every deny cordon emits, so the denial log lines of cordon's sandboxes can be
 * told apart from those of the system's other sandboxed processes (backends/seatbelt/violations.ts).
 */
export const SEATBELT_LOG_TAG = 'cordon-seatbelt';
const WITH_TAG = `(with message "${SEATBELT_LOG_TAG}")`;

/** Appended last by the builder: pushing input into a terminal (TIOCSTI). */
// TIOCSTI is _IOW('t', 114, char) = 0x80017472. The number, not the name: the symbolic
// constant is unbound in the profile language of some macOS releases (14.2 among them), and
// an unbound name makes sandbox-exec refuse the whole profile.
export const SEATBELT_TIOCSTI_DENY = `(deny file-ioctl (ioctl-command 2147578994) ${WITH_TAG})`;

export const SEATBELT_BASE_PROFILE = `(version 1)

; Closed by default: every operation not allowed below (or by the generated sections) fails,
; and each denial is logged with cordon's tag.
(deny default ${WITH_TAG})

; Shells, build tools and test runners start children; the children inherit this profile.
; (Which files may be executed is decided in the generated read section.)
(allow process-fork)

; Job control in shells, test runners that kill their workers, ps-like tools: only towards
; processes inside this same sandbox.
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; Runtime start-up facts. Node (os.cpus, os.totalmem, os.uptime, os.loadavg), libuv thread
; pools, Python (os.cpu_count, platform), Go (runtime CPU count, page size, ARM feature probes),
; Rust std::thread::available_parallelism and the JVM read these.
(allow sysctl-read
  (sysctl-name "hw.activecpu")
  (sysctl-name "hw.byteorder")
  (sysctl-name "hw.cachelinesize")
  (sysctl-name "hw.cachelinesize_compat")
  (sysctl-name "hw.cpufamily")
  (sysctl-name "hw.cpufrequency")
  (sysctl-name "hw.cpufrequency_compat")
  (sysctl-name "hw.cpusubtype")
  (sysctl-name "hw.cputype")
  (sysctl-name "hw.l1dcachesize")
  (sysctl-name "hw.l1dcachesize_compat")
  (sysctl-name "hw.l1icachesize")
  (sysctl-name "hw.l1icachesize_compat")
  (sysctl-name "hw.l2cachesize")
  (sysctl-name "hw.l2cachesize_compat")
  (sysctl-name "hw.l3cachesize")
  (sysctl-name "hw.l3cachesize_compat")
  (sysctl-name "hw.logicalcpu")
  (sysctl-name "hw.logicalcpu_max")
  (sysctl-name "hw.machine")
  (sysctl-name "hw.memsize")
  (sysctl-name "hw.model")
  (sysctl-name "hw.ncpu")
  (sysctl-name "hw.nperflevels")
  (sysctl-name "hw.packages")
  (sysctl-name "hw.pagesize")
  (sysctl-name "hw.pagesize_compat")
  (sysctl-name "hw.physicalcpu")
  (sysctl-name "hw.physicalcpu_max")
  (sysctl-name "hw.tbfrequency")
  (sysctl-name "hw.tbfrequency_compat")
  (sysctl-name "hw.vectorunit")
  (sysctl-name-prefix "hw.optional.")
  (sysctl-name-prefix "hw.perflevel")
  (sysctl-name-prefix "machdep.cpu.")
  (sysctl-name "machdep.ptrauth_enabled")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.boottime")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfiles")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.ngroups")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name-prefix "kern.proc.pgrp.")
  (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name "security.mac.lockdown_mode_state")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg"))

; The JVM asks for its CPU type through a sysctl that the kernel counts as a write.
(allow sysctl-write (sysctl-name "kern.grade_cputype"))

; getpwuid/getgrgid and group membership (id, whoami, git, ssh, Python's pwd, Node's
; os.userInfo) go through Open Directory.
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership"))

; Preferences (CFPreferences / NSUserDefaults, used by Apple's command-line tools, xcrun,
; swift, clang): read-only, through cfprefsd and its shared-memory cache, and only the global
; domain and the developer tools' own. cfprefsd reads on the caller's behalf, past the file
; rules: any domain would let a command read what apps keep in their defaults (tokens too).
(allow user-preference-read
  (preference-domain "kCFPreferencesAnyApplication")
  (preference-domain "com.apple.CFNetwork")
  (preference-domain "com.apple.dt.Xcode")
  (preference-domain "com.apple.dt.xcodebuild")
  (preference-domain "com.apple.dt.xcrun"))
(allow mach-lookup
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (local-name "com.apple.cfprefsd.agent"))
(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.cfprefs."))

; The per-user temp and cache dirs (confstr _CS_DARWIN_USER_*_DIR, NSTemporaryDirectory) are
; located, and made when missing, by dirhelper.
(allow mach-lookup (global-name "com.apple.bsd.dirhelper"))

; File watching: fs.watch on directories (libuv), chokidar, watchdog, notify, tsc --watch,
; vite and jest --watch subscribe to FSEvents through fseventsd.
(allow mach-lookup (global-name "com.apple.FSEvents"))

; Logging through os_log / asl (logd), which every Apple framework does: harmless, and denying
; it only floods the denial report.
(allow mach-lookup (global-name "com.apple.logd") (global-name "com.apple.system.logger"))
(allow sysctl-read (sysctl-name "kern.bootargs"))

; Asked for by frameworks on the way, not needed: diagnostics and analytics uploads, and the
; notification center (notify_post reaches host daemons). Denied without a log line, so the
; denial report shows only what a command really missed.
(deny mach-lookup
  (global-name "com.apple.diagnosticd")
  (global-name "com.apple.analyticsd")
  (global-name "com.apple.system.notification_center")
  (with no-log))

; Power management: caffeinate, xcodebuild and long-running tools take "prevent sleep"
; assertions through this service and the root power domain.
(allow mach-lookup (global-name "com.apple.PowerManagement.control"))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))

; Unix-domain socket pairs: Node/libuv, Python subprocess and most runtimes connect a child's
; stdio with socketpair(). Binding or connecting a socket by path is decided after the writes.
(allow system-socket (socket-domain AF_UNIX))

; POSIX semaphores by name prefix: Python multiprocessing's SemLock ("/mp-..."). Names are
; global on the machine, so an unrestricted rule would let a command open (and post or wait on)
; any host program's semaphore.
(allow ipc-posix-sem (ipc-posix-name-prefix "/mp-"))

; Named shared memory of the sandboxed program's own: Python multiprocessing.shared_memory
; ("/psm_...") and the OpenMP runtime behind PyTorch and NumPy builds ("/__KMP_REGISTERED_LIB_<pid>").
(allow ipc-posix-shm-read* ipc-posix-shm-write* (ipc-posix-name-prefix "/psm_"))
(allow ipc-posix-shm-read* ipc-posix-shm-write* (ipc-posix-name-regex #"^/__KMP_REGISTERED_LIB_[0-9]+$"))

; Pseudo-terminals: script, expect, Python's pty module and node-pty open a new PTY. Only the
; ones made inside this sandbox (they carry its pty extension): another tab's /dev/ttysN is
; neither readable, writable nor open to ioctls (echo off, stealing its keystrokes). cordon
; never hands the command a terminal (stdin is /dev/null, output goes to pipes, own session).
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write* file-ioctl
  (require-all
    (regex #"^/dev/ttys[0-9]+$")
    (extension "com.apple.sandbox.pty")))

; Minimal devices (the generated rules never grant /dev): every shell redirects to /dev/null;
; dd, head and test suites read /dev/zero; every TLS, UUID and hashing library reads the random
; devices; Foundation's file APIs open /dev/autofs_nowait; bash and zsh use /dev/fd for process
; substitution; dyld and Node probe /dev/dtracehelper; tools ask /dev/tty for a terminal;
; "echo x >/dev/stderr" passes through the /dev/std* symlinks, whose hop is checked at its own
; path; tty, "ls -l /dev" and isatty-style probes stat device nodes (metadata only).
(allow file-read* (literal "/dev"))
(allow file-read-metadata (subpath "/dev"))
(allow file-read* (literal "/dev/stdin") (literal "/dev/stdout") (literal "/dev/stderr"))
(allow file-read* file-write-data file-ioctl
  (require-all (literal "/dev/null") (vnode-type CHARACTER-DEVICE)))
(allow file-read* file-write-data
  (require-all (literal "/dev/zero") (vnode-type CHARACTER-DEVICE)))
(allow file-read* (literal "/dev/random") (literal "/dev/urandom") (literal "/dev/autofs_nowait"))
(allow file-read-data file-read-metadata file-write-data (subpath "/dev/fd"))
(allow file-read* file-write-data file-ioctl (literal "/dev/dtracehelper"))
(allow file-read* file-write-data file-ioctl (literal "/dev/tty"))

; realpath() in libc, Node, Python and Go lstat()s and readlink()s the top-level symlinks
; /tmp, /var and /etc (they point into /private); what they point at is governed by the policy.
(allow file-read* (literal "/tmp") (literal "/var") (literal "/etc"))
`;
