import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * The service logger. Redaction is a second line of defence: the access log never logs
 * headers or bodies in the first place.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
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
        ],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination(1),
  );
}
