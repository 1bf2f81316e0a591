import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { int64Column } from '../../platform/int64.js';

/** Purchase.kind: what the service writes and what the API shows. */
export enum PurchaseKind {
  PURCHASE = 'PURCHASE',
  INSTALL = 'INSTALL',
  REINSTALL = 'REINSTALL',
}
registerEnumType(PurchaseKind, {
  name: 'PurchaseKind',
  description: 'Whether a purchase record is a paid purchase or a free install',
  valuesConfig: {
    PURCHASE: { description: 'A paid app bought with points; can be refunded' },
    INSTALL: { description: 'A free app installed: a zero-amount purchase, nothing to refund' },
    REINSTALL: { description: 'A bought app installed again: a zero-amount acquisition of its own (own purchase_id); refunds go to the original purchase' },
  },
});

/** A purchase, or a free install recorded as a zero-amount purchase, so that app.installed carries a purchase_id of the same shape either way. */
@ObjectType({ description: 'A purchase of a paid app, or a free install recorded as a zero-amount purchase' })
@Entity('purchases')
// Exactly one of two racing purchases of the same app by the same user can commit.
@Index('idx_purchases_one_paid_per_user', ['appId', 'userId'], { unique: true, where: `kind = 'PURCHASE' AND status = 'COMPLETED'` })
@Index('idx_purchases_user', ['userId', 'createdAt'])
export class Purchase {
  /** APP-<unix ms>-<6 Crockford base32>; unique by primary key. */
  @Field({ description: 'APP-<unix time in ms>-<6 Crockford base32 characters>; the purchase_id of its webhook events' })
  @PrimaryColumn({ type: 'text', name: 'purchase_id' })
  purchaseId: string;

  @Field(() => ID, { description: 'The app bought or installed (app_<ULID>)' })
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  @Field(() => ID, { description: 'The buyer' })
  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  @Field(() => PurchaseKind, { description: 'PURCHASE (paid), INSTALL (free, zero amount) or REINSTALL (a bought app installed again, zero amount)' })
  @Column({ type: 'text' })
  kind: PurchaseKind;

  @Field(() => Int, { description: 'Price in platform points at the time of purchase; free installs have 0' })
  @Column({ type: 'integer', name: 'price_points' })
  pricePoints: number;

  // Int in the contract; one purchase is at most 2^31 - 1 VND (revenue.ts), so it always fits.
  @Field(() => Int, { description: 'What the buyer paid in VND: pricePoints x POINT_VALUE_VND; 0 for free installs' })
  @Column({ type: 'bigint', name: 'amount_vnd', transformer: int64Column })
  amountVnd: number;

  @Field(() => Int, { description: 'The developer’s share in VND: floor(amountVnd x 80 / 100)' })
  @Column({ type: 'bigint', name: 'developer_share_vnd', transformer: int64Column })
  developerShareVnd: number;

  /** COMPLETED or REFUNDED */
  @Field({ description: 'COMPLETED, or REFUNDED after an admin refunded it' })
  @Column({ type: 'text' })
  status: string;

  @Field({ description: 'When it was bought or installed' })
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field(() => Date, { nullable: true, description: 'When it was refunded; null unless REFUNDED' })
  @Column({ type: 'timestamptz', name: 'refunded_at', nullable: true })
  refundedAt: Date | null;

  @Field(() => String, { nullable: true, description: 'The reason the admin gave for the refund; null when none was given or not refunded' })
  @Column({ type: 'text', name: 'refund_reason', nullable: true })
  refundReason: string | null;
}

/** An app in a user's library; ended by uninstalling or by a refund. */
@ObjectType({ description: 'An app in a user’s library, from install (or purchase) until uninstalled or refunded' })
@Entity('installations')
// One active installation per user and app: racing installs leave exactly one.
@Index('idx_installations_active', ['appId', 'userId'], { unique: true, where: 'uninstalled_at IS NULL' })
@Index('idx_installations_user', ['userId', 'installedAt'])
// Installs per app over time (developerEarnings).
@Index('idx_installations_app_time', ['appId', 'installedAt'])
export class Installation {
  /** `ins_` + ULID */
  @Field(() => ID, { description: 'ins_<ULID>' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID, { description: 'The installed app (app_<ULID>)' })
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  @Field(() => ID, { description: 'Whose library it is in' })
  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  @Field({
    description:
      'The acquisition this installation is: the purchase, the zero-amount install, or the zero-amount reinstall; the purchase_id of its app.installed/app.purchased and app.uninstalled events',
  })
  @Column({ type: 'text', name: 'purchase_id' })
  purchaseId: string;

  /**
   * The paid purchase access comes from, so a refund finds whichever installation is current: the
   * installation's own purchase when bought, the original purchase on a reinstall; null for free apps.
   */
  @Field(() => String, {
    nullable: true,
    description: 'The paid purchase this access comes from (the one to refund): purchaseId itself when bought, the original purchase on a reinstall; null for free apps',
  })
  @Column({ type: 'text', name: 'original_purchase_id', nullable: true })
  originalPurchaseId: string | null;

  @Field({ description: 'When the app was installed or bought' })
  @Column({ type: 'timestamptz', name: 'installed_at' })
  installedAt: Date;

  @Field(() => Date, { nullable: true, description: 'When it was uninstalled or its purchase refunded; null while installed' })
  @Column({ type: 'timestamptz', name: 'uninstalled_at', nullable: true })
  uninstalledAt: Date | null;
}

/** The revenue ledger: one row per sale and per refund; amounts are signed (refunds negative). */
@Entity('revenue_ledger')
@Index('idx_revenue_ledger_developer_app', ['developerId', 'appId'])
// Sales and refunds per app over time (developerEarnings).
@Index('idx_revenue_ledger_app_time', ['appId', 'createdAt'])
export class RevenueEntry {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id: string;

  @Column({ type: 'text', name: 'purchase_id' })
  purchaseId: string;

  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  @Column({ type: 'text', name: 'developer_id' })
  developerId: string;

  /** SALE or REFUND */
  @Column({ type: 'text' })
  kind: string;

  @Column({ type: 'bigint', name: 'gross_vnd', transformer: int64Column })
  grossVnd: number;

  @Column({ type: 'bigint', name: 'developer_share_vnd', transformer: int64Column })
  developerShareVnd: number;

  @Column({ type: 'bigint', name: 'platform_share_vnd', transformer: int64Column })
  platformShareVnd: number;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}

/** Every change to a points balance, with why: credits, purchases and refunds. */
@Entity('point_movements')
@Index('idx_point_movements_user', ['userId', 'createdAt'])
export class PointMovement {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id: string;

  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  /** Signed: credits and refunds positive, purchases negative. */
  @Column({ type: 'bigint', transformer: int64Column })
  delta: number;

  @Column({ type: 'text' })
  reason: string;

  @Column({ type: 'text', name: 'purchase_id', nullable: true })
  purchaseId: string | null;

  /** Who caused it: the buyer, or the admin who credited or refunded. */
  @Column({ type: 'text', name: 'actor_id' })
  actorId: string;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
