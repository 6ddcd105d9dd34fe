import { rustTestItems } from '../../../../src/environments/languages/rust/test-items';

const texts = (source: string) => rustTestItems(source)?.map((s) => source.slice(s.start, s.end));

describe('rustTestItems: the top-level items only test builds compile', () => {
  test('a tests module with its attributes and doc comment, and nothing of the code around it', () => {
    const tests = `/// Unit tests.\n#[cfg(test)]\n#[allow(clippy::all)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn two() {\n        assert_eq!(add(1, 1), 2);\n    }\n}`;
    const source = `//! The crate.\n#![deny(missing_docs)]\n\n/// Adds.\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\n${tests}\n\npub fn after() {}\n`;
    expect(texts(source)).toEqual([tests]);
  });

  test('braces, quotes and slashes inside strings, characters, raw strings and comments are not code', () => {
    const tests = `#[cfg(test)]\nmod tests {\n    #[test]\n    fn braces() {\n        let s = "}{\\"}";\n        let r = r#"}"{"#;\n        let c = '}';\n        let q = '\\'';\n        let b = b'{';\n        /* } /* nested { */ */\n        // }\n        assert!(s.len() + r.len() > 0 && c != q && b != 0);\n    }\n}`;
    const source = `fn life<'a>(x: &'a str) -> &'a str {\n    x // }\n}\n\n${tests}\n`;
    expect(texts(source)).toEqual([tests]);
  });

  test('cfg(all(test, …)) counts; cfg(not(test)) and cfg(any(test, …)) do not', () => {
    const helper = `#[cfg(all(feature = "std", test))]\nfn helper() -> Vec<u8> {\n    vec![1]\n}`;
    const used = `#[cfg(test)]\nuse std::collections::{HashMap, HashSet};`;
    const source = `${helper}\n\n#[cfg(not(test))]\nfn real() {}\n\n#[cfg(any(test, feature = "x"))]\nfn either() {}\n\n${used}\n`;
    expect(texts(source)).toEqual([helper, used]);
  });

  test('a test function at the top of the file is a test item, by its own attribute or a test macro of a crate', () => {
    const own = `/// Same input.\n#[test]\nfn test_same() {\n    assert_eq!(lcs(&[1], &[1]), 1);\n}`;
    const tokio = `#[tokio::test(flavor = "multi_thread")]\nasync fn runs() {}`;
    const source = `pub fn lcs(a: &[u8], b: &[u8]) -> usize {\n    a.len().min(b.len())\n}\n\n${own}\n\n${tokio}\n\n#[testing]\nfn not_a_test() {}\n`;
    expect(texts(source)).toEqual([own, tokio]);
  });

  test('an item that ends at its semicolon ends there, braces before it or not', () => {
    const item = `#[cfg(test)]\nstatic SAMPLE: Point = Point { x: 1, y: 2 };`;
    const source = `struct Point {\n    x: i32,\n    y: i32,\n}\n\n${item}\n\n#[cfg(test)]\nmod tests;\n`;
    expect(texts(source)).toEqual([item, '#[cfg(test)]\nmod tests;']);
  });

  test("a const generic's block in an item's head is not its body; a shebang line is no attribute", () => {
    const item = `#[cfg(test)]\nimpl Grid<{ 2 + 1 }> {\n    fn cells() -> [u8; 3] {\n        [0; 3]\n    }\n}`;
    const defaulted = `#[cfg(test)]\nstruct Sized<const N: usize = { 1 }> {\n    cells: [u8; N],\n}`;
    expect(
      texts(`#!/usr/bin/env run-cargo-script\npub struct Grid<const N: usize>;\n\n${item}\n\n${defaulted}\n`),
    ).toEqual([item, defaulted]);
  });

  test('a file that does not lex gives no items rather than a wrong cut', () => {
    expect(rustTestItems('#[cfg(test)]\nmod tests {\n    const S: &str = "unterminated;\n}\n')).toBeUndefined();
    expect(rustTestItems('fn f() {\n')).toBeUndefined();
  });
});
