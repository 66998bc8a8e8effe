/**
 * No function of the source spans over 150 lines: a function a newcomer cannot read in one sitting
 * hides its state, so a long one is split into small modules (a state object and functions over
 * it, or a class per state machine). Tests and bench are apart.
 *
 * Functions still over the limit are listed in STILL_OVER with their length as a ceiling: the list
 * can only shrink. A listed function that grew fails, and so does a listed one now at or under the
 * limit (remove it from the list), so the ceiling follows every split.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const LIMIT = 150;
const ROOT = join(import.meta.dirname, '..', '..');
const ROOTS = ['core', 'http-kit', 'adapters', 'relay', 'deploy', 'sdk', 'client-link/src'];

/** `path name` → its length today: a ceiling, never to be raised. */
const STILL_OVER: Record<string, number> = {};

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) {
        if (entry !== 'node_modules' && entry !== 'dist') walk(path);
      } else if (/\.(ts|tsx|mts)$/.test(entry) && !entry.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const root of ROOTS) walk(join(ROOT, root));
  return files;
}

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  );
}

/** Its own name, or the name it is bound to (`const f = () => …`, `{ f: () => … }`), or `<function>`. */
function ownName(node: FunctionLike): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.name
  ) {
    return parent.name.getText();
  }
  return '<function>';
}

/** Every function over the limit: `path qualified.name` (enclosing functions and classes joined by dots) → lines. */
function longFunctions(): Map<string, number> {
  const found = new Map<string, number>();
  for (const file of sourceFiles()) {
    const rel = relative(ROOT, file).split('\\').join('/');
    const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, outer: string[]): void => {
      let inner = outer;
      if (ts.isClassLike(node)) inner = [...outer, node.name?.getText() ?? '<class>'];
      if (isFunctionLike(node)) {
        inner = [...outer, ownName(node)];
        const first = src.getLineAndCharacterOfPosition(node.getStart()).line;
        const last = src.getLineAndCharacterOfPosition(node.end).line;
        const lines = last - first + 1;
        if (lines > LIMIT) {
          let key = `${rel} ${inner.join('.')}`;
          for (let n = 2; found.has(key); n++) key = `${rel} ${inner.join('.')}#${n}`;
          found.set(key, lines);
        }
      }
      ts.forEachChild(node, (child) => visit(child, inner));
    };
    visit(src, []);
  }
  return found;
}

describe(`functions of the source span at most ${LIMIT} lines`, () => {
  const found = longFunctions();

  it('no function outside the allow-list is over the limit', () => {
    const unlisted = [...found]
      .filter(([key]) => !(key in STILL_OVER))
      .map(([key, lines]) => `${key} (${lines} lines)`);
    expect(unlisted, `split these into small modules; ${LIMIT} lines at most`).toEqual([]);
  });

  it('no listed function grew past its ceiling', () => {
    const grown = [...found]
      .filter(([key, lines]) => key in STILL_OVER && lines > (STILL_OVER[key] ?? 0))
      .map(([key, lines]) => `${key}: ${lines} lines, ceiling ${STILL_OVER[key]}`);
    expect(grown).toEqual([]);
  });

  it('every listed function is still over the limit (remove the ones split)', () => {
    const stale = Object.keys(STILL_OVER).filter((key) => !found.has(key));
    expect(stale, 'these are at or under the limit now, or gone: remove them from STILL_OVER').toEqual([]);
  });
});
