// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { withTestItemsOf } from '../../src/environments/inline-tests';

describe("withTestItemsOf: the merge's test items in place of the tree's own", () => {
  test('each takes the place of its counterpart, so a #[macro_use] test module still comes before the modules that use it', () => {
    const tree = `#[cfg(test)]\n#[macro_use]\nmod testmacros;\n\nmod parse;\n\npub fn f() -> u32 {\n    1\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn mine() {}\n}\n`;
    const merge = `#[cfg(test)]\n#[macro_use]\nmod testmacros;\n\nmod parse;\n\npub fn f() -> u32 {\n    2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn theirs() {}\n}\n\n#[cfg(test)]\nfn helper() {}\n`;
    expect(withTestItemsOf('src/lib.rs', tree, merge)).toBe(
      `#[cfg(test)]\n#[macro_use]\nmod testmacros;\n\nmod parse;\n\npub fn f() -> u32 {\n    1\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn theirs() {}\n}\n\n#[cfg(test)]\nfn helper() {}\n`,
    );
  });

  test("a tree with no test items gets the merge's at its end; one whose items the merge dropped loses them", () => {
    const merge = `pub fn f() {}\n\n#[cfg(test)]\nmod tests {}\n`;
    expect(withTestItemsOf('src/lib.rs', 'pub fn g() {}\n', merge)).toBe(
      'pub fn g() {}\n\n#[cfg(test)]\nmod tests {}\n',
    );
    expect(withTestItemsOf('src/lib.rs', `pub fn g() {}\n\n#[cfg(test)]\nmod old {}\n`, merge)).toBe(
      'pub fn g() {}\n\n#[cfg(test)]\nmod tests {}\n',
    );
    expect(withTestItemsOf('src/lib.rs', 'fn broken() {\n', merge)).toBeUndefined();
  });
});
