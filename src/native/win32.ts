// Win32 calls the Windows launcher needs, through koffi (loaded lazily, Windows only).
// Owns: the declarations, the x64 struct layouts cordon writes by hand into koffi.alloc'd
// memory (stable addresses: structs point at each other), UTF-16 helpers and error text.
// Pointers and handles are BigInt (koffi 3). Layouts (x64, from the SDK headers):
//   STARTUPINFOEXW 112: cb@0 lpDesktop@16 dwFlags@60 hStdInput@80 hStdOutput@88 hStdError@96
//                       lpAttributeList@104;  PROCESS_INFORMATION 24: hProcess@0 hThread@8 pid@16
//   SID_AND_ATTRIBUTES 16; TOKEN_GROUPS: count@0 groups@8; EXPLICIT_ACCESS_W 48:
//   rights@0 mode@4 inheritance@8 trustee{multiple@16 op@24 form@28 type@32 name@40}
//   JOBOBJECT_EXTENDED_LIMIT_INFORMATION 144: LimitFlags@16; SECURITY_ATTRIBUTES 24
import { loadKoffi } from './koffi.ts';

export type Ptr = bigint;

// biome-ignore lint/suspicious/noExplicitAny: koffi functions are untyped here; wrapped below
type Fn = (...args: any[]) => any;

export interface Win32 {
  // biome-ignore lint/suspicious/noExplicitAny: koffi's own surface
  readonly koffi: any;
  readonly k32: Record<string, Fn & { async: Fn }>;
  readonly adv: Record<string, Fn & { async: Fn }>;
  readonly user: Record<string, Fn & { async: Fn }>;
}

let cached: Win32 | undefined;

const KERNEL32 = [
  'bool __stdcall CloseHandle(void *h)',
  'uint32_t __stdcall GetLastError()',
  'void *__stdcall GetCurrentProcess()',
  'bool __stdcall CreatePipe(_Out_ void **r, _Out_ void **w, void *sa, uint32_t size)',
  'bool __stdcall SetHandleInformation(void *h, uint32_t mask, uint32_t flags)',
  'void *__stdcall CreateFileW(const char16_t *name, uint32_t access, uint32_t share, void *sa, uint32_t disposition, uint32_t flags, void *tmpl)',
  'bool __stdcall ReadFile(void *h, void *buf, uint32_t n, void *read, void *overlapped)',
  'bool __stdcall InitializeProcThreadAttributeList(void *list, uint32_t count, uint32_t flags, _Inout_ size_t *size)',
  'bool __stdcall UpdateProcThreadAttribute(void *list, uint32_t flags, size_t attr, void *value, size_t size, void *prev, void *ret)',
  'void __stdcall DeleteProcThreadAttributeList(void *list)',
  'void *__stdcall CreateJobObjectW(void *sa, const char16_t *name)',
  'bool __stdcall SetInformationJobObject(void *job, int cls, void *info, uint32_t len)',
  'bool __stdcall QueryInformationJobObject(void *job, int cls, void *info, uint32_t len, void *ret)',
  'bool __stdcall AssignProcessToJobObject(void *job, void *process)',
  'bool __stdcall TerminateJobObject(void *job, uint32_t code)',
  'bool __stdcall TerminateProcess(void *process, uint32_t code)',
  'uint32_t __stdcall ResumeThread(void *thread)',
  'uint32_t __stdcall WaitForSingleObject(void *h, uint32_t ms)',
  'bool __stdcall GetExitCodeProcess(void *process, _Out_ uint32_t *code)',
  'void *__stdcall LocalFree(void *mem)',
  'uint32_t __stdcall GetDriveTypeW(const char16_t *root)',
];

const ADVAPI32 = [
  'bool __stdcall OpenProcessToken(void *process, uint32_t access, _Out_ void **token)',
  'bool __stdcall GetTokenInformation(void *token, int cls, void *buf, uint32_t len, _Out_ uint32_t *ret)',
  'bool __stdcall SetTokenInformation(void *token, int cls, void *info, uint32_t len)',
  'bool __stdcall CreateRestrictedToken(void *token, uint32_t flags, uint32_t nDisable, void *disable, uint32_t nDelete, void *privileges, uint32_t nRestrict, void *restrict, _Out_ void **out)',
  'bool __stdcall IsTokenRestricted(void *token)',
  'bool __stdcall ConvertStringSidToSidW(const char16_t *text, _Out_ void **sid)',
  'bool __stdcall ConvertSidToStringSidW(void *sid, _Out_ void **text)',
  'bool __stdcall ConvertStringSecurityDescriptorToSecurityDescriptorW(const char16_t *sddl, uint32_t revision, _Out_ void **sd, void *size)',
  'bool __stdcall ConvertSecurityDescriptorToStringSecurityDescriptorW(void *sd, uint32_t revision, uint32_t info, _Out_ void **text, void *len)',
  'bool __stdcall GetSecurityDescriptorDacl(void *sd, _Out_ int *present, _Out_ void **dacl, _Out_ int *defaulted)',
  'uint32_t __stdcall GetNamedSecurityInfoW(const char16_t *name, int type, uint32_t info, void *owner, void *group, _Out_ void **dacl, void *sacl, _Out_ void **sd)',
  'uint32_t __stdcall SetNamedSecurityInfoW(const char16_t *name, int type, uint32_t info, void *owner, void *group, void *dacl, void *sacl)',
  'uint32_t __stdcall SetEntriesInAclW(uint32_t count, void *entries, void *oldAcl, _Out_ void **newAcl)',
  'bool __stdcall CreateProcessAsUserW(void *token, const char16_t *app, void *cmdline, void *pa, void *ta, bool inherit, uint32_t flags, void *env, const char16_t *cwd, void *si, void *pi)',
];

const USER32 = [
  'void *__stdcall CreateDesktopW(const char16_t *name, void *device, void *devmode, uint32_t flags, uint32_t access, void *sa)',
  'bool __stdcall CloseDesktop(void *desktop)',
];

function declare(lib: { func: (proto: string) => Fn & { async: Fn } }, protos: readonly string[]) {
  const out: Record<string, Fn & { async: Fn }> = {};
  for (const proto of protos) {
    const name = /(\w+)\(/.exec(proto)![1]!;
    out[name] = lib.func(proto);
  }
  return out;
}

export function loadWin32(): Win32 {
  if (cached) return cached;
  const koffi = loadKoffi();
  cached = {
    koffi,
    k32: declare(koffi.load('kernel32.dll'), KERNEL32),
    adv: declare(koffi.load('advapi32.dll'), ADVAPI32),
    user: declare(koffi.load('user32.dll'), USER32),
  };
  return cached;
}

/** Native memory that does not move; freed by the caller with `free`. */
export function allocBytes(w: Win32, size: number): { ptr: Ptr; view: Buffer } {
  const ptr: Ptr = w.koffi.alloc('uint8_t', Math.max(size, 1));
  const view = Buffer.from(w.koffi.view(ptr, Math.max(size, 1)));
  view.fill(0);
  return { ptr, view };
}

export function freeBytes(w: Win32, ptr: Ptr | undefined): void {
  if (ptr !== undefined && ptr !== 0n) w.koffi.free(ptr);
}

/** A NUL-terminated UTF-16LE copy in stable memory (lpCommandLine must be writable). */
export function allocWide(w: Win32, text: string): Ptr {
  const bytes = Buffer.from(`${text}\0`, 'utf16le');
  const { ptr, view } = allocBytes(w, bytes.length);
  bytes.copy(view);
  return ptr;
}

export function readWide(w: Win32, ptr: Ptr): string {
  return w.koffi.decode(ptr, 'char16_t', -1) as string;
}

export function isNullHandle(h: Ptr | null | undefined): boolean {
  return h === null || h === undefined || h === 0n || h === 0xffff_ffff_ffff_ffffn;
}

export class Win32Error extends Error {
  readonly call: string;
  readonly code: number;
  constructor(call: string, code: number) {
    super(
      `${call} failed: Win32 error ${code}${WIN32_ERROR_NAMES[code] ? ` (${WIN32_ERROR_NAMES[code]})` : ''}`,
    );
    this.name = 'Win32Error';
    this.call = call;
    this.code = code;
  }
}

const WIN32_ERROR_NAMES: Record<number, string> = {
  2: 'ERROR_FILE_NOT_FOUND',
  3: 'ERROR_PATH_NOT_FOUND',
  5: 'ERROR_ACCESS_DENIED',
  6: 'ERROR_INVALID_HANDLE',
  87: 'ERROR_INVALID_PARAMETER',
  122: 'ERROR_INSUFFICIENT_BUFFER',
  193: 'ERROR_BAD_EXE_FORMAT',
  1314: 'ERROR_PRIVILEGE_NOT_HELD',
  1344: 'ERROR_ALLOTTED_SPACE_EXCEEDED',
};

/** Throws Win32Error with GetLastError() when a BOOL call returned false. */
export function check(w: Win32, call: string, ok: boolean | number): void {
  if (!ok) throw new Win32Error(call, w.k32['GetLastError']!() as number);
}

/** Throws Win32Error when a call returning an error code (ERROR_SUCCESS = 0) failed. */
export function checkCode(call: string, code: number): void {
  if (code !== 0) throw new Win32Error(call, code);
}
