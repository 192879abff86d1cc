import { recordSdkCalls } from './route-coverage';

// Loaded with --import into the processes that run the examples: they record their SDK calls too.
if (process.env.SDK_CALLS_DIR) recordSdkCalls(process.env.SDK_CALLS_DIR);
