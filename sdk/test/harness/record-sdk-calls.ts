import { inject } from 'vitest';
import { recordSdkCalls } from './route-coverage';

// A setup file of the server test project: every worker records the SDK's requests.
recordSdkCalls(inject('sdkCallsDir'));
