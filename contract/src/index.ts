export { type Contract, contract } from './contract';

export * from './errors';
export * from './meta';
export * from './schemas/claims';
export * from './schemas/common';
export * from './schemas/currencies';
export * from './schemas/identity';
export * from './schemas/oauth';
export * from './schemas/orders';
export * from './schemas/pricing';
export * from './schemas/products';
export * from './schemas/quote';
export * from './schemas/settings';
export * from './schemas/webhooks';
export * from './schemas/widgets';
export * from './scopes';
export * from './versions/changelog';
export * from './versions/index';
