import type { z } from 'zod';
import type { VersionChange } from '../change';

/** 2025-01-01 answers a computed quote with 200; its successor with 201. */
export const quoteAnswers200: VersionChange = {
  id: 'quote-answers-200',
  version: '2025-01-01',
  title: '`POST /v2/quote` answers 200',
  description: 'A computed quote answers `200 OK` instead of `201 Created`; the body is the same.',
  why: 'A quote is a new resource computed for the request, which is what 201 says.',
  upgrade: 'Treat `201` as the success status of `POST /v2/quote`.',
  route(key, route) {
    if (key !== 'quote.create') return undefined;
    const created = (route.responses as Record<number, z.ZodTypeAny>)[201];
    if (!created) return undefined;
    return {
      responses: { 201: null, 200: created },
      down: (answer) => (answer.status === 201 ? { status: 200, body: answer.body } : answer),
    };
  },
};
