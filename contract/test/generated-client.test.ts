import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../scripts/openapi';

/**
 * A consumer who never uses the SDK: a client generated from the committed openapi.json by a
 * widely used third-party generator (openapi-typescript, with openapi-fetch), and a small
 * program on it that uses the named types and reads a filed claim's id from its declared
 * `Location` header. The program must type-check.
 */
const DIR = path.resolve(import.meta.dirname, '../../.tmp/generated-client');

const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Order = components['schemas']['Order'];
type Claim = components['schemas']['Claim'];
type Quote = components['schemas']['Quote'];
type ClaimFile = components['schemas']['ClaimFile'];
/** The header a filed claim's id comes back in, as the document declares it. */
type FiledLocation = paths['/v1/claims/{id}']['post']['responses'][200]['headers']['Location'];

const client = createClient<paths>({ baseUrl: 'https://protection-service.invalid' });

export async function fileAndRead(token: string, order: Order, claim: ClaimFile): Promise<Claim | undefined> {
  const headers = { authorization: \`Bearer \${token}\` };
  const filed = await client.POST('/v1/claims/{id}', {
    params: { path: { id: order.sourceOrderId } },
    body: claim,
    headers,
  });
  if (filed.error) throw new Error(filed.error.message);
  const location: FiledLocation | null = filed.response.headers.get('location');
  const claimId = location?.split('/').pop();
  if (!claimId) return undefined;
  const read = await client.GET('/v1/claims/{id}', { params: { path: { id: claimId } }, headers });
  const found: Claim | undefined = read.data;
  return found;
}

export async function quote(token: string): Promise<Quote['premium'] | undefined> {
  const { data } = await client.POST('/v2/quote', {
    headers: { authorization: \`Bearer \${token}\` },
    body: {
      policyType: 'SHIPPING',
      currency: 'USD',
      orderTotal: 49.99,
      lineItems: [{ id: 'line-1', price: 49.99, quantity: 1, isShippable: true }],
    },
  });
  return data?.data.premium;
}
`;

describe('a client generated from openapi.json by a third-party generator', () => {
  it('type-checks a program that uses the named types and reads a filed claim id', async () => {
    mkdirSync(DIR, { recursive: true });
    const ast = await openapiTS(pathToFileURL(OPENAPI_FILE));
    writeFileSync(path.join(DIR, 'schema.d.ts'), astToString(ast));
    writeFileSync(path.join(DIR, 'program.ts'), PROGRAM);
    const program = ts.createProgram([path.join(DIR, 'program.ts')], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 60_000);
});
