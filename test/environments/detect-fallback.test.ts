// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { detectRecipe } from '../../src/environments/detect';
import { StageError } from '../../src/errors';

/** A repository's files without git: names at the root and their texts. */
const repoFiles = (files: Record<string, string>) => ({
  rootFiles: new Set(Object.keys(files).map((f) => f.split('/')[0])),
  read: async (path: string) => files[path],
});
const opts = { defaultTestCommand: 'python3 -m pytest -q' };

test("a repository no detector knows runs pytest only where the PR's tests are Python", async () => {
  // Plain Python without a manifest: pytest, as configured.
  const plain = await detectRecipe(repoFiles({ 'app/core.py': '', 'tests/test_core.py': '' }), {
    ...opts,
    testFiles: ['tests/test_core.py', 'tests/data/x.json'],
  });
  expect(plain).toMatchObject({ language: 'unknown', runner: 'pytest', test: 'python3 -m pytest -q' });
  // Ruby: no pytest run that fails twice and says nothing; the stage says why it cannot be set up.
  const ruby = detectRecipe(repoFiles({ Gemfile: "source 'https://rubygems.org'\n", 'lib/x.rb': '' }), {
    ...opts,
    testFiles: ['spec/x_spec.rb'],
  });
  await expect(ruby).rejects.toBeInstanceOf(StageError);
  await expect(ruby).rejects.toThrow(
    /^no build system chainsmith knows is at the repository's root \(it looks for Cargo\.toml, .*\), and the PR's tests \(spec\/x_spec\.rb\) are not Python files pytest could run: configure a recipe/,
  );
  // A configured test command that is not pytest's is the user's choice: it runs.
  const configured = await detectRecipe(repoFiles({ Gemfile: '' }), {
    defaultTestCommand: 'bundle exec rspec',
    testFiles: ['spec/x_spec.rb'],
  });
  expect(configured).toMatchObject({ runner: 'exit-code', test: 'bundle exec rspec' });
});

test("a package.json without scripts or dependencies (clib's manifest of a C library) is no Node project", async () => {
  const clib = JSON.stringify({ name: 'clamp', repo: 'acme/clamp', src: ['clamp.c', 'clamp.h'] });
  const cmake = 'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\n';
  const c = await detectRecipe(repoFiles({ 'package.json': clib, 'CMakeLists.txt': cmake }), opts);
  expect(c).toMatchObject({ language: 'c', origin: 'c-cmake' });
  const node = await detectRecipe(
    repoFiles({ 'package.json': JSON.stringify({ name: 'x', scripts: { test: 'tap' } }), 'CMakeLists.txt': cmake }),
    opts,
  );
  expect(node).toMatchObject({ language: 'node' });
});
