import { git } from '../../git';

const OWNER_NAME = /^[\w.-]+\/[\w.-]+$/;
/** https://host/owner/name(.git), ssh://git@host/owner/name, git@host:owner/name.git */
const REMOTE_URL = /^(?:[a-z+]+:\/\/[^/]+\/|[^@\s]+@[^:\s]+:)(?<owner>[\w.-]+)\/(?<name>[\w.-]+?)(?:\.git)?\/?$/i;

/** owner/name from a remote URL; undefined for a path or a bundle. */
function nameFromRemoteUrl(url: string): string | undefined {
  const match = REMOTE_URL.exec(url.trim());
  return match?.groups ? `${match.groups.owner}/${match.groups.name}` : undefined;
}

/**
 * The owner/name that the clone's PR texts use for their own repository (in URLs and "owner/name#N"):
 * the name the user gave when it has that form, else what the clone's origin points at.
 */
export async function repositoryName(clonePath: string, givenName: string): Promise<string | undefined> {
  if (OWNER_NAME.test(givenName)) return givenName;
  const url = await git(clonePath, ['config', '--get', 'remote.origin.url']).catch(() => '');
  return nameFromRemoteUrl(url);
}
