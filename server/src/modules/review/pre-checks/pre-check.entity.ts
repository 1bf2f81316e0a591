import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Column, Entity, PrimaryColumn } from 'typeorm';

// The GraphQL enums of the stored strings; the fields stay strings because the service and the jsonb rows write them.
export enum PreCheckName {
  APP_URL_HTTPS = 'APP_URL_HTTPS',
  APP_URL_FRAMEABLE = 'APP_URL_FRAMEABLE',
  ICON_IMAGE = 'ICON_IMAGE',
  ICON_SIZE = 'ICON_SIZE',
  SCREENSHOT_IMAGE = 'SCREENSHOT_IMAGE',
  PRE_CHECKS = 'PRE_CHECKS',
}
export enum PreCheckOutcome {
  PASS = 'PASS',
  WARN = 'WARN',
  FAIL = 'FAIL',
}
export enum PreCheckStatus {
  PENDING = 'PENDING',
  DONE = 'DONE',
  SUPERSEDED = 'SUPERSEDED',
}
registerEnumType(PreCheckName, {
  name: 'PreCheckName',
  description: 'Which automated check a result is for',
  valuesConfig: {
    APP_URL_HTTPS: { description: 'Does the App URL answer over HTTPS' },
    APP_URL_FRAMEABLE: { description: 'May the platform frame the App URL (X-Frame-Options, CSP frame-ancestors)' },
    ICON_IMAGE: { description: 'Is the icon an image' },
    ICON_SIZE: { description: 'Is the icon 512x512' },
    SCREENSHOT_IMAGE: { description: 'Does a screenshot load, is it an image, and is it within size (one result per screenshot; the detail names which)' },
    PRE_CHECKS: { description: 'The checks could not run at all; review by hand' },
  },
});
registerEnumType(PreCheckOutcome, {
  name: 'PreCheckOutcome',
  description: 'How a check came out; no outcome blocks a submission',
  valuesConfig: {
    PASS: { description: 'The check passed' },
    WARN: { description: 'Worth a reviewer’s look, or not checked (the detail says why)' },
    FAIL: { description: 'The check failed (the detail says how)' },
  },
});
registerEnumType(PreCheckStatus, {
  name: 'PreCheckStatus',
  description: 'Where the pre-checks of one revision stand',
  valuesConfig: {
    PENDING: { description: 'Requested, not yet run' },
    DONE: { description: 'Ran; see results' },
    SUPERSEDED: { description: 'Not run: the app changed before the checks ran' },
  },
});

@ObjectType({ description: 'One automated check of an app and how it came out' })
export class PreCheckResult {
  /** APP_URL_HTTPS, APP_URL_FRAMEABLE, ICON_IMAGE, ICON_SIZE, SCREENSHOT_IMAGE (one per screenshot), or PRE_CHECKS when none could run */
  @Field(() => PreCheckName, { description: 'Which check' })
  check: string;

  /** PASS, WARN or FAIL */
  @Field(() => PreCheckOutcome, { description: 'PASS, WARN or FAIL' })
  outcome: string;

  @Field({ description: 'What was found, written for the reviewer' })
  detail: string;
}

/** Automated checks of one revision of an app, shown to reviewers; they never block a submission. */
@ObjectType('PreCheckReport', { description: 'Automated checks of one revision of an app, for reviewers and its developer; they never block a submission' })
@Entity('app_pre_checks')
export class AppPreCheck {
  @PrimaryColumn({ type: 'text', name: 'app_id' })
  appId: string;

  @Field(() => Int, { description: 'The app revision checked' })
  @PrimaryColumn({ type: 'integer' })
  revision: number;

  /** PENDING, DONE, or SUPERSEDED (the app changed before the checks ran) */
  @Field(() => PreCheckStatus, { description: 'PENDING, DONE, or SUPERSEDED' })
  @Column({ type: 'text' })
  status: string;

  @Field(() => [PreCheckResult], { description: 'One per check; empty until DONE' })
  @Column({ type: 'jsonb', default: () => "'[]'" })
  results: PreCheckResult[];

  @Field({ description: 'When the revision was submitted for checks' })
  @Column({ type: 'timestamptz', name: 'requested_at' })
  requestedAt: Date;

  @Field(() => Date, { nullable: true, description: 'When the checks finished (or were superseded); null while PENDING' })
  @Column({ type: 'timestamptz', name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'claim_expires_at', nullable: true })
  claimExpiresAt: Date | null;
}
