// The library surface: run, explain (preparePlan), the types, and CordonError. Nothing else.
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
export type { Annotation, RunResult, RunStatus, StreamResult } from './result/types.ts';
export { preparePlan as explain, run } from './run.ts';
