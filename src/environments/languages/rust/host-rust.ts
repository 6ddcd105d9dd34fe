import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesFingerprint, runTool } from '../../host-tools';
import { sharedUntilFailure } from '../../../shared-promise';

/** A stable rustc the host provides (rustup's default toolchain, say): its minor ('1.95'), its sysroot, and its commit's day. */
export interface HostRust {
  version: string;
  prefix: string;
  /** 'YYYY-MM-DD': the day its release's commit was made, within days of the release. */
  released: string;
}

const found = new Map<string, Promise<HostRust | undefined>>();

/**
 * The host's own rustc where it is a stable release with its cargo beside it: the sysroot `rustc
 * --print sysroot` names (through rustup's proxy, its default toolchain; RUSTUP_TOOLCHAIN chooses
 * another), asked from a directory no project's rust-toolchain file governs. Undefined where there
 * is none, or it is a nightly or beta (a crate built there could use what no release takes). Looked
 * up once per process.
 */
export function hostRust(): Promise<HostRust | undefined> {
  return sharedUntilFailure(found, process.env.RUSTUP_TOOLCHAIN ?? '', async () => {
    const opts = { cwd: tmpdir() };
    const version = await runTool('rustc', ['-vV'], opts).catch(() => undefined);
    const release = version?.code === 0 ? /^release: (\d+\.\d+)\.\d+$/m.exec(version.stdout)?.[1] : undefined;
    if (!release) return undefined;
    const sysroot = (await runTool('rustc', ['--print', 'sysroot'], opts)).stdout.trim();
    if (!sysroot || !existsSync(join(sysroot, 'bin', 'cargo'))) return undefined;
    const released = /^commit-date: (\d{4}-\d{2}-\d{2})$/m.exec(version!.stdout)?.[1];
    if (!released) return undefined;
    return { version: release, prefix: realpathSync(sysroot), released };
  });
}

/** Size and modification time of a sysroot's rustc, cargo and rustc_driver library: they change when the toolchain is replaced. */
export function sysrootFingerprint(prefix: string): string {
  const lib = join(prefix, 'lib');
  const drivers = existsSync(lib)
    ? readdirSync(lib)
        .filter((f) => /^librustc_driver-.*\.so$/.test(f))
        .map((f) => join(lib, f))
    : [];
  return filesFingerprint([join(prefix, 'bin', 'rustc'), join(prefix, 'bin', 'cargo'), ...drivers]);
}
