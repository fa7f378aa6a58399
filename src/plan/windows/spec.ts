// The Windows plan's data: what the launcher does around CreateProcessAsUserW, as plain
// serializable values with the Win32 numbers beside their names (explain prints them; golden
// tests pin them). Constants are Microsoft's documented values (winnt.h, winbase.h, accctrl.h).

/** CreateRestrictedToken flags. */
export const TOKEN_FLAGS = {
  DISABLE_MAX_PRIVILEGE: 0x1,
  LUA_TOKEN: 0x4,
  WRITE_RESTRICTED: 0x8,
} as const;

/** File access rights (winnt.h). */
export const FILE_RIGHTS = {
  FILE_READ_DATA: 0x1,
  FILE_WRITE_DATA: 0x2,
  FILE_APPEND_DATA: 0x4,
  FILE_READ_EA: 0x8,
  FILE_WRITE_EA: 0x10,
  FILE_EXECUTE: 0x20,
  FILE_DELETE_CHILD: 0x40,
  FILE_READ_ATTRIBUTES: 0x80,
  FILE_WRITE_ATTRIBUTES: 0x100,
  DELETE: 0x10000,
  READ_CONTROL: 0x20000,
  WRITE_DAC: 0x40000,
  WRITE_OWNER: 0x80000,
  SYNCHRONIZE: 0x100000,
} as const;

export type FileRightName = keyof typeof FILE_RIGHTS;

/**
 * Granted to a writable root's SID: read, write, execute and DELETE on every object below
 * (so files can be removed and renamed), but never FILE_DELETE_CHILD, WRITE_DAC or
 * WRITE_OWNER: without FILE_DELETE_CHILD on the parent, the deny-DELETE on a protected child
 * (`.git`) cannot be bypassed by deleting it through its directory.
 */
export const ALLOW_WRITE_RIGHTS: readonly FileRightName[] = [
  'FILE_READ_DATA',
  'FILE_WRITE_DATA',
  'FILE_APPEND_DATA',
  'FILE_READ_EA',
  'FILE_WRITE_EA',
  'FILE_EXECUTE',
  'FILE_READ_ATTRIBUTES',
  'FILE_WRITE_ATTRIBUTES',
  'DELETE',
  'READ_CONTROL',
  'SYNCHRONIZE',
];

/** Denied to a carve-out's SID: every right that changes the object, its children or its ACL. */
export const DENY_WRITE_RIGHTS: readonly FileRightName[] = [
  'FILE_WRITE_DATA',
  'FILE_APPEND_DATA',
  'FILE_WRITE_EA',
  'FILE_DELETE_CHILD',
  'FILE_WRITE_ATTRIBUTES',
  'DELETE',
  'WRITE_DAC',
  'WRITE_OWNER',
];

export function rightsMask(names: readonly FileRightName[]): number {
  return names.reduce((mask, name) => mask | FILE_RIGHTS[name], 0);
}

/** SUB_CONTAINERS_AND_OBJECTS_INHERIT = CONTAINER_INHERIT_ACE | OBJECT_INHERIT_ACE. */
export const INHERIT_CONTAINERS_AND_OBJECTS = 0x3;

export const JOB_LIMITS = {
  JOB_OBJECT_LIMIT_JOB_TIME: 0x4,
  JOB_OBJECT_LIMIT_ACTIVE_PROCESS: 0x8,
  JOB_OBJECT_LIMIT_JOB_MEMORY: 0x200,
  JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION: 0x400,
  JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: 0x2000,
} as const;

export const JOB_UI_LIMITS = {
  JOB_OBJECT_UILIMIT_HANDLES: 0x1,
  JOB_OBJECT_UILIMIT_READCLIPBOARD: 0x2,
  JOB_OBJECT_UILIMIT_WRITECLIPBOARD: 0x4,
  JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS: 0x8,
  JOB_OBJECT_UILIMIT_DISPLAYSETTINGS: 0x10,
  JOB_OBJECT_UILIMIT_GLOBALATOMS: 0x20,
  JOB_OBJECT_UILIMIT_DESKTOP: 0x40,
  JOB_OBJECT_UILIMIT_EXITWINDOWS: 0x80,
} as const;

export const CREATION_FLAGS = {
  CREATE_SUSPENDED: 0x4,
  CREATE_UNICODE_ENVIRONMENT: 0x400,
  EXTENDED_STARTUPINFO_PRESENT: 0x80000,
  CREATE_BREAKAWAY_FROM_JOB: 0x01000000,
  CREATE_NO_WINDOW: 0x08000000,
} as const;

export interface NamedMask {
  readonly names: readonly string[];
  readonly value: number;
}

export function namedMask<T extends Record<string, number>>(
  table: T,
  names: readonly (keyof T)[],
): NamedMask {
  return {
    names: names.map(String),
    value: names.reduce((mask, name) => mask | table[name]!, 0),
  };
}

export interface RestrictingSid {
  /** S-1-... string, or a description when the launcher reads it from its own token. */
  readonly sid: string;
  readonly role: 'write-root' | 'carve-out' | 'run' | 'everyone' | 'restricted';
  /** The path the SID stands for (write-root and carve-out SIDs). */
  readonly path?: string | undefined;
}

export interface WindowsAce {
  /** Canonical policy form, C:/dir. */
  readonly path: string;
  /** The form handed to SetNamedSecurityInfoW (backslashes; \\?\ prefix past MAX_PATH). */
  readonly nativePath: string;
  readonly type: 'allow' | 'deny';
  readonly sid: string;
  readonly rights: NamedMask;
  /** Container + object inherit on directories (the rule covers the subtree); none on files. */
  readonly inheritance: NamedMask;
  /** Whether the path exists when the plan is built; a missing carve-out gets a placeholder. */
  readonly exists: boolean;
  readonly reason: string;
}

export interface WindowsPlaceholder {
  /** Created empty before the run (so its deny ACE can be set) and removed after if still empty. */
  readonly path: string;
  readonly nativePath: string;
  readonly kind: 'file';
}

export interface WindowsSpec {
  readonly token: {
    readonly source: 'OpenProcessToken(current process)';
    readonly flags: NamedMask;
    /** Made deny-only (SidsToDisable): an elevated cordon does not hand admin rights down. */
    readonly denyOnlySids: readonly string[];
    /**
     * In this order: write-root SIDs, carve-out SIDs, the per-run SID, Everyone, RESTRICTED.
     * Not the logon SID: the user's window station and desktop grant it (docs/windows.md §9).
     */
    readonly restrictingSids: readonly RestrictingSid[];
    /** SDDL of TokenDefaultDacl: SYSTEM, {user} (the token's user SID), {run} (the per-run SID). */
    readonly defaultDacl: string;
    readonly privileges: string;
    readonly integrityLevel: string;
  };
  readonly acl: {
    /** ACEs stay after the run; each is keyed to a SID only runs with that rule hold. */
    readonly persistence: 'persistent';
    readonly aces: readonly WindowsAce[];
    readonly placeholders: readonly WindowsPlaceholder[];
  };
  /** Launch-time audit for objects Everyone may write (audit.ts); over maxEntries the run is refused. */
  readonly audit: {
    readonly sid: string;
    readonly scope: string;
    readonly maxEntries: number;
  };
  /** A private window station holding one desktop, both named `name`, DACL as the token's default. */
  readonly desktop: {
    readonly windowStation: 'private';
    readonly name: 'cordon-<128 random bits, hex>';
    readonly dacl: string;
  };
  readonly job: {
    /** 'own': cordon is in no job; 'breakaway': the child leaves cordon's job; 'nested': it cannot. */
    readonly placement: 'own' | 'breakaway' | 'nested';
    readonly limits: NamedMask;
    /**
     * Resource limits (JOBOBJECT_EXTENDED_LIMIT_INFORMATION fields), present with --pids /
     * --memory / --cpu-time: ActiveProcessLimit (processes, not threads), JobMemoryLimit
     * (committed bytes of the whole job: an allocation past it fails), PerJobUserTimeLimit
     * (user-mode time of the whole job in 100 ns units, as a decimal string; past it every
     * process is terminated with ERROR_NOT_ENOUGH_QUOTA).
     */
    readonly resourceLimits?:
      | {
          readonly activeProcessLimit?: number | undefined;
          readonly jobMemoryLimit?: number | undefined;
          readonly perJobUserTimeLimit?: string | undefined;
        }
      | undefined;
    /** Empty when nested: a job inside another job cannot carry UI limits (AssignProcessToJobObject). */
    readonly uiRestrictions: NamedMask;
    readonly onTimeout: 'TerminateJobObject';
  };
  readonly process: {
    /** command[0]; searched in PATH with PATHEXT at launch when it has no directory. */
    readonly program: string;
    readonly commandLine: string;
    /** How the command line is quoted: 'msvcrt' for programs, 'cmd' for .bat/.cmd files. */
    readonly quoting: 'msvcrt' | 'cmd';
    readonly creationFlags: NamedMask;
    readonly stdin: 'NUL';
    readonly stdout: 'pipe';
    readonly stderr: 'pipe';
    readonly inheritedHandles: 'stdin, stdout, stderr only (PROC_THREAD_ATTRIBUTE_HANDLE_LIST)';
    readonly cwd: string;
  };
  readonly privateTmp?: { readonly parent: string; readonly prefix: string; readonly env: readonly string[] };
}
