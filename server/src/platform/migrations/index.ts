import type { MigrationInterface } from 'typeorm';
import { Initial1795318702621 } from './1795318702621-Initial.js';
import { WebhookDeliveries1795320018601 } from './1795320018601-WebhookDeliveries.js';
import { Marketplace1795321669361 } from './1795321669361-Marketplace.js';
import { ReviewPreChecks1795321853716 } from './1795321853716-ReviewPreChecks.js';
import { DeliveryFillfactor1795400000000 } from './1795400000000-DeliveryFillfactor.js';
import { DeliveryAppQueueIndex1795500000000 } from './1795500000000-DeliveryAppQueueIndex.js';
import { Int64Money1796000004000 } from './1796000004000-Int64Money.js';
import { ReinstallAcquisitions1796000011000 } from './1796000011000-ReinstallAcquisitions.js';
import { SecretRotationOverlap1796000012000 } from './1796000012000-SecretRotationOverlap.js';
import { WebhookHealth1796000013000 } from './1796000013000-WebhookHealth.js';
import { WebhookEventFilter1796000014000 } from './1796000014000-WebhookEventFilter.js';
import { LocalForwards1796000016000 } from './1796000016000-LocalForwards.js';
import { DeliveryRollups1796000017000 } from './1796000017000-DeliveryRollups.js';
import { DeliveryHeadersOnce1796000019000 } from './1796000019000-DeliveryHeadersOnce.js';
import { NotificationFacts1796000021000 } from './1796000021000-NotificationFacts.js';
import { TimePartitionedAttempts1796000023000 } from './1796000023000-TimePartitionedAttempts.js';
import { NarrowAttempts1796000024000 } from './1796000024000-NarrowAttempts.js';
import { PartitionedEvents1796000025000 } from './1796000025000-PartitionedEvents.js';
import { EventBodiesOnly1796000026500 } from './1796000026500-EventBodiesOnly.js';
import { CompactSharedHeaders1796000027000 } from './1796000027000-CompactSharedHeaders.js';
import { WebhookEndpoints1796000028000 } from './1796000028000-WebhookEndpoints.js';
import { DeliveryEndpointBackfill1796000028500 } from './1796000028500-DeliveryEndpointBackfill.js';
import { EndpointHourly1796000030000 } from './1796000030000-EndpointHourly.js';
import { DeliveryTraceContext1796000031000 } from './1796000031000-DeliveryTraceContext.js';
import { DeliveryLogStatistics1796000031500 } from './1796000031500-DeliveryLogStatistics.js';
import { NotificationPoints1796000032500 } from './1796000032500-NotificationPoints.js';
import { DeliveryClaimRoom1796000033000 } from './1796000033000-DeliveryClaimRoom.js';
import { AppPageDetails1796000034700 } from './1796000034700-AppPageDetails.js';
import { CredentialNotices1796000035500 } from './1796000035500-CredentialNotices.js';
import { AttemptsWrittenOnce1796000036000 } from './1796000036000-AttemptsWrittenOnce.js';

/** Every migration, in order. New ones come from `node server/dist/scripts/generate-migration.js <Name>`. */
export const MIGRATIONS: (new () => MigrationInterface)[] = [
  Initial1795318702621,
  WebhookDeliveries1795320018601,
  Marketplace1795321669361,
  ReviewPreChecks1795321853716,
  DeliveryFillfactor1795400000000,
  DeliveryAppQueueIndex1795500000000,
  Int64Money1796000004000,
  ReinstallAcquisitions1796000011000,
  SecretRotationOverlap1796000012000,
  WebhookHealth1796000013000,
  WebhookEventFilter1796000014000,
  LocalForwards1796000016000,
  DeliveryRollups1796000017000,
  DeliveryHeadersOnce1796000019000,
  NotificationFacts1796000021000,
  TimePartitionedAttempts1796000023000,
  NarrowAttempts1796000024000,
  PartitionedEvents1796000025000,
  EventBodiesOnly1796000026500,
  CompactSharedHeaders1796000027000,
  WebhookEndpoints1796000028000,
  DeliveryEndpointBackfill1796000028500,
  EndpointHourly1796000030000,
  DeliveryTraceContext1796000031000,
  DeliveryLogStatistics1796000031500,
  NotificationPoints1796000032500,
  DeliveryClaimRoom1796000033000,
  AppPageDetails1796000034700,
  CredentialNotices1796000035500,
  AttemptsWrittenOnce1796000036000,
];
