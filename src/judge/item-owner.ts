/**
 * Which function a changed line of a test file belongs to, where git's hunk header cannot say: a line
 * that declares a function (`def test_x(tmp_path):`, its signature changed), or a line of what goes on
 * top of one (a decorator, annotation or attribute, with its arguments: `#[cfg(feature = "std")]`,
 * `@Disabled`, a `@pytest.mark.parametrize` case). The header names the function *above* the hunk, so
 * for those lines it names the wrong test.
 */

/** Line-leading annotations or attributes on the declaration's own line (`@Test void f()`, `#[test] fn f()`). */
const LEADING_MARKS = /^\s*(?:(?:@[\w.]+(?:\([^()]*\))?|#\[[^\]]*\])\s+)+/;
/** A function's declaration, by language; the name is the one group that matched. */
const DECLARES = new RegExp(
  [
    // Rust
    String.raw`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(\w+)`,
    // Python
    String.raw`^\s*(?:async\s+)?def\s+(\w+)`,
    // Go (a method's receiver first)
    String.raw`^func\s+(?:\([^)]*\)\s*)?(\w+)`,
    // Java, Kotlin, C#, C with a storage class or void: modifiers, an optional type, the name, a parenthesis
    String.raw`^\s*(?:(?:public|protected|private|static|final|override|suspend|internal|open|abstract|synchronized|fun|void)\s+)+(?:<[^>]*>\s*)?(?:[\w<>[\],.?]+\s+)?(\w+)\s*\(`,
  ].join('|'),
);
/** The start of a decorator, annotation or attribute. */
const MARK = /^\s*(?:@\w|#\[)/;
/** A line of closing brackets that ends a mark's arguments (`)`, `)]`, `})`), not a body's `}`. */
const CLOSES_MARK = /^\s*[)\]}]*[)\]][,;]?\s*$/;
/** A comment line, which may sit between a mark and its function. */
const COMMENT = /^\s*(?:\/\/|\/\*|\*|#(?!\[))/;
/** A line that opens a block of its own (`if x {`, `class T:`), where a mark's arguments never are. */
const OPENS_BLOCK = /\w.*[{:]\s*$/;
/** How far a line may be from the mark it belongs to, and a mark from its function. */
const REACH = 60;

const indent = (line: string) => /^\s*/.exec(line)![0].replace(/\t/g, '    ').length;

/** The function a line declares, if it declares one. */
export function declaredName(line: string): string | undefined {
  const m = DECLARES.exec(line.replace(LEADING_MARKS, (marks) => /^\s*/.exec(marks)![0]));
  return m?.slice(1).find((g) => g !== undefined);
}

/** The function the mark starting at `at` sits on: the declaration after its marks, at its indentation. */
function markedFunction(lines: readonly string[], at: number): { name: string; line: number } | undefined {
  const depth = indent(lines[at]);
  const own = declaredName(lines[at]);
  if (own) return { name: own, line: at };
  for (let i = at + 1; i < lines.length && i <= at + REACH; i++) {
    const line = lines[i];
    const name = declaredName(line);
    if (name) return indent(line) === depth ? { name, line: i } : undefined;
    if ((MARK.test(line) || COMMENT.test(line)) && indent(line) === depth) continue;
    if (!line.trim() || (indent(line) <= depth && !CLOSES_MARK.test(line))) return undefined;
  }
  return undefined;
}

/**
 * The function that line `at` (0-based) of a file declares or marks, or undefined where it is neither
 * (a body line, whose function git's hunk header names): from the line up, through the arguments of
 * a mark, to the mark's start, then down past the marks to the declaration they sit on. A mark on a
 * statement (`#[cfg(…)] let x`) sits on no declaration and names nothing.
 */
export function ownerOf(lines: readonly string[], at: number): string | undefined {
  if (at < 0 || at >= lines.length) return undefined;
  const own = declaredName(lines[at]);
  if (own) return own;
  const depth = indent(lines[at]);
  for (let i = at; i >= 0 && i >= at - REACH; i--) {
    const line = lines[i];
    if (MARK.test(line) && indent(line) <= depth) {
      const marked = markedFunction(lines, i);
      return marked && marked.line >= at ? marked.name : undefined;
    }
    if (i === at) continue;
    if (!line.trim() || declaredName(line) || /^\s*}/.test(line)) return undefined;
    if (indent(line) < depth && OPENS_BLOCK.test(line)) return undefined;
  }
  return undefined;
}
