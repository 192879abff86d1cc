/**
 * The bookkeeping of the every-route tests of an older dated version (D44): each answer is
 * noted with the version that served it, so the run can check that none was a 5xx and all came
 * from the version asked for; `body` checks an answer's status and hands back its body.
 */
export function answerLog() {
  const answers: { route: string; status: number; version: string | null }[] = [];
  /** Notes an answer for the checks every answer must pass. */
  const seen = <R extends { status: number; headers: Headers }>(route: string, res: R): R => {
    answers.push({ route, status: res.status, version: res.headers.get('api-version') });
    return res;
  };
  /** The answer's body, after checking its status. */
  const body = <R extends { status: number; body: unknown; headers: Headers }, S extends R['status']>(
    route: string,
    res: R,
    status: S,
  ): Extract<R, { status: S }>['body'] => {
    seen(route, res);
    if (res.status !== status) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Extract<R, { status: S }>['body'];
  };
  return { answers, seen, body };
}
