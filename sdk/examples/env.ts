/** The examples' settings, from the environment (the example tests set them for a test server). */
export function env() {
  const read = (name: string, fallback?: string): string => {
    const value = process.env[name] ?? fallback;
    if (value === undefined) throw new Error(`set ${name} (see the comment at the top of the example)`);
    return value;
  };
  return {
    baseUrl: read('SVC_BASE_URL', 'http://localhost:3000'),
    clientId: read('SVC_CLIENT_ID'),
    clientSecret: read('SVC_CLIENT_SECRET'),
    storeId: read('SVC_STORE_ID'),
    redirectUri: read('SVC_REDIRECT_URI', 'https://app.example.com/callback'),
    get dashboardToken() {
      return read('SVC_DASHBOARD_TOKEN');
    },
    get accessToken() {
      return read('SVC_ACCESS_TOKEN');
    },
  };
}
