import type { LanguageSupport } from '../../contract';
import { detectJava } from './detect';
import { jdkFingerprint, newestHostJdk } from './host-jdk';
import { mavenRunner } from './maven';

/**
 * Java: a Maven repository filled on the host (detect.ts), tested with mvn test, on Debian's JDK 17 or,
 * for a release past it, the host's newest JDK copied into the image (images/host-java); Gradle builds
 * are refused with the reason.
 */
export const java: LanguageSupport<'java', 'maven', 'java'> = {
  name: 'java',
  title: 'Java',
  layouts: ['pom.xml', 'build.gradle'],
  detect: (files, ctx) => detectJava(files, newestHostJdk(), ctx.merged),
  runners: { maven: mavenRunner },
  toolchains: { java: 'java -version 2>&1 | head -n 1; mvn -v 2>/dev/null | head -n 1' },
  files: { tests: [], code: ['java'] },
  hostToolchain: {
    recipe: 'host-java',
    fingerprint: jdkFingerprint,
    unrunnable: /lacks libraries|does not run in the image/,
  },
};
