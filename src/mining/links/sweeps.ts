import type { PullRequestRecord } from '../../schemas';
import { splitMessage } from '../landings/commit-log';

/**
 * Work that touches many lines for its own sake: whoever wrote those lines before is not its cause.
 * One pattern per topic, so that a later fix of a sweep's own work can be told by its topic.
 */
const SWEEP_TOPICS = [
  // Reformatting, not "format" itself: "Fix format problem with empty objects" fixes the printer.
  String.raw`\breformat\w*\b|\bformat(ted|ting)?\s+(the\s+)?(code|sources?|files?|codebase|everything|with)\b|^(fix\s+|apply\s+)?(code\s+)?formatting$|\bformatting (changes|fixes|only|pass)\b`,
  String.raw`\b(black|isort|flake8|ruff|pyupgrade|prettier|eslint|clang-format|clang-tidy|gofmt|goimports|golint|golangci-lint|go vet|rustfmt|clippy|checkstyle|spotless|codespell|pre-commit|lint(s|er|ers|ing)?)\b`,
  String.raw`\btype (annotations?|hints?)\b|\b(add|update|fix) (typing|types|type annotations)\b|\bmypy\b`,
  String.raw`\brename\b.*\b(to|directory|package|module|imports)\b`,
  String.raw`\bdrop(ping)? (support for )?(python|py|node|java|go|rust)\s*\d`,
  String.raw`\bmove (to|into) (a )?src\b`,
  String.raw`\b(modernize|python 3 port|port to python 3)\b`,
  String.raw`\bcompiler (flags?|warnings?|checks?)\b|\b(fix|remove) (all )?(compiler )?warnings\b`,
  String.raw`\bcode ?style\b`,
  String.raw`\bwhitespace\b.*\b(cleanup|remove|trailing)\b|\btrailing (white)?space\b`,
  String.raw`\bunused (imports?|variables?|code)\b|\b(sort|organi[sz]e) imports\b`,
  // Tool and docs-theme migrations: the project moves to another build, test, docs or CI tool.
  String.raw`\b(migrate|switch|move|port|convert)\b.*\b(to|from)\b.*\b(pyproject(\.toml)?|setup\.cfg|flit|hatch|poetry|tox|nox|pytest|cmake|meson|gradle|maven|go modules|github actions|gh actions|sphinx|mkdocs|theme)\b`,
  String.raw`\b(docs?|documentation|sphinx) theme\b|\btheme\b.*\bdocs\b`,
  String.raw`^(ci|build)(\(.*\))?:|\b(ci|travis|appveyor|circleci|azure pipelines|github actions|gh actions|workflows?)\b.*\b(update|upgrade|config|configuration|setup|fix|migrat\w*|bump)\b`,
  // i18n wrapping: every user-facing string passed through the translation call at once.
  String.raw`\b(mark|wrap)\b.*\b(strings?|messages?)\b.*\b(translat\w*|i18n|gettext)\b|\b(translatable|localizable) strings\b`,
  String.raw`\b(mass|bulk) (move|rename|replace)\b|\bmove (all|every)\b|\bsplit\b.*\binto (separate|several|multiple) (files|modules)\b`,
  // Link maintenance: every URL moved to https or to a site's new address, dead links mended. The links
  // must be what the subject changes ("Update all … URLs", after a "docs:" or "[docs]" prefix), not what
  // the code handles ("escape all URLs").
  String.raw`\b(prefer|use|switch to|move to)\s+https\b|\bhttp\b.*\bto\b.*\bhttps\b|^(\[[^\]]*\]\s*|[\w-]+(\([^)]*\))?!?:\s*)?(update|fix|replace|correct|refresh|change)\w*\s+((all|every|broken|dead|outdated|old|stale)\s+)+(the\s+)?([\w.:/-]+\s+)?(urls?|links?)\b|\b(broken|dead) (urls|links)\b`,
  // What a static-analysis tool reported, fixed in one pass: its findings, not one bug it found.
  String.raw`\b(issues|warnings|findings|defects)\b.*\b(static analy\w*|code analysis|coverity|cppcheck|scan-build|sonar\w*|pvs-studio)\b|\b(static analy\w*|code analysis|coverity|cppcheck)\b.*\b(issues|warnings|findings|defects)\b`,
].map((pattern) => new RegExp(pattern, 'i'));
const SWEEP = { test: (text: string) => SWEEP_TOPICS.some((topic) => topic.test(text)) };

/** Which kind of sweep a subject speaks of (formatting, lint, typing, …), if any. */
export function sweepTopic(subject: string): number | undefined {
  const index = SWEEP_TOPICS.findIndex((topic) => topic.test(subject));
  return index < 0 ? undefined : index;
}

/** Release and dependency bookkeeping: version strings change every time, and mean nothing. */
const RELEASE =
  /^(release|bump|prepare)\b|\brelease (version )?v?\d|\bversion (to )?v?\d+\.\d+|^(update|upgrade) (version|changelog|requirements|dependencies|deps)\b|^\[pre-commit\.ci\]|^(chore|build)(\(deps\))?:/i;

/** CI configuration: a PR that changes only these keeps the pipeline running (a runner, a compiler version). */
const CI_FILES =
  /^(\.github\/workflows\/|\.circleci\/)|^(\.travis\.yml|\.?appveyor\.yml|\.gitlab-ci\.yml|azure-pipelines\.yml|\.cirrus\.yml|\.drone\.yml|Jenkinsfile)$/;

/** A PR changing this many code files at once is a sweep whatever it says. */
const SWEEP_FILES = 20;

/** A PR's title and its commits' subjects. */
export const subjects = (pr: PullRequestRecord): string[] => [
  pr.title,
  ...pr.messages.map((message) => splitMessage(message).subject),
];

/** A release of a version (not a dependency or changelog update): it may carry a last fix beside the bump. */
const VERSION_RELEASE = /^release\b|\brelease (version )?v?\d/i;

export function isVersionRelease(pr: PullRequestRecord): boolean {
  return VERSION_RELEASE.test(pr.title.trim());
}

function isRelease(pr: PullRequestRecord): boolean {
  return RELEASE.test(pr.title.trim());
}

/**
 * Formatting, renames, typing, lint, compiler-flag, port, tool, docs-theme, CI, i18n, move, URL and
 * static-analysis sweeps, PRs that change only CI configuration, and releases and version bumps:
 * whatever else a release carries rides along with the bump.
 */
export function isSweep(pr: PullRequestRecord): boolean {
  if (isRelease(pr)) return true;
  if (pr.files.length > 0 && pr.files.every((file) => CI_FILES.test(file.path))) return true;
  if (pr.files.filter((file) => file.kind === 'code').length >= SWEEP_FILES) return true;
  return SWEEP.test(pr.title) || subjects(pr).filter((subject) => SWEEP.test(subject)).length * 2 > subjects(pr).length;
}

/**
 * The commits blame should look through: all of a sweep PR's but a release's work, and a sweep commit
 * inside any other PR ("apply black" among real changes). A PR's own commits are the last of its messages.
 */
export function sweepCommits(pr: PullRequestRecord): string[] {
  const own = pr.commitShas ?? [];
  const messages = pr.messages.slice(-own.length);
  const subjectsSay = (test: (subject: string) => boolean) =>
    own.filter((_, index) => own.length === messages.length && test(splitMessage(messages[index]).subject));
  // A release that lands a branch of work (commits of its own, on the branch) carries that work: only
  // its bump and sweep commits are bookkeeping.
  if (isRelease(pr) && own.length > 1 && own.length === messages.length)
    return [pr.mergeSha, ...subjectsSay((subject) => RELEASE.test(subject) || SWEEP.test(subject))];
  if (isSweep(pr)) return [pr.mergeSha, ...own];
  return subjectsSay((subject) => SWEEP.test(subject));
}
