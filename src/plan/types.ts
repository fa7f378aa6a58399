// Plans: a plain, serializable value per backend, built by a pure function of
// (policy, command, HostInfo). exec/ spawns `executable` with `args`; backend-specific
// fields carry what must happen around the spawn (placeholders to create and remove,
// a Landlock ruleset to apply in the child).
import type { WindowsSpec } from './windows/spec.ts';

export type BackendName = 'none' | 'bwrap' | 'landlock' | 'seatbelt' | 'windows';
export const BACKEND_NAMES: readonly BackendName[] = ['none', 'bwrap', 'landlock', 'seatbelt', 'windows'];

/** A rule a backend could not enforce, accepted only under --best-effort. */
export interface NotEnforced {
  readonly path: string;
  readonly access: string;
  readonly reason: string;
}

interface PlanBase {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly notEnforced: readonly NotEnforced[];
}

export interface NonePlan extends PlanBase {
  readonly backend: 'none';
}

export interface BwrapPlan extends PlanBase {
  readonly backend: 'bwrap';
  /**
   * Mount points that do not exist on the host but must be covered (a missing protected
   * `.cordon`, a missing denied path inside a writable root). bwrap creates them; cordon
   * removes them after the run if they are still empty.
   */
  readonly placeholders: readonly { path: string; kind: 'file' | 'dir' }[];
  /** Apply the network seccomp filter inside the sandbox before exec. */
  readonly seccomp: boolean;
}

export interface LandlockRule {
  readonly path: string;
  readonly access: 'read' | 'write';
}

export interface LandlockPlan extends PlanBase {
  readonly backend: 'landlock';
  readonly abi: number;
  readonly rules: readonly LandlockRule[];
  readonly network: 'on' | 'off';
  readonly seccomp: boolean;
  /** Create this private temp dir (0700) before the run and delete it after. */
  readonly privateTmp?: string | undefined;
}

export interface SeatbeltPlan extends PlanBase {
  readonly backend: 'seatbelt';
  readonly profile: string;
  readonly params: Readonly<Record<string, string>>;
}

export interface WindowsPlan extends PlanBase {
  readonly backend: 'windows';
  /** The lpCommandLine string, quoted by the MSVCRT / CommandLineToArgvW rules. */
  readonly commandLine: string;
  /** Everything the launcher does around CreateProcessAsUserW (see plan/windows/spec.ts). */
  readonly spec: WindowsSpec;
}

export type Plan = NonePlan | BwrapPlan | LandlockPlan | SeatbeltPlan | WindowsPlan;
