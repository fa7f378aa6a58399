// Win32 calls the Windows launcher needs, through koffi (loaded lazily, Windows only).
// Owns: the declarations, the x64 struct layouts cordon writes by hand into koffi.alloc'd
// memory (stable addresses: structs point at each other), UTF-16 helpers and error text.
// Pointers and handles are BigInt (koffi 3). Layouts (x64, from the SDK headers):
//   STARTUPINFOEXW 112: cb@0 lpDesktop@16 dwFlags@60 hStdInput@80 hStdOutput@88 hStdError@96
//                       lpAttributeList@104;  PROCESS_INFORMATION 24: hProcess@0 hThread@8 pid@16
//   SID_AND_ATTRIBUTES 16; TOKEN_GROUPS: count@0 groups@8; EXPLICIT_ACCESS_W 48:
//   rights@0 mode@4 inheritance@8 trustee{multiple@16 op@24 form@28 type@32 name@40}
//   JOBOBJECT_EXTENDED_LIMIT_INFORMATION 144: LimitFlags@16; SECURITY_ATTRIBUTES 24
//   ACL_SIZE_INFORMATION 12: AceCount@0; ACE_HEADER 4: type@0 flags@1 size@2; ACCESS_*_ACE:
//   Mask@4 SidStart@8; GENERIC_MAPPING 16: read@0 write@4 execute@8 all@12; TOKEN_USER: Sid@0
// Win32 BOOL is a 32-bit int: declared as `int` and tested `!== 0` (koffi reads `bool` as ret & 1).
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
  'int __stdcall CloseHandle(void *h)',
  'uint32_t __stdcall GetLastError()',
  'void *__stdcall GetCurrentProcess()',
  'int __stdcall CreatePipe(_Out_ void **r, _Out_ void **w, void *sa, uint32_t size)',
  'int __stdcall SetHandleInformation(void *h, uint32_t mask, uint32_t flags)',
  'void *__stdcall CreateFileW(const char16_t *name, uint32_t access, uint32_t share, void *sa, uint32_t disposition, uint32_t flags, void *tmpl)',
  'int __stdcall ReadFile(void *h, void *buf, uint32_t n, void *read, void *overlapped)',
  'int __stdcall InitializeProcThreadAttributeList(void *list, uint32_t count, uint32_t flags, _Inout_ size_t *size)',
  'int __stdcall UpdateProcThreadAttribute(void *list, uint32_t flags, size_t attr, void *value, size_t size, void *prev, void *ret)',
  'void __stdcall DeleteProcThreadAttributeList(void *list)',
  'void *__stdcall CreateJobObjectW(void *sa, const char16_t *name)',
  'int __stdcall SetInformationJobObject(void *job, int cls, void *info, uint32_t len)',
  'int __stdcall QueryInformationJobObject(void *job, int cls, void *info, uint32_t len, void *ret)',
  'int __stdcall AssignProcessToJobObject(void *job, void *process)',
  'int __stdcall TerminateJobObject(void *job, uint32_t code)',
  'int __stdcall TerminateProcess(void *process, uint32_t code)',
  'uint32_t __stdcall ResumeThread(void *thread)',
  'uint32_t __stdcall WaitForSingleObject(void *h, uint32_t ms)',
  'int __stdcall GetExitCodeProcess(void *process, _Out_ uint32_t *code)',
  'void *__stdcall LocalFree(void *mem)',
  'uint32_t __stdcall GetDriveTypeW(const char16_t *root)',
  'int __stdcall IsProcessInJob(void *process, void *job, _Out_ int *result)',
];

const ADVAPI32 = [
  'int __stdcall OpenProcessToken(void *process, uint32_t access, _Out_ void **token)',
  'int __stdcall GetTokenInformation(void *token, int cls, void *buf, uint32_t len, _Out_ uint32_t *ret)',
  'int __stdcall SetTokenInformation(void *token, int cls, void *info, uint32_t len)',
  'int __stdcall CreateRestrictedToken(void *token, uint32_t flags, uint32_t nDisable, void *disable, uint32_t nDelete, void *privileges, uint32_t nRestrict, void *restrict, _Out_ void **out)',
  'int __stdcall IsTokenRestricted(void *token)',
  'int __stdcall ConvertStringSidToSidW(const char16_t *text, _Out_ void **sid)',
  'int __stdcall ConvertSidToStringSidW(void *sid, _Out_ void **text)',
  'int __stdcall ConvertStringSecurityDescriptorToSecurityDescriptorW(const char16_t *sddl, uint32_t revision, _Out_ void **sd, void *size)',
  'int __stdcall ConvertSecurityDescriptorToStringSecurityDescriptorW(void *sd, uint32_t revision, uint32_t info, _Out_ void **text, void *len)',
  'int __stdcall GetSecurityDescriptorDacl(void *sd, _Out_ int *present, _Out_ void **dacl, _Out_ int *defaulted)',
  'uint32_t __stdcall GetNamedSecurityInfoW(const char16_t *name, int type, uint32_t info, void *owner, void *group, _Out_ void **dacl, void *sacl, _Out_ void **sd)',
  'uint32_t __stdcall GetSecurityInfo(void *handle, int type, uint32_t info, void *owner, void *group, _Out_ void **dacl, void *sacl, _Out_ void **sd)',
  'uint32_t __stdcall SetNamedSecurityInfoW(const char16_t *name, int type, uint32_t info, void *owner, void *group, void *dacl, void *sacl)',
  'uint32_t __stdcall SetEntriesInAclW(uint32_t count, void *entries, void *oldAcl, _Out_ void **newAcl)',
  'int __stdcall GetAclInformation(void *acl, void *info, uint32_t len, int cls)',
  'int __stdcall GetAce(void *acl, uint32_t index, _Out_ void **ace)',
  'void __stdcall MapGenericMask(_Inout_ uint32_t *mask, void *mapping)',
  'int __stdcall CreateProcessAsUserW(void *token, const char16_t *app, void *cmdline, void *pa, void *ta, int inherit, uint32_t flags, void *env, const char16_t *cwd, void *si, void *pi)',
];

const USER32 = [
  'void *__stdcall CreateDesktopW(const char16_t *name, void *device, void *devmode, uint32_t flags, uint32_t access, void *sa)',
  'int __stdcall CloseDesktop(void *desktop)',
  'void *__stdcall CreateWindowStationW(const char16_t *name, uint32_t flags, uint32_t access, void *sa)',
  'int __stdcall CloseWindowStation(void *winsta)',
  'void *__stdcall GetProcessWindowStation()',
  'int __stdcall SetProcessWindowStation(void *winsta)',
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
  1450: 'ERROR_NO_SYSTEM_RESOURCES',
};

/** Whether a Win32 BOOL (declared int) is TRUE: any non-zero value. */
export function isTrue(ret: number): boolean {
  return ret !== 0;
}

/** Throws Win32Error with GetLastError() when a BOOL call returned FALSE (0). */
export function check(w: Win32, call: string, ok: number): void {
  if (!isTrue(ok)) throw new Win32Error(call, w.k32['GetLastError']!() as number);
}

/** Throws Win32Error when a call returning an error code (ERROR_SUCCESS = 0) failed. */
export function checkCode(call: string, code: number): void {
  if (code !== 0) throw new Win32Error(call, code);
}
