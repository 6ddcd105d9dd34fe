import { runTool } from '../../host-tools';

/**
 * The vendored crates a failed build's output shows failing to compile in their own source: an error
 * that points into the vendored directory (`--> VENDOR/url/src/form_urlencoded.rs:251:40`, rustc 1.63's
 * E0713 in url 1.5.1 of 2017) under cargo's `could not compile `url``. A crate resolved as of an old
 * date is older than the image's rustc, whose borrow checker and lints have grown stricter since; its
 * newest release the manifests allow is most often the fix its authors made for that. As cargo specs:
 * `url`, or `url@1.5.1` where the vendored directory names the version (two versions of one crate).
 */
export function staleCrates(output: string, vendorDir: string): string[] {
  const failed = new Set([...output.matchAll(/^error: could not compile `([^`]+)`/gm)].map((m) => m[1]));
  const prefix = `--> ${vendorDir}/`;
  const specs = new Set<string>();
  for (const line of output.split('\n')) {
    const at = line.indexOf(prefix);
    if (at < 0) continue;
    const dir = line.slice(at + prefix.length).split('/')[0];
    const versioned = /^(.+)-(\d+\.\d+\.\d+\S*)$/.exec(dir);
    const name = versioned?.[1] ?? dir;
    if (failed.has(name)) specs.add(versioned ? `${name}@${versioned[2]}` : name);
  }
  return [...specs].sort();
}

/**
 * Raises each crate of `specs` in the lock of `cwd` to its newest release the manifests allow (the
 * MSRV-aware resolver of `env` preferring those whose rust-version `rustc` meets), with a note each.
 */
export async function raiseCrates(
  specs: string[],
  rustc: string,
  run: { cwd: string; signal?: AbortSignal; env: Record<string, string> },
): Promise<string[]> {
  const notes: string[] = [];
  for (const spec of specs) {
    const r = await runTool('cargo', ['update', '-p', spec], run);
    const moved = /Updating (\S+) v(\S+) -> v(\S+)/.exec(r.stderr);
    notes.push(
      moved
        ? `${moved[1]} ${moved[2]}, resolved as of the date, did not compile on rustc ${rustc}: raised to ${moved[3]}, its newest release the manifests allow`
        : `${spec} did not compile on rustc ${rustc} and has no newer release the manifests allow`,
    );
  }
  return notes;
}
