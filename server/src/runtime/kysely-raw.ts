import {
  type CompiledQuery,
  type OperationNode,
  PostgresQueryCompiler,
  type RawBuilder,
  RawNode,
  sql,
  ValueNode,
} from 'kysely';
import { fastPath, firstProblem, outsideRange, packageVersion } from './fast-paths';

const on = fastPath({
  name: 'one-pass-raw',
  guard: () =>
    firstProblem(
      () => outsideRange('kysely', packageVersion('kysely'), '0.27.0', '0.30.0'),
      () =>
        typeof RawNode?.is === 'function' && typeof ValueNode?.is === 'function'
          ? undefined
          : 'kysely has no RawNode.is or ValueNode.is',
      selfTest,
    ),
});

/** The text and values of a sql template as both this pass and Kysely's compiler make them. */
function selfTest(): string | undefined {
  const inner = sql`b = ${'x'} and c in (${sql.join([1, 2])})`;
  const query = sql`select ${1}::int as a from t where ${inner} and d = ${sql.raw("'lit'")} and e = ${null}`;
  const mine = compileRaw(query.toOperationNode());
  const kysely = new PostgresQueryCompiler().compileQuery(query.toOperationNode() as never, { queryId: '' } as never);
  if (!mine || mine.sql !== kysely.sql || JSON.stringify(mine.parameters) !== JSON.stringify(kysely.parameters)) {
    return "the one-pass text of a sql template differs from Kysely's compiler";
  }
  return undefined;
}

/**
 * The text and values of a raw statement (a `sql` template) read in one pass, or undefined when
 * the device is off or the template holds anything but text, nested templates and bound
 * values (identifiers, literals: Kysely compiles those). Kysely's plugin transform and
 * compiler rebuild and walk the whole tree on every call; raw SQL has no identifier for the
 * camel-case plugin to rename, so the text is the same. Values are numbered `$1`, `$2`, ... in
 * order, as Kysely's PostgreSQL compiler numbers them.
 */
export function compiledInOnePass<T>(query: RawBuilder<T>): Pick<CompiledQuery<T>, 'sql' | 'parameters'> | undefined {
  if (!on()) return undefined;
  const compiled = compileRaw(query.toOperationNode());
  if (!compiled) refusals++;
  return compiled;
}

let refusals = 0;

/**
 * How many templates this process's one pass has left to Kysely's compiler: one column
 * reference (`sql.ref`) or literal (`sql.lit`) anywhere sends a whole statement through the
 * compiler and its plugins' walk of every node, on every call. The hot paths keep it still
 * (server/test/runtime/one-pass.test.ts).
 */
export const onePassRefusals = (): number => refusals;

function compileRaw(node: OperationNode): { sql: string; parameters: unknown[] } | undefined {
  const text: string[] = [];
  const parameters: unknown[] = [];
  return appendRaw(node, text, parameters) ? { sql: text.join(''), parameters } : undefined;
}

function appendRaw(node: OperationNode, text: string[], parameters: unknown[]): boolean {
  if (!RawNode.is(node)) return false;
  const { sqlFragments, parameters: children } = node;
  for (let i = 0; i < sqlFragments.length; i++) {
    text.push(sqlFragments[i]!);
    const child = children[i];
    if (child === undefined) continue;
    if (ValueNode.is(child) && !child.immediate) {
      parameters.push(child.value);
      text.push(`$${parameters.length}`);
    } else if (!appendRaw(child, text, parameters)) {
      return false;
    }
  }
  return true;
}
