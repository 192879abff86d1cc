/**
 * Whether a container runtime answers within a few seconds: the harness then starts PostgreSQL
 * (global-setup.ts) and MinIO (s3.ts) in containers; otherwise it runs them embedded.
 */
export async function containerRuntimeAnswers(): Promise<boolean> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  return Promise.race([
    getContainerRuntimeClient().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 4000).unref()),
  ]);
}
