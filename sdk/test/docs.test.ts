import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every name the SDK exports is documented with an example, as partner developers read it in
 * their editor: the hand-written ones, and the generated `Client`, `Reply` and route groups.
 * (The generated body types `T…` carry the contract's descriptions instead.)
 */
describe('SDK documentation', () => {
  it('gives every exported name a JSDoc comment with an @example', () => {
    const entry = path.resolve(import.meta.dirname, '../src/index.ts');
    const program = ts.createProgram([entry], { strict: true, noEmit: true, skipLibCheck: true });
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    const exported = checker.getExportsOfModule(module);
    const undocumented: string[] = [];
    for (const symbol of exported) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const declaration = target.declarations?.[0];
      if (!declaration) continue;
      const generated = declaration.getSourceFile().fileName.includes('/generated/');
      if (generated && !/^(Client|Reply|\w+Routes)$/.test(symbol.name)) continue;
      const tags = ts.getJSDocTags(declaration).map((t) => t.tagName.text);
      const comment = ts.getJSDocCommentsAndTags(declaration).length > 0;
      if (!comment || !tags.includes('example')) undocumented.push(symbol.name);
    }
    expect(exported.length).toBeGreaterThan(40);
    expect(undocumented).toEqual([]);
  });
});
