import type { Migration } from 'kysely/migration';
import * as foundation from './20261121000000-foundation';
import * as identity from './20261121010000-identity';
import * as events from './20261122000000-events';
import * as commerce from './20261122010000-commerce';
import * as partner from './20261122020000-partner';
import * as claims from './20261122030000-claims';
import * as claimsUpdatedSince from './20261123000000-claims-updated-since';
import * as deliveryOutbox from './20261124000000-delivery-outbox';
import * as claimLinks from './20261124010000-claim-links';
import * as mail from './20261124020000-mail';
import * as storeChanges from './20261124030000-store-changes';
import * as appSettings from './20261125000000-app-settings';
import * as apiVersions from './20261125010000-api-versions';
import * as testMode from './20261125020000-test-mode';
import * as claimsWorkspace from './20261126000000-claims-workspace';
import * as staff from './20261126000000-staff';
import * as eventRetention from './20261126020000-event-retention';
import * as analytics from './20261126030000-analytics';
import * as auditEvents from './20261126030000-audit-events';
import * as members from './20261126030000-members';
import * as analyticsRollups from './20261127000000-analytics-rollups';
import * as tracking from './20261127000000-tracking';
import * as analyticsPending from './20261127010000-analytics-pending';
import * as trackingSweep from './20261127020000-tracking-sweep';
import * as analyticsWatermark from './20261129000000-analytics-watermark';
import * as orderOffers from './20261129100000-order-offers';
import * as files from './20261129200000-files';
import * as traceContext from './20261129300000-trace-context';
import * as photosRequired from './20261130000000-photos-required';
import * as claimRisk from './20261130100000-claim-risk';
import * as deliveryProof from './20261130100100-delivery-proof';
import * as mailTraceContext from './20261130300000-mail-trace-context';
import * as analyticsFoldRounds from './20261130500000-analytics-fold-rounds';
import * as analyticsDecisionHours from './20261130500100-analytics-decision-hours';
import * as analyticsDefinition from './20261130600000-analytics-definition';
import * as claimsEmailIndexOnce from './20261130700000-claims-email-index-once';
import * as perceptualHashCentre from './20261201000000-perceptual-hash-centre';
import * as claimRiskPendingChanges from './20261201000100-claim-risk-pending-changes';
import * as deliveriesInstallationKey from './20261201300000-deliveries-installation-key';
import * as filesCentreHashMissing from './20261201400000-files-centre-hash-missing';
import * as ordersPlacedIndexDropped from './20261201500000-orders-placed-index-dropped';
import * as photoMatches from './20261201600000-photo-matches';
import * as orderWriteChecks from './20261201700000-order-write-checks';
import * as claimRiskFunction from './20261201800000-claim-risk-function';
import * as claimRiskOneRow from './20261201900000-claim-risk-one-row';

/**
 * Every migration, by name, in order. Listed statically (not read from the directory) so
 * they load the same way under tsx, vitest and a bundler.
 */
export const migrations: Record<string, Migration> = {
  '20261121000000-foundation': foundation,
  '20261121010000-identity': identity,
  '20261122000000-events': events,
  '20261122010000-commerce': commerce,
  '20261122020000-partner': partner,
  '20261122030000-claims': claims,
  '20261123000000-claims-updated-since': claimsUpdatedSince,
  '20261124000000-delivery-outbox': deliveryOutbox,
  '20261124010000-claim-links': claimLinks,
  '20261124020000-mail': mail,
  '20261124030000-store-changes': storeChanges,
  '20261125000000-app-settings': appSettings,
  '20261125010000-api-versions': apiVersions,
  '20261125020000-test-mode': testMode,
  '20261126000000-claims-workspace': claimsWorkspace,
  '20261126000000-staff': staff,
  '20261126020000-event-retention': eventRetention,
  '20261126030000-analytics': analytics,
  '20261126030000-audit-events': auditEvents,
  '20261126030000-members': members,
  '20261127000000-analytics-rollups': analyticsRollups,
  '20261127000000-tracking': tracking,
  '20261127010000-analytics-pending': analyticsPending,
  '20261127020000-tracking-sweep': trackingSweep,
  '20261129000000-analytics-watermark': analyticsWatermark,
  '20261129100000-order-offers': orderOffers,
  '20261129200000-files': files,
  '20261129300000-trace-context': traceContext,
  '20261130000000-photos-required': photosRequired,
  '20261130100000-claim-risk': claimRisk,
  '20261130100100-delivery-proof': deliveryProof,
  '20261130300000-mail-trace-context': mailTraceContext,
  '20261130500000-analytics-fold-rounds': analyticsFoldRounds,
  '20261130500100-analytics-decision-hours': analyticsDecisionHours,
  '20261130600000-analytics-definition': analyticsDefinition,
  '20261130700000-claims-email-index-once': claimsEmailIndexOnce,
  '20261201000000-perceptual-hash-centre': perceptualHashCentre,
  '20261201000100-claim-risk-pending-changes': claimRiskPendingChanges,
  '20261201300000-deliveries-installation-key': deliveriesInstallationKey,
  '20261201400000-files-centre-hash-missing': filesCentreHashMissing,
  '20261201500000-orders-placed-index-dropped': ordersPlacedIndexDropped,
  '20261201600000-photo-matches': photoMatches,
  '20261201700000-order-write-checks': orderWriteChecks,
  '20261201800000-claim-risk-function': claimRiskFunction,
  '20261201900000-claim-risk-one-row': claimRiskOneRow,
};
