/**
 * `promise`, or a failure with `message` if it has not settled within `ms`. The timer is
 * unref'd: once the promise settles, it does not hold the process open for the rest of `ms`.
 */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms).unref()),
  ]);
}
