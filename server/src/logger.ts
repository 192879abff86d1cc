import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { requestLogFields } from './lib/request-context';

/**
 * The service logger: pino's JSON lines on stdout, or (LOG_FORMAT=pretty, for development)
 * the same lines made readable by pino-pretty. Redaction is a second line of defence: the
 * access log never logs headers or bodies in the first place. Every line written while a
 * request is served carries its id, app, store and member (`requestLogFields`, ids only).
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  format: 'json' | 'pretty' = 'json',
): Logger {
  return pino(
    {
      level,
      base: undefined,
      mixin: requestLogFields,
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          '*.password',
          '*.client_secret',
          '*.clientSecret',
          '*.access_token',
          '*.refresh_token',
          '*.token',
          '*.code',
          '*.secretKey',
          '*.databaseUrl',
          '*.databaseDirectUrl',
        ],
        censor: '[redacted]',
      },
    },
    destination ??
      (format === 'pretty' ? pretty({ destination: 1, colorize: process.stdout.isTTY }) : pino.destination(1)),
  );
}
