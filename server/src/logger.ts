import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

/**
 * The service logger: pino's JSON lines on stdout, or (LOG_FORMAT=pretty, for development)
 * the same lines made readable by pino-pretty. Redaction is a second line of defence: the
 * access log never logs headers or bodies in the first place.
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
