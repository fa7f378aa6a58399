// The library surface: run, explain, the types, and CordonError. Nothing else (the test seams
// in src/prepare.ts and the launch modes are internal).
export type {
  ChangeEntry,
  ChangeReport,
  ChangesLimits,
  ChangesTruncation,
} from './changes/types.ts';
export { CordonError, type CordonErrorCode, isCordonError } from './errors.ts';
export type { RunOptions } from './options/types.ts';
export type { BackendName, Plan } from './plan/types.ts';
export type { Access, PolicyRule, SandboxPolicy } from './policy/types.ts';
export type { PreparedRun } from './prepare.ts';
export type { Annotation, RunResult, RunStatus, StreamResult } from './result/types.ts';
export { explain, run } from './run.ts';
